/** terminus export <dir>: every visible session as its archived .jsonl, plus manifest.json. */
import { resolve } from "../core/posix.ts";
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { humanBytes, outcome, row } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";
import { openStore } from "../core/open.ts";
import { destinationRefusal, EXPORT_NOTICE, exportStore } from "../core/export/export.ts";

const empty = (destination: string | null) => ({
  destination,
  manifest: null,
  sessions: 0,
  turns: 0,
  evicted: 0,
  bytes: 0,
  notice: EXPORT_NOTICE,
});

const help: CommandHelp = {
  options: [JSON_OPTION],
  examples: ["terminus export ~/terminus-export"],
};

export const command: Command = {
  name: "export",
  help,
  usage: "terminus export <dir> [--json]",
  options: {},
  positionals: true,
  json: true,
  empty: (a) => empty(a.positionals[0] ?? null),
  async run(ctx, a) {
    // there is no default place to put an unredacted copy of every transcript
    if (a.positionals.length === 0) throw new UsageError("export needs a destination <dir>");
    if (a.positionals.length > 1) throw new UsageError("export takes one destination <dir>");
    // An empty argument is a slip (an unset shell variable), not the current directory.
    if (a.positionals[0].trim() === "") {
      throw new UsageError("export: the destination <dir> is empty; name a folder");
    }
    const dest = resolve(ctx.cwd, a.positionals[0]);
    try {
      const refusal = destinationRefusal(dest);
      if (refusal) return outcome("export", empty(dest), { ok: false, reason: refusal });
      const opened = await openStore(ctx, { readsBlocks: true });
      if (!opened.db) {
        return outcome("export", empty(dest), {
          reason: `${opened.reason}; there is nothing to export, and nothing was written`,
        });
      }
      const { db, warnings, r } = opened;
      try {
        const res = exportStore(db, opened.format.archiveFormat, r.cfg, dest, ctx.progress);
        const failed = res.failed.length > 0;
        return outcome("export", {
          destination: dest,
          manifest: res.manifest,
          sessions: res.sessions,
          turns: res.turns,
          evicted: res.evicted,
          bytes: res.bytes,
          notice: EXPORT_NOTICE,
        }, {
          ok: !failed,
          reason: failed ? `${res.failed.length} session(s) could not be exported` : null,
          human: [[row("destination", dest), row("manifest", res.manifest)].join("\n") + "\n"],
          warnings: [...warnings, ...res.failed],
          // the notice goes ahead of the counts, so it is read before anything else
          counts: [
            EXPORT_NOTICE,
            `${res.sessions} session(s), ${res.turns} turn(s), ${res.evicted} evicted, ${
              humanBytes(res.bytes)
            } written`,
          ],
        });
      } finally {
        db.close();
      }
    } catch (e) {
      // the failure document echoes the destination as resolved, like every other answer
      return outcome("export", empty(dest), { ok: false, reason: (e as Error).message });
    }
  },
};
