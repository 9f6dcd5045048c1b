/**
 * `compact`'s use case: give the store's free pages back to the filesystem (the search index
 * merged first), then empty the WAL, under the ingest lock.
 */
import type { Context } from "./context.ts";
import { openStore } from "./open.ts";
import { type FileSizes, fileSizes } from "./store/inspect.ts";
import { type Compacted, compactStore } from "./store/maintenance.ts";
import { LOCK_HELD, lockHeldMessage, withIngestLock } from "./store/lock.ts";

export type { FileSizes };

export type CompactDone =
  | { kind: "no store"; reason: string }
  | { kind: "compacted"; store: string; c: Compacted; warnings: string[] }
  /** A pass holds the lock: nothing moved, so one measurement stands for before and after. */
  | { kind: "locked"; sizes: FileSizes; reason: string; warnings: string[] };

export async function compactArchive(ctx: Context): Promise<CompactDone> {
  // checked before the lock, which would create the data directory; refuses a file that is
  // not a store this build reads
  const ro = await openStore(ctx);
  if (!ro.db) return { kind: "no store", reason: ro.reason };
  const r = ro.r;
  let open = true;
  const done = await withIngestLock(r.dataDir, () => {
    ro.db.close();
    open = false;
    return compactStore(r.store);
  });
  if (done !== LOCK_HELD) {
    return { kind: "compacted", store: r.store, c: done, warnings: [...ro.warnings] };
  }
  try {
    // measured with a connection open, as before
    return {
      kind: "locked",
      sizes: fileSizes(r.store),
      reason: lockHeldMessage(r.dataDir),
      warnings: ro.warnings,
    };
  } finally {
    if (open) ro.db.close();
  }
}
