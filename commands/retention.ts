/**
 * terminus retention [--dry-run]: what the next pass would evict and delete under the current
 * rule. It only reports; retention acts inside the pass alone, through the same evaluation.
 */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { outcome } from "../core/output.ts";
import { openStore } from "../core/open.ts";
import { evaluateRetention } from "../core/retention/evaluate.ts";

const empty = () => ({ cutoff: null, evict: [], delete: [], over: 0, excluded: 0 });

const help: CommandHelp = {
  options: [["--dry-run", "accepted; the command only ever reports"], JSON_OPTION],
  examples: ["terminus retention --dry-run"],
};

export const command: Command = {
  name: "retention",
  help,
  usage: "terminus retention [--dry-run] [--json]",
  options: { "dry-run": { type: "boolean" } },
  positionals: false,
  json: true,
  empty,
  async run(ctx) {
    const opened = await openStore(ctx);
    if (!opened.db) {
      return outcome("retention", empty(), {
        reason: `${opened.reason}; retention has nothing to act on yet`,
      });
    }
    const { db, warnings, r } = opened;
    try {
      const plan = evaluateRetention(db, r.cfg, ctx.now());
      const data = {
        cutoff: plan.cutoff,
        evict: plan.evict.map((s) => s.sessionKey),
        delete: plan.delete.map((s) => s.sessionKey),
        over: plan.over,
        excluded: plan.excluded,
      };
      const reason = !plan.selecting
        ? "no [retention] rule selects anything: a rule needs an action other than keep and an age_days above 0"
        : data.evict.length + data.delete.length === 0
        ? `the [retention] rule has nothing due at ${plan.cutoff}`
        : null;
      const human = [
        `ages measured from ${plan.cutoff}\n`,
        ...data.evict.map((k) => `evict   ${k}\n`),
        ...data.delete.map((k) => `delete  ${k}\n`),
      ];
      const counts = [
        `${data.evict.length} to evict, ${data.delete.length} to delete, ${plan.over} over the per-pass limit, ${plan.excluded} in excluded projects passed over`,
      ];
      if (plan.waiting > 0) {
        counts.push(
          `${plan.waiting} session(s) due for delete wait for their transcript to be gone`,
        );
      }
      if (reason) counts.push(reason);
      // a value the file sets that Terminus does not know is read as the default: say so
      return outcome("retention", data, {
        reason,
        human,
        counts,
        warnings: [...warnings, ...r.cfg.unknownValues],
      });
    } finally {
      db.close();
    }
  },
};
