/**
 * The one way a command opens the store: resolve the config and paths once, open the store
 * read-only, and say "no store yet" the same way everywhere. A command that writes opens its
 * own connection under the ingest lock after this check (core/ingest/lock.ts).
 */
import type { Context } from "./context.ts";
import { resolveAll, type Resolved } from "./setup_context.ts";
import { type Db, openRead, type StoreFormat } from "./store/db.ts";
import { initReader } from "./store/codec.ts";
import { noStoreYet } from "./errors.ts";
import { DERIVED_SCHEMA } from "./constants.ts";

export type StoreOpen =
  | { db: Db; r: Resolved; format: StoreFormat; warnings: string[] }
  | { db: null; r: Resolved; reason: string };

export interface OpenOptions {
  /** Load the zstd decoder too: only for reads of archived blocks (a listing never needs it). */
  readsBlocks?: boolean;
}

/**
 * Opens the store for reading. `db: null` with the one "no store yet" reason (naming backfill)
 * when there is none (nothing is created); a command adds what that means for it. Throws StoreError for a file
 * that is not a store this build reads.
 */
export async function openStore(ctx: Context, o: OpenOptions = {}): Promise<StoreOpen> {
  const r = resolveAll(ctx);
  const opened = openRead(r.store);
  if (!opened) return { db: null, r, reason: noStoreYet(r.store) };
  if (o.readsBlocks) await initReader();
  return { db: opened.db, r, format: opened.format, warnings: opened.warnings };
}

/**
 * Whether the store's derived tables (by the format its opening read) are older than this
 * build's: a command that would write into them asks for a pass first rather than rebuild
 * them without the lock.
 */
export function predatesBuild(format: StoreFormat | null): boolean {
  return format?.derivedSchema !== DERIVED_SCHEMA;
}
