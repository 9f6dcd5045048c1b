/** The path segment table: each stored path under its last named part, for prompt recall. */
import type { DatabaseSync as Db } from "node:sqlite";

/**
 * The part of a stored path that `path_names` keys it by: its last named segment
 * (`/r/src/a.ts` -> a.ts). A spelling can only ever match a stored path whose last part is its
 * own (the two are equal or one ends in the other at a `/`), so inner segments would be rows no
 * lookup can use; leaving them out keeps the table a row per distinct path.
 */
export function pathName(path: string): string | null {
  const parts = path.split(/[/\\]/).filter((p) => p !== "" && p !== "." && p !== "..");
  return parts.length ? parts[parts.length - 1] : null;
}

/** Records each path under its last part (a path already there costs one lookup). */
export function addPathNames(db: Db, paths: Iterable<string>): void {
  const ins = db.prepare("INSERT OR IGNORE INTO path_names (name, path) VALUES (?, ?)");
  for (const p of paths) {
    const n = pathName(p);
    if (n !== null) ins.run(n, p);
  }
}

/**
 * Forgets the paths no entity carries any more (after turns were deleted), by the table's own
 * key: no second index on `path` is kept for it.
 */
export function prunePathNames(db: Db, paths: Iterable<string>): void {
  const still = db.prepare("SELECT 1 FROM entities WHERE kind = 'path' AND value = ? LIMIT 1");
  const del = db.prepare("DELETE FROM path_names WHERE name = ? AND path = ?");
  for (const p of new Set(paths)) {
    const n = pathName(p);
    if (n !== null && !still.get(p)) del.run(n, p);
  }
}
