/**
 * The store's upkeep SQL: compact (VACUUM, then emptying the WAL) and the numbers `usage`
 * reads (the archive by project and month, and the file by table from dbstat).
 */
import { DatabaseSync } from "node:sqlite";
import { type Db, readTransaction } from "./db.ts";
import { type FileSizes, fileSizes } from "./inspect.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";
import { BUSY_TIMEOUT_WRITE_MS, SQLITE_LOCK_BYTE_OFFSET } from "../constants.ts";
import { StoreError } from "../errors.ts";
import { ptrmapObjects } from "./ptrmap.ts";
import { ftsSegments } from "./fts_pages.ts";

/** PRAGMA auto_vacuum's answer for a file made without it. */
const AUTO_VACUUM_NONE = 0;

/* ---------- compact ---------- */

export interface Compacted {
  before: FileSizes;
  after: FileSizes;
  /** Free pages left in the file because it was made without incremental vacuum. */
  stranded: number;
  /** The WAL could not be emptied to the end (a reader held frames). */
  checkpointBusy: boolean;
}

/**
 * Merges the search index into one segment. Deleting from a contentless index only marks the
 * rows deleted: their words stay in its segments until a merge, so this is what takes them
 * out of the file (a retention or `sessions delete` leaves them there until a compact).
 */
export function mergeSearchIndex(db: Db): void {
  if (!hasSearchIndex(db)) return;
  // the segments the merge frees are zeroed, not left as free pages holding the words
  db.exec("PRAGMA secure_delete = ON");
  optimize(db);
}

const hasSearchIndex = (db: Db) =>
  !!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'turns_fts'").get();
const optimize = (db: Db) => db.exec("INSERT INTO turns_fts(turns_fts) VALUES ('optimize')");

/** How many segments the search index is in (0 for a store without one). */
export function searchSegmentCount(db: Db): number {
  return hasSearchIndex(db) ? ftsSegments(db).length : 0;
}

/**
 * Merges the search index into one segment for the searches' sake, without compact's zeroing:
 * a pass that added much of the archive calls it (core/ingest/housekeeping.ts).
 */
export function mergeSearchSegments(db: Db): void {
  const free = pragmaNumber(db, "PRAGMA freelist_count");
  optimize(db);
  // the merge writes its segment before it frees the old ones' pages: the file gives back as
  // many as it gained, and free pages from before (a deletion's) wait for compact as they did
  const gained = pragmaNumber(db, "PRAGMA freelist_count") - free;
  if (gained > 0 && pragmaNumber(db, "PRAGMA auto_vacuum") !== AUTO_VACUUM_NONE) {
    for (const _ of db.prepare(`PRAGMA incremental_vacuum(${gained})`).iterate()) { /* steps */ }
  }
}

/** The number a one-value statement (a PRAGMA) answers. */
export const pragmaNumber = (db: Db, sql: string) =>
  Object.values(db.prepare(sql).get() ?? {})[0] as number;

/**
 * Merges the search index (so a deleted session's words leave its segments), then frees
 * every free page and truncates the file (PRAGMA incremental_vacuum), then empties the
 * WAL (PRAGMA wal_checkpoint(TRUNCATE)): the vacuum's pages go through the WAL, so without
 * the checkpoint the store on disk would grow. VACUUM itself attaches a database, which
 * node:sqlite refuses without --allow-all, so stores are made with auto_vacuum = INCREMENTAL.
 * Both measurements are taken with this connection open. The caller holds the ingest lock
 * and has checked the format.
 */
