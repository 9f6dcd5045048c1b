/**
 * What the pass last saw of each transcript file: a hash of the bytes just before its
 * watermark, and the file's size and mtime then. A file whose archived bytes changed (a
 * same-length rewrite, a truncation) is found by comparing that hash with the file, and only
 * when the size or mtime moved, so a pass over unchanged files reads nothing more.
 */
import { cached, cachedArrays, type Db } from "./db.ts";
import { HELD_LINES_DDL, TAILS_DDL } from "./schema.ts";

export interface Tail {
  sessionNo: number;
  /** The watermark the hash was taken at; a tail for another one (recovery lowered it) is stale. */
  offset: number;
  /** How many bytes before the watermark the hash covers. */
  len: number;
  hash: number;
  size: number;
  mtimeMs: number | null;
}

/** Created on the pass's first use, so a store from an earlier build needs no migration. */
export function ensureTails(db: Db): void {
  db.exec(TAILS_DDL);
  db.exec(HELD_LINES_DDL);
}

/**
 * Whether a closed transcript's last line was judged, at this watermark and with the file at
 * this size and mtime, to be no record (it stays out; a pass says so once and reads it no more).
 */
export function heldAt(
  db: Db,
  sessionKey: string,
  offset: number,
  size: number,
  mtimeMs: number | null,
): boolean {
  const r = cachedArrays(db, "SELECT offset, size, mtime_ms FROM held_lines WHERE session_key = ?")
    .get(sessionKey) as unknown as [number, number, number | null] | undefined;
  return r !== undefined && r[0] === offset && r[1] === size && r[2] === mtimeMs;
}

export function putHeld(
  db: Db,
  sessionKey: string,
  offset: number,
  size: number,
  mtimeMs: number | null,
): void {
  cached(
    db,
    "INSERT OR REPLACE INTO held_lines (session_key, offset, size, mtime_ms) VALUES (?, ?, ?, ?)",
  ).run(sessionKey, offset, size, mtimeMs);
}

/** The tail kept for one session, or null (a pass reads it only for a file whose size or mtime moved). */
export function tailOf(db: Db, sessionNo: number): Tail | null {
  const r = cachedArrays(
    db,
    "SELECT session_no, offset, len, hash, size, mtime_ms FROM file_tails WHERE session_no = ?",
  ).get(sessionNo) as unknown as
    | [number, number, number, number, number, number | null]
    | undefined;
  if (!r) return null;
  return { sessionNo: r[0], offset: r[1], len: r[2], hash: r[3], size: r[4], mtimeMs: r[5] };
}

export function putTail(db: Db, t: Tail): void {
  cached(
    db,
    `INSERT OR REPLACE INTO file_tails (session_no, offset, len, hash, size, mtime_ms)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(t.sessionNo, t.offset, t.len, t.hash, t.size, t.mtimeMs);
}

/** cyrb53: a fast 53-bit hash. It detects change; it is not meant to resist a forger. */
export function tailHash(b: Uint8Array): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < b.length; i++) {
    h1 = Math.imul(h1 ^ b[i], 2654435761);
    h2 = Math.imul(h2 ^ b[i], 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
