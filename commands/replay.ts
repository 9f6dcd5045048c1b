/** terminus replay: re-score closed sessions' logged prompts under other thresholds. Read-only. */
import type { Command, Parsed } from "./types.ts";
import { type Outcome, outcome, row } from "../core/output.ts";
import type { Context } from "../core/context.ts";
import { resolveAll } from "../core/setup_context.ts";
import { openRead } from "../core/store/db.ts";
import { THRESHOLDS, type Thresholds } from "../core/inject/thresholds.ts";
import { replay } from "../core/feedback/replay.ts";
import { wholeFlag } from "./common.ts";

const FLAGS: [keyof Thresholds, string][] = [
  ["ranked", "ranked"],
  ["compacted_ranked", "compacted-ranked"],
  ["entity_rank", "entity-rank"],
  ["co_occurring", "co-occurring"],
  ["max_turns", "max-turns"],
  ["max_candidates", "max-candidates"],
];

function thresholds(a: Parsed): Thresholds {
  const t: Thresholds = { ...THRESHOLDS };
  for (const [key, flag] of FLAGS) {
    const v = wholeFlag(a.values, flag, 0);
    if (v !== null) t[key] = v;
  }
  return t;
}

export const command: Command = {
  name: "replay",
  usage:
    "terminus replay [--ranked <n>] [--compacted-ranked <n>] [--entity-rank <n>] [--co-occurring <n>] [--max-turns <n>] [--max-candidates <n>] [--json]",
  options: Object.fromEntries(FLAGS.map(([, f]) => [f, { type: "string" as const }])),
  positionals: false,
  json: true,
  empty: (a) => {
    let t: Thresholds = { ...THRESHOLDS };
    try {
      t = thresholds(a);
    } catch { /* misuse never reaches the empty document */ }
    return { thresholds: t, decisions: 0, labels: [], changed: [] };
  },
  run(ctx, a) {
    return Promise.resolve(replayOutcome(ctx, a));
  },
};

function replayOutcome(ctx: Context, a: Parsed): Outcome {
  const t = thresholds(a);
  const r = resolveAll(ctx);
  const o = openRead(r.store);
  if (!o) {
    return outcome("replay", { thresholds: t, decisions: 0, labels: [], changed: [] }, {
      reason: `no store yet at ${r.store}`,
    });
  }
  try {
    const rep = replay(o.db, r.cfg, t);
    const human = [
      row("decisions", rep.decisions, 17),
      ...rep.labels.map((l) => row(l.label, `${l.old} -> ${l.new}`, 17)),
      row("changed", `${rep.changed.length} decision(s)`, 17),
    ].join("\n") + "\n";
    return outcome("replay", { thresholds: t, ...rep }, { human: [human], warnings: o.warnings });
  } finally {
    o.db.close();
  }
}
