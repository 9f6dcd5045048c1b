/** terminus verify: every archived block against its hash, every session against its checksum. */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { outcome } from "../core/output.ts";
import { verifyArchive } from "../core/verify.ts";

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
    const v = await verifyArchive(ctx);
    if (v.report === null) {
      return outcome("verify", empty(), { reason: `${v.reason}; nothing to verify` });
    }
    const { report: rep, warnings } = v;
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
  },
};
