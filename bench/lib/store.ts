/** Reading a finished store read-only with node:sqlite; `fn` is a core/store/ reader. */
import { DatabaseSync } from "node:sqlite";

export function withStore<T>(path: string, fn: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

export function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Copies a store (and its WAL, when it holds anything) into `dataDir`, so a run that writes
 * (hooks' decisions, reindex) touches only the copy. Returns the copy's path.
 */
export function copyStore(store: string, dataDir: string): string {
  Deno.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const to = `${dataDir}/${store.split("/").pop()}`;
  Deno.copyFileSync(store, to);
  if (fileSize(`${store}-wal`) > 0) Deno.copyFileSync(`${store}-wal`, `${to}-wal`);
  return to;
}
