/** terminus replay: re-score closed sessions' logged prompts under other thresholds. Read-only. */
import type { Command, CommandHelp, Parsed } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { type Outcome, outcome, row } from "../core/output.ts";
import type { Context } from "../core/context.ts";
import { openStore } from "../core/open.ts";
import { THRESHOLDS, type Thresholds } from "../core/inject/thresholds.ts";
import { replay } from "../core/feedback/replay.ts";
import { waitingNote } from "../core/feedback/stats.ts";
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

const help: CommandHelp = {
  options: [
    ["--ranked <n>", "ranked hits the threshold is applied over (default 10)"],
    ["--compacted-ranked <n>", "the window for the prompt after a compaction (default 50)"],
    ["--entity-rank <n>", "rank within which one matched entity is enough (default 3)"],
    ["--co-occurring <n>", "matched entities that make a hit eligible at any rank (default 2)"],
    ["--max-turns <n>", "most turns one prompt may be given; 0 is injection off (default 3)"],
    ["--max-candidates <n>", "paths and identifiers looked up per prompt (default 8)"],
    JSON_OPTION,
  ],
  examples: ["terminus replay", "terminus replay --max-turns 1"],
};

export const command: Command = {
  name: "replay",
  help,
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
    return replayOutcome(ctx, a);
  },
};

async function replayOutcome(ctx: Context, a: Parsed): Promise<Outcome> {
  const t = thresholds(a);
  const o = await openStore(ctx);
  if (!o.db) {
    return outcome("replay", { thresholds: t, decisions: 0, labels: [], changed: [] }, {
      reason: o.reason,
    });
  }
  try {
    const rep = replay(o.db, o.r.cfg, t);
    const human = [
      row("decisions", rep.decisions, 17),
      ...rep.labels.map((l) => row(l.label, `${l.old} -> ${l.new}`, 17)),
      row("changed", `${rep.changed.length} decision(s)`, 17),
    ].join("\n") + "\n";
    const waiting = waitingNote(o.db);
    return outcome("replay", { thresholds: t, ...rep }, {
      human: [human],
      warnings: o.warnings,
      counts: waiting ? [waiting] : [],
    });
  } finally {
    o.db.close();
  }
}
