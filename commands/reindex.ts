/** terminus reindex: rebuild the derived tables from the archived blocks, same turn ids. */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { outcome } from "../core/output.ts";
import { reindexArchive } from "../core/index/reindex_archive.ts";

const empty = () => ({ sessions: 0, turns: 0, skipped: [], preserved: 0 });

const help: CommandHelp = {
  options: [JSON_OPTION],
  examples: ["terminus reindex"],
};

export const command: Command = {
  name: "reindex",
  help,
  usage: "terminus reindex [--json]",
  options: {},
  positionals: false,
  json: true,
  empty,
  async run(ctx) {
    const done = await reindexArchive(ctx);
    if (done.result === null) {
      return outcome("reindex", empty(), { ok: done.ok, reason: done.reason });
    }
    const res = done.result;
    const failed = res.skipped.length > 0;
    // human mode only: under --json the document carries the same facts
    const counts = res.skipped.map((s) => `${s.session_key}: skipped: ${s.reason}`);
    if (res.preserved > 0) {
      counts.push(
        `${res.preserved} evicted session(s) carried across with their rows as they were`,
      );
    }
    counts.push(`${res.sessions} session(s), ${res.turns} turn(s) rebuilt`);
    return outcome("reindex", res, {
      ok: !failed,
      exitCode: failed ? 1 : 0,
      reason: failed ? `${res.skipped.length} session(s) could not be rebuilt` : null,
      counts,
    });
  },
};
