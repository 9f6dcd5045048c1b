/**
 * `reindex`'s use case: rebuild the derived tables from the archived blocks under the ingest
 * lock (same turn ids).
 */
import type { Context } from "../context.ts";
import { openStore } from "../open.ts";
import { LOCK_HELD, lockHeldMessage, withLockedStore } from "../store/lock.ts";
import { initCodec } from "../store/codec.ts";
import { rebuildDerived, type RebuildResult } from "./reindex.ts";

export type Reindexed =
  /** Nothing rebuilt: no store, or a pass holds the lock (`ok` false). */
  | { result: null; ok: boolean; reason: string }
  | { result: RebuildResult };

export async function reindexArchive(ctx: Context): Promise<Reindexed> {
  const ro = await openStore(ctx);
  if (!ro.db) return { result: null, ok: true, reason: `${ro.reason}; nothing to rebuild` };
  ro.db.close();
  const r = ro.r;
  await initCodec();
  const done = await withLockedStore(
    r.dataDir,
    r.store,
    (db) => rebuildDerived(db, undefined, ctx.progress),
  );
  if (done === LOCK_HELD) return { result: null, ok: false, reason: lockHeldMessage(r.dataDir) };
  return { result: done };
}
