/**
 * Which object owns each page, from the pointer map instead of dbstat. A store with
 * auto_vacuum keeps one 5-byte entry per page (its kind and its parent page) in a pointer-map
 * page every pageSize/5 pages, so the owner of every page is found by reading those pages
 * alone (about 0.1% of the file) and following parents up to a root page; dbstat reads every
 * page, the overflow chains of the blocks included, which at 3 GB took seconds.
 *
 * The pages are read as the open read transaction sees them: the file, with the latest
 * committed copy of each page in the WAL over it (frames checked the way SQLite checks
 * them: salts and the running checksum). Null when anything does not add up (no pointer map,
 * a page whose parents lead nowhere, free pages other than the freelist's, a WAL whose last
 * commit is not the page count the transaction sees): the caller then asks dbstat.
 */
import type { Db } from "./db.ts";
import { SQLITE_LOCK_BYTE_OFFSET } from "../constants.ts";

/** Kinds of pointer-map entries (SQLite's PTRMAP_*). */
const ROOTPAGE = 1;
const FREEPAGE = 2;
const OVERFLOW1 = 3;
const OVERFLOW2 = 4;
const BTREE = 5;

const WAL_HEADER = 32;
const FRAME_HEADER = 24;
/** WAL magic: checksums in little-endian words (…82) or big-endian ones (…83). */
const WAL_MAGIC_LE = 0x377f0682;
const WAL_MAGIC_BE = 0x377f0683;

export interface PageShape {
  pageSize: number;
  pageCount: number;
  freelistCount: number;
}

function checksum(
  b: Uint8Array,
  off: number,
  len: number,
  s: [number, number],
  bigEndian: boolean,
): void {
  const v = new DataView(b.buffer, b.byteOffset + off, len);
  let s0 = s[0];
  let s1 = s[1];
  for (let i = 0; i < len; i += 8) {
    s0 = (s0 + v.getUint32(i, !bigEndian) + s1) >>> 0;
    s1 = (s1 + v.getUint32(i + 4, !bigEndian) + s0) >>> 0;
  }
  s[0] = s0;
  s[1] = s1;
}

/**
 * The WAL's committed frames: for each page, where its latest committed copy starts, and the
 * page count the last commit recorded (0 when the WAL holds no commit).
 */
interface WalPages {
  /** Where each page's latest committed copy starts in `wal`. */
  at: Map<number, number>;
  pages: number;
  wal: Uint8Array;
}

function walPages(path: string, pageSize: number): WalPages {
  const at = new Map<number, number>();
  let wal: Uint8Array;
  try {
    wal = Deno.readFileSync(`${path}-wal`);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { at, pages: 0, wal: new Uint8Array(0) };
    throw e;
  }
  const none = { at, pages: 0, wal };
  if (wal.length < WAL_HEADER) return none;
  const h = new DataView(wal.buffer, wal.byteOffset, WAL_HEADER);
  const magic = h.getUint32(0);
  if (magic !== WAL_MAGIC_LE && magic !== WAL_MAGIC_BE) return none;
  const bigEndian = magic === WAL_MAGIC_BE;
  if (h.getUint32(8) !== pageSize) throw new Error("the WAL's page size is not the store's");
  const s: [number, number] = [0, 0];
  checksum(wal, 0, 24, s, bigEndian);
  if (s[0] !== h.getUint32(24) || s[1] !== h.getUint32(28)) return none;
  const salt1 = h.getUint32(16);
  const salt2 = h.getUint32(20);
  let pending = new Map<number, number>();
  let pages = 0;
  for (let off = WAL_HEADER; off + FRAME_HEADER + pageSize <= wal.length;) {
    const f = new DataView(wal.buffer, wal.byteOffset + off, FRAME_HEADER);
    if (f.getUint32(8) !== salt1 || f.getUint32(12) !== salt2) break;
    checksum(wal, off, 8, s, bigEndian);
    checksum(wal, off + FRAME_HEADER, pageSize, s, bigEndian);
    if (s[0] !== f.getUint32(16) || s[1] !== f.getUint32(20)) break;
    pending.set(f.getUint32(0), off + FRAME_HEADER);
    const commit = f.getUint32(4);
    if (commit !== 0) {
      for (const [p, o] of pending) at.set(p, o);
      pending = new Map();
      pages = commit;
    }
    off += FRAME_HEADER + pageSize;
  }
  // frames after the last commit belong to no committed transaction
  return { at, pages, wal };
}

