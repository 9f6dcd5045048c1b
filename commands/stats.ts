/** terminus stats: is what Terminus hands over on each prompt helping? */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { outcome, row } from "../core/output.ts";
import { openStore } from "../core/open.ts";
import { stats, waitingNote } from "../core/feedback/stats.ts";

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

const help: CommandHelp = {
  options: [JSON_OPTION],
  examples: ["terminus stats"],
};

export const command: Command = {
  name: "stats",
  help,
  usage: "terminus stats [--json]",
  options: {},
  positionals: false,
  json: true,
  empty,
  async run(ctx) {
    const o = await openStore(ctx);
    if (!o.db) return outcome("stats", empty(), { reason: o.reason });
    try {
      const c = stats(o.db);
      const human = [
        row("decisions", c.decisions, 18),
        row("  compacted", c.compacted_decisions, 18),
        row("  ordinary", c.ordinary_decisions, 18),
        row("injected turns", c.injected_turns, 18),
        row("hits", c.hits, 18),
        row("false positives", c.false_positives, 18),
        row("precision", c.precision === null ? "-" : c.precision.toFixed(2), 18),
        row("misses", c.misses, 18),
        row("wasted budget", c.wasted_budget, 18),
        row("chars injected", c.chars_injected, 18),
        row("chars referenced", c.chars_referenced, 18),
      ].join("\n") + "\n";
      const waiting = waitingNote(o.db);
      const why = c.decisions === 0
        ? [
          "no prompt is logged yet: the UserPromptSubmit hook logs each prompt once Terminus is wired into Claude Code (terminus doctor shows whether it is), and prompts in excluded projects are never logged",
        ]
        : waiting
        ? [waiting]
        : [];
      return outcome("stats", c, { human: [human], warnings: o.warnings, counts: why });
    } finally {
      o.db.close();
    }
  },
};
