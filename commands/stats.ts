/** terminus stats: is what Terminus hands over on each prompt helping? */
import { noStoreYet } from "../core/errors.ts";
import type { Command } from "./types.ts";
import { outcome, row } from "../core/output.ts";
import { resolveAll } from "../core/setup_context.ts";
import { openRead } from "../core/store/db.ts";
import { statsCounts } from "../core/store/decisions.ts";

function empty() {
  return {
    decisions: 0,
    compacted_decisions: 0,
    ordinary_decisions: 0,
    injected_turns: 0,
    hits: 0,
    false_positives: 0,
    precision: null,
    misses: 0,
    wasted_budget: 0,
    chars_injected: 0,
    chars_referenced: 0,
  };
}

export const command: Command = {
  name: "stats",
  usage: "terminus stats [--json]",
  options: {},
  positionals: false,
  json: true,
  empty,
  run(ctx) {
    const r = resolveAll(ctx);
    const o = openRead(r.store);
    if (!o) {
      return Promise.resolve(outcome("stats", empty(), { reason: noStoreYet(r.store) }));
    }
    try {
      const c = statsCounts(o.db);
      const labelled = c.hits + c.false_positives;
      const precision = labelled === 0 ? null : Math.round((c.hits / labelled) * 100) / 100;
      const data = { ...c, precision };
      const human = [
        row("decisions", c.decisions, 18),
        row("  compacted", c.compacted_decisions, 18),
        row("  ordinary", c.ordinary_decisions, 18),
        row("injected turns", c.injected_turns, 18),
        row("hits", c.hits, 18),
        row("false positives", c.false_positives, 18),
        row("precision", precision === null ? "-" : precision.toFixed(2), 18),
        row("misses", c.misses, 18),
        row("wasted budget", c.wasted_budget, 18),
        row("chars injected", c.chars_injected, 18),
        row("chars referenced", c.chars_referenced, 18),
      ].join("\n") + "\n";
      const why = c.decisions === 0
        ? [
          "no prompt is logged yet: the UserPromptSubmit hook logs each prompt once Terminus is wired into Claude Code (terminus doctor shows whether it is), and prompts in excluded projects are never logged",
        ]
        : [];
      return Promise.resolve(
        outcome("stats", data, { human: [human], warnings: o.warnings, counts: why }),
      );
    } finally {
      o.db.close();
    }
  },
};
