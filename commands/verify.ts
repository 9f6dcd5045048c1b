/** terminus verify: every archived block against its hash, every session against its checksum. */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { outcome } from "../core/output.ts";
import { openStore } from "../core/open.ts";
import { verifyStore } from "../core/store/inspect.ts";
import { initCodec } from "../core/store/codec.ts";

const empty = () => ({ checked: 0, failures: [] });

const help: CommandHelp = {
  options: [JSON_OPTION],
  examples: ["terminus verify"],
};

export const command: Command = {
  name: "verify",
  help,
  usage: "terminus verify [--json]",
  options: {},
  positionals: false,
  json: true,
  empty,
  async run(ctx) {
    const opened = await openStore(ctx);
    if (!opened.db) {
      return outcome("verify", empty(), { reason: `${opened.reason}; nothing to verify` });
    }
    const { db, warnings } = opened;
    try {
      await initCodec();
      const rep = verifyStore(db);
      const human = rep.failures.map((f) =>
        f.block === null
          ? `${f.session_key}: ${f.detail}\n`
          : `${f.session_key}: block ${f.block}: ${f.detail}\n`
      );
      for (const k of rep.diverged) {
        warnings.push(
          `${k}: the transcript on disk is shorter than the archive; the archive is intact`,
        );
      }
      const failed = rep.failures.length > 0;
      return outcome("verify", { checked: rep.checked, failures: rep.failures }, {
        ok: !failed,
        exitCode: failed ? 1 : 0,
        reason: failed
          ? `${rep.failures.length} failure(s) in ${
            new Set(rep.failures.map((f) => f.session_key)).size
          } session(s)`
          : null,
        human,
        warnings,
        counts: [`${rep.checked} session(s) checked, ${rep.failures.length} failure(s)`],
      });
    } finally {
      db.close();
    }
  },
};
