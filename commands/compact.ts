/** terminus compact: give the store's free pages back to the filesystem, then empty the WAL. */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { humanBytes, outcome, row } from "../core/output.ts";
import { openStore } from "../core/open.ts";
import { type FileSizes, fileSizes } from "../core/store/inspect.ts";
import { compactStore } from "../core/store/maintenance.ts";
import { LOCK_HELD, lockHeldMessage, withIngestLock } from "../core/ingest/lock.ts";

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
    // checked before the lock, which would create the data directory; refuses a file that is
    // not a store this build reads
    const ro = await openStore(ctx);
    if (!ro.db) {
      return outcome("compact", empty(), { reason: `${ro.reason}; there is nothing to reclaim` });
    }
    const r = ro.r;
    let open = true;
    const done = await withIngestLock(r.dataDir, () => {
      ro.db.close();
      open = false;
      const c = compactStore(r.store);
      const warnings = [...ro.warnings];
      if (c.checkpointBusy) {
        warnings.push(
          "a reader held the write-ahead log, so it could not be emptied to the end",
        );
      }
      // a compaction asked for and not done is a failure, with what was measured as evidence
      const stranded = c.stranded > 0;
      return outcome("compact", doc(c.before, c.after), {
        ok: !stranded,
        reason: stranded
          ? `${r.store} was made without incremental vacuum, so its ${c.stranded} free page(s) cannot be given back: VACUUM needs permissions Terminus never runs with`
          : null,
        human: [human(c.before, c.after)],
        warnings,
      });
    });
    if (done !== LOCK_HELD) return done;
    try {
      // nothing moved: one measurement, with a connection open, stands for both
      const sizes = fileSizes(r.store);
      return outcome("compact", doc(sizes, sizes), {
        ok: false,
        reason: `${lockHeldMessage(r.dataDir)}; a pass is running, so nothing was compacted`,
        human: [human(sizes, sizes)],
        warnings: ro.warnings,
      });
    } finally {
      if (open) ro.db.close();
    }
  },
};