/** Bytes per object (dbstat's names), or null when the pointer map cannot answer exactly. */
export function ptrmapObjects(db: Db, shape: PageShape): { name: string; bytes: number }[] | null {
  const { pageSize: ps, pageCount: n } = shape;
  const main = (db.prepare("PRAGMA database_list").all() as { name: string; file: string }[])
    .find((d) => d.name === "main")?.file;
  if (!main || n < 2) return null;
  const names = new Map<number, string>([[1, "sqlite_schema"]]);
  for (
    const r of db.prepare("SELECT name, rootpage FROM sqlite_schema WHERE rootpage > 0").all() as {
      name: string;
      rootpage: number;
    }[]
  ) names.set(r.rootpage, r.name);

  const wal = walPages(main, ps);
  if (wal.pages !== 0 && wal.pages !== n) return null;
  const file = Deno.openSync(main, { read: true });
  const kind = new Uint8Array(n + 1);
  const parent = new Uint32Array(n + 1);
  const lock = Math.floor(SQLITE_LOCK_BYTE_OFFSET / ps) + 1;
  const span = Math.floor(ps / 5) + 1;
  const page = new Uint8Array(ps);
  let maps = 0;
  try {
    for (let k = 0;; k++) {
      let p = k * span + 2;
      if (p === lock) p++;
      if (p > n) break;
      maps++;
      const inWal = wal.at.get(p);
      let src: Uint8Array;
      if (inWal !== undefined) src = wal.wal.subarray(inWal, inWal + ps);
      else {
        file.seekSync((p - 1) * ps, Deno.SeekMode.Start);
        let got = 0;
        while (got < ps) {
          const r = file.readSync(page.subarray(got));
          if (r === null) return null;
          got += r;
        }
        src = page;
      }
      const v = new DataView(src.buffer, src.byteOffset, ps);
      for (let i = 0; i < span - 1; i++) {
        const q = p + 1 + i;
        if (q > n) break;
        kind[q] = src[5 * i];
        parent[q] = v.getUint32(5 * i + 1);
      }
    }
  } finally {
    file.close();
  }
  // every page that is not page 1, a pointer-map page or the lock page has an entry
  const root = new Uint32Array(n + 1);
  root[1] = 1;
  const chain: number[] = [];
  const bytes = new Map<number, number>();
  let free = 0;
  let unmapped = 0;
  for (let p = 2; p <= n; p++) {
    if (kind[p] === 0) {
      unmapped++; // a pointer-map page or the lock page, which no entry describes
      continue;
    }
    if (kind[p] === FREEPAGE) {
      free++;
      continue;
    }
    let q = p;
    while (root[q] === 0) {
      chain.push(q);
      const k = kind[q];
      if (k === ROOTPAGE) {
        root[q] = q;
        break;
      }
      if (k !== BTREE && k !== OVERFLOW1 && k !== OVERFLOW2) return null;
      q = parent[q];
      if (q < 1 || q > n || chain.length > n) return null;
    }
    const r = root[q];
    for (const c of chain) root[c] = r;
    chain.length = 0;
    bytes.set(r, (bytes.get(r) ?? 0) + ps);
  }
  bytes.set(1, (bytes.get(1) ?? 0) + ps);
  if (free !== shape.freelistCount || unmapped !== maps + (lock <= n ? 1 : 0)) return null;
  const out: { name: string; bytes: number }[] = [];
  for (const [r, b] of bytes) {
    const name = names.get(r);
    if (name === undefined) return null;
    out.push({ name, bytes: b });
  }
  return out;
}
