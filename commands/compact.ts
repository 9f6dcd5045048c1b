/** terminus compact: give the store's free pages back to the filesystem, then empty the WAL. */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { humanBytes, outcome, row } from "../core/output.ts";
import { compactArchive, type FileSizes } from "../core/compact.ts";

const zero = (): FileSizes => ({ db: 0, wal: 0, shm: 0, total: 0 });
const empty = () => ({ before: zero(), after: zero(), reclaimed_bytes: 0 });

function doc(before: FileSizes, after: FileSizes) {
  return { before, after, reclaimed_bytes: before.total - after.total };
}

function human(before: FileSizes, after: FileSizes): string {
  const line = (s: FileSizes) =>
    `${humanBytes(s.total)}: db ${s.db}, wal ${s.wal}, shm ${s.shm} byte(s)`;
  return [
    row("before", line(before)),
    row("after", line(after)),
    row("reclaimed", `${before.total - after.total} byte(s)`),
  ].join("\n") + "\n";
}

const help: CommandHelp = {
  options: [JSON_OPTION],
  examples: ["terminus compact", "terminus compact --json"],
};

export const command: Command = {
  name: "compact",
  help,
  usage: "terminus compact [--json]",
  options: {},
  positionals: false,
  json: true,
  empty,
  async run(ctx) {
    const done = await compactArchive(ctx);
    if (done.kind === "no store") {
      return outcome("compact", empty(), { reason: `${done.reason}; there is nothing to reclaim` });
    }
    if (done.kind === "locked") {
      return outcome("compact", doc(done.sizes, done.sizes), {
        ok: false,
        reason: `${done.reason}; a pass is running, so nothing was compacted`,
        human: [human(done.sizes, done.sizes)],
        warnings: done.warnings,
      });
    }
    const { c, warnings } = done;
    if (c.checkpointBusy) {
      warnings.push("a reader held the write-ahead log, so it could not be emptied to the end");
    }
    // a compaction asked for and not done is a failure, with what was measured as evidence
    const stranded = c.stranded > 0;
    return outcome("compact", doc(c.before, c.after), {
      ok: !stranded,
      reason: stranded
        ? `${done.store} was made without incremental vacuum, so its ${c.stranded} free page(s) cannot be given back: VACUUM needs permissions Terminus never runs with`
        : null,
      human: [human(c.before, c.after)],
      warnings,
    });
  },
};