export function compactStore(path: string): Compacted {
  let db: Db;
  try {
    // a plain connection: compact must not run the schema steps openWrite runs
    db = new DatabaseSync(path);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_WRITE_MS}`);
  } catch (e) {
    throw new StoreError(`${path} cannot be opened: ${(e as Error).message}`);
  }
  try {
    const before = fileSizes(path);
    mergeSearchIndex(db);
    let stranded = 0;
    if (pragmaNumber(db, "PRAGMA auto_vacuum") === AUTO_VACUUM_NONE) {
      stranded = pragmaNumber(db, "PRAGMA freelist_count");
    } else {
      // each step frees one page: run the statement to its end
      for (const _ of db.prepare("PRAGMA incremental_vacuum").iterate()) { /* stepping */ }
    }
    const cp = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number } | undefined;
    const after = fileSizes(path);
    return { before, after, stranded, checkpointBusy: (cp?.busy ?? 0) !== 0 };
  } finally {
    db.close();
  }
}

/* ---------- usage ---------- */

export interface Bucket<K> {
  key: K;
  sessions: number;
  bytes: number;
}

export interface ArchiveUsage {
  sessions: number;
  archiveBytes: number;
  byProject: Bucket<string | null>[];
  byMonth: Bucket<string | null>[];
}

/** Biggest first, the null bucket last whatever its size, ties by key. */
function order<K extends string | null>(rows: Bucket<K>[]): Bucket<K>[] {
  return rows.sort((a, b) => {
    if ((a.key === null) !== (b.key === null)) return a.key === null ? 1 : -1;
    if (a.bytes !== b.bytes) return b.bytes - a.bytes;
    return (a.key ?? "") < (b.key ?? "") ? -1 : (a.key ?? "") > (b.key ?? "") ? 1 : 0;
  });
}

/**
 * The archive: each visible session's block bytes (length(bytes) over its blocks rows), by
 * project and by the month of its first turn. Both tables add up to archiveBytes.
 */
export function archiveUsage(db: Db, vis: Visibility): ArchiveUsage {
  const w = visibleWhere(vis);
  const per = `SELECT m.project AS project, substr(m.first_turn_at, 1, 7) AS month,
      (SELECT COALESCE(sum(length(b.bytes)), 0) FROM blocks b WHERE b.session_no = s.session_no)
        AS bytes
    FROM sessions s LEFT JOIN session_meta m ON m.session_no = s.session_no WHERE ${w.sql}`;
  const group = (col: string) =>
    (db.prepare(
      `SELECT ${col} AS key, count(*) AS sessions, COALESCE(sum(bytes), 0) AS bytes
       FROM (${per}) GROUP BY ${col}`,
    ).all(...w.params) as Record<string, unknown>[]).map((r) => ({
      key: (r.key as string | null) ?? null,
      sessions: r.sessions as number,
      bytes: r.bytes as number,
    }));
  const byProject = order(group("project"));
  const byMonth = order(group("month"));
  return {
    sessions: byProject.reduce((n, b) => n + b.sessions, 0),
    archiveBytes: byProject.reduce((n, b) => n + b.bytes, 0),
    byProject,
    byMonth,
  };
}

export interface FileShape {
  pageSize: number;
  pageCount: number;
  freelistCount: number;
  /** Whether the file keeps pointer-map pages (auto_vacuum on). */
  autoVacuum: boolean;
  /** Bytes per object, from dbstat. */
  objects: { name: string; bytes: number }[];
}

/**
 * The database file's pages, and which object each belongs to: from the pointer map on a
 * store with auto_vacuum (every store this build makes), else from dbstat, which reads every
 * page. The two agree page for page (tests/unit/footprint_test.ts); the pointer map reads ~0.1%.
 */
export function fileShape(db: Db): FileShape {
  const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  const pageSize = one("SELECT page_size AS n FROM pragma_page_size");
  const pageCount = one("SELECT page_count AS n FROM pragma_page_count");
  const freelistCount = one("SELECT freelist_count AS n FROM pragma_freelist_count");
  const autoVacuum = one("SELECT auto_vacuum AS n FROM pragma_auto_vacuum") !== AUTO_VACUUM_NONE;
  let objects = autoVacuum ? ptrmapObjects(db, { pageSize, pageCount, freelistCount }) : null;
  if (objects === null) objects = dbstatObjects(db);
  return { pageSize, pageCount, freelistCount, autoVacuum, objects };
}

/** Bytes per object as dbstat counts them (every page of the file read). */
export function dbstatObjects(db: Db): { name: string; bytes: number }[] {
  try {
    return (db.prepare(
      "SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name",
    ).all() as { name: string; bytes: number }[]).map((o) => ({ name: o.name, bytes: o.bytes }));
  } catch (e) {
    throw new StoreError(`SQLite's dbstat table cannot be read: ${(e as Error).message}`);
  }
}

/** Both, in one read transaction, so the two tables describe the same state of the store. */
export function readUsage(db: Db, vis: Visibility): { archive: ArchiveUsage; shape: FileShape } {
  return readTransaction(db, () => ({ archive: archiveUsage(db, vis), shape: fileShape(db) }));
}

/** The page number of the lock page: the one holding byte 0x40000000. */
function lockPageNo(pageSize: number): number {
  return Math.floor(SQLITE_LOCK_BYTE_OFFSET / pageSize) + 1;
}

/**
 * The lock page: the one page holding byte 0x40000000, which SQLite reserves and never uses.
 * A file has it once it reaches past that byte, so only a file over 1 GiB.
 */
export function lockPageBytes(pageCount: number, pageSize: number): number {
  return pageCount * pageSize > SQLITE_LOCK_BYTE_OFFSET ? pageSize : 0;
}

/**
 * Pointer-map pages, which a file with auto_vacuum keeps and dbstat does not list: page 2,
 * then one every usable/5 + 1 pages, stepping past the lock page (SQLite's ptrmapPageno).
 * No reserved bytes per page are assumed, as this store never sets any.
 */
export function pointerMapPages(pageCount: number, pageSize: number): number {
  const span = Math.floor(pageSize / 5) + 1;
  const lock = lockPageNo(pageSize);
  let n = 0;
  for (let k = 0;; k++) {
    let p = k * span + 2;
    if (p === lock) p++;
    if (p > pageCount) return n;
    n++;
  }
}

export const FREE_PAGES = "(free pages)";
export const LOCK_PAGE = "(lock page)";
export const POINTER_MAP = "(pointer map)";

/**
 * The footprint rows: every object biggest first, then (free pages), (pointer map) on a file
 * with auto_vacuum, and (lock page) when the file has one. They add up to file_bytes =
 * page_count * page_size.
 */
export function footprint(shape: FileShape): {
  fileBytes: number;
  rows: { name: string; bytes: number }[];
} {
  const rows = [...shape.objects].sort((a, b) =>
    b.bytes - a.bytes || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
  rows.push({ name: FREE_PAGES, bytes: shape.freelistCount * shape.pageSize });
  if (shape.autoVacuum) {
    rows.push({
      name: POINTER_MAP,
      bytes: pointerMapPages(shape.pageCount, shape.pageSize) * shape.pageSize,
    });
  }
  const lock = lockPageBytes(shape.pageCount, shape.pageSize);
  if (lock > 0) rows.push({ name: LOCK_PAGE, bytes: lock });
  return { fileBytes: shape.pageCount * shape.pageSize, rows };
}
