/**
 * The folder listings a pass keeps for the next one (see core/transcript/listing.ts): read in
 * one query before discovery, and written only for folders listed afresh, so a pass whose
 * folders did not change writes nothing here.
 */
import { cachedArrays, type Db, transaction } from "./db.ts";
import { LISTINGS_DDL } from "./schema.ts";
import type { KeptListing } from "../transcript/listing.ts";

/** Created on the pass's first use, so a store from an earlier build needs no migration. */
export function ensureListings(db: Db): void {
  db.exec(LISTINGS_DDL);
}

export function readListings(db: Db): KeptListing[] {
  const rows = cachedArrays(
    db,
    "SELECT path, dev, ino, mtime_ms, ctime_ms, entries FROM folder_listings",
  ).all() as unknown as [string, number, number, number, number, string][];
  return rows.map(([path, dev, ino, mtimeMs, ctimeMs, entries]) => ({
    path,
    dev,
    ino,
    mtimeMs,
    ctimeMs,
    entries,
  }));
}

/** Keeps the listings read afresh and forgets those of folders no longer visited. */
export function writeListings(db: Db, put: KeptListing[], drop: string[]): void {
  if (put.length === 0 && drop.length === 0) return;
  transaction(db, () => {
    const ins = cachedArrays(
      db,
      `INSERT OR REPLACE INTO folder_listings (path, dev, ino, mtime_ms, ctime_ms, entries)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    for (const l of put) ins.run(l.path, l.dev, l.ino, l.mtimeMs, l.ctimeMs, l.entries);
    const del = cachedArrays(db, "DELETE FROM folder_listings WHERE path = ?");
    for (const p of drop) del.run(p);
  });
}
