/**
 * Opening the store, its statement caches and transactions; the schema is schema.ts. Read paths
 * open read-only and never create anything; the pass opens read-write and creates the data
 * directory (0700) and file (0600).
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { exists } from "../posix.ts";
import { dirname } from "../posix.ts";
import {
  ARCHIVE_FORMAT,
  BUSY_TIMEOUT_READ_MS,
  BUSY_TIMEOUT_WRITE_MS,
  DERIVED_SCHEMA,
  DIR_MODE,
  FILE_MODE,
  FULL_DISK_READ_MAX_BYTES,
  SESSIONS_SCHEMA,
} from "../constants.ts";
import { StoreError } from "../errors.ts";
import { type StoreFormat, upgradeSchema } from "./schema.ts";

export type Db = DatabaseSync;

/**
 * The writer's page cache and the WAL pages it lets build up before a checkpoint: large enough
 * for a backfill's random-keyed index inserts, small enough that a checkpoint does not stall the
 * hooks (performance.md, "A larger store costs more per byte" and "The WAL checkpoint").
 */
const WRITER_CACHE_KIB = 40 * 1024;
const WAL_AUTOCHECKPOINT_PAGES = 16_384;
/**
 * A reader's page cache (SQLite's default is 2 MiB). A reader lives for one command, a hook or
 * one MCP call: each page its cache holds is memory the process touches for the first time,
 * which on some hosts costs more than reading the page again from the OS (performance.md,
 * "Pages a search touches").
 */
const READER_CACHE_KIB = 256;
/** A reader that finds the store locked (a new store switching to WAL) retries this often. */
const READ_BUSY_RETRIES = 20;
const READ_BUSY_PAUSE_MS = 25;

export type { StoreFormat } from "./schema.ts";

function pragmas(db: Db, busyMs: number): void {
  db.exec(`PRAGMA busy_timeout = ${busyMs}`);
}

/** Reads the two format numbers; null if the file has no meta table (not our store). */
export function readFormat(db: Db): StoreFormat | null {
  let rows: { key: string; value: string }[];
  try {
    rows = db.prepare("SELECT key, value FROM meta").all() as { key: string; value: string }[];
  } catch (e) {
    if (/no such table/i.test((e as Error).message)) return null;
    throw e; // busy, or not a database: the caller tells those apart from "not ours"
  }
  {
    const m = new Map(rows.map((r) => [r.key, r.value]));
    const a = Number(m.get("archive_format"));
    const d = Number(m.get("derived_schema"));
    const n = Number(m.get("sessions_schema"));
    if (!Number.isFinite(a)) return null;
    return {
      archiveFormat: a,
      derivedSchema: Number.isFinite(d) ? d : 0,
      sessionsSchema: Number.isFinite(n) ? n : 0,
    };
  }
}

/** A short synchronous pause (the read paths are synchronous). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const BUSY = /locked|busy/i;

/**
 * The store's format as a reader sees it. A first pass switching a new file to WAL holds it
 * exclusively for a moment, and a reader then gets "database is locked" even past its busy
 * timeout: that is waited out, never taken for a foreign file.
 */
function readFormatPatiently(db: Db): StoreFormat | null {
  for (let attempt = 0;; attempt++) {
    try {
      return readFormat(db);
    } catch (e) {
      if (!BUSY.test((e as Error).message) || attempt >= READ_BUSY_RETRIES) throw e;
      pause(READ_BUSY_PAUSE_MS);
    }
  }
}

export const OLDER_STORE_STEPS =
  "move terminus.db aside (or delete it), then run terminus ingest to archive the transcripts still on disk into a new store";

export function olderArchiveMessage(path: string, found: number): string {
  return `${path} is in archive format ${found}, older than the format ${ARCHIVE_FORMAT} this build reads; it is refused, never converted. For a clean install: ${OLDER_STORE_STEPS}`;
}

export function newerArchiveMessage(path: string, found: number): string {
  return `${path} is in archive format ${found}, newer than the format ${ARCHIVE_FORMAT} this build reads; install a newer Terminus`;
}

export interface OpenRead {
  db: Db;
  format: StoreFormat;
  /** Warnings for stderr, such as derived tables older than this build. */
  warnings: string[];
}

/**
 * A reader on a full disk: a WAL reader must grow the shared-memory file beside the store,
 * which a full disk refuses ("disk I/O error"), and every reader and hook failed until space was
 * freed. With the WAL empty the store file is whole, so it is read into memory instead (up to
 * FULL_DISK_READ_MAX_BYTES; the runtime's permissions rule out SQLite's immutable mode). Null
 * when this is not that case.
 */
function wholeWithoutWal(path: string, e: unknown): { db: Db; format: StoreFormat | null } | null {
  if (!/disk I\/O error|unable to open|disk is full/i.test((e as Error).message)) return null;
  try {
    if (Deno.statSync(`${path}-wal`).size > 0) return null;
  } catch { /* no WAL: the file is whole */ }
  try {
    if (Deno.statSync(path).size > FULL_DISK_READ_MAX_BYTES) return null;
    const bytes = Deno.readFileSync(path);
    // header bytes 18 and 19 say WAL; an in-memory copy reads as a rollback-journal file
    if (bytes.length > 19 && bytes[18] === 2) bytes[18] = bytes[19] = 1;
    const db = new DatabaseSync(":memory:");
    db.deserialize(bytes);
    return { db, format: readFormatPatiently(db) };
  } catch {
    return null;
  }
}

/**
 * Opens an existing store read-only. Returns null when there is no store (nothing created).
 * Throws StoreError for a file that is not a Terminus store or is in another archive format.
 */
export function openRead(path: string): OpenRead | null {
  try {
    Deno.lstatSync(path);
  } catch (e) {
    // a store this user may not even look at (a data directory of mode 000, another user's)
    // is there all the same: never "no store yet"
    if (e instanceof Deno.errors.PermissionDenied) {
      throw new StoreError(
        `${path} cannot be read: permission denied (the data directory or the store is not readable by this user)`,
      );
    }
    return null; // not there (or its folder is a file, which the caller names)
  }
  let db!: Db;
  let format: StoreFormat | null;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    pragmas(db, BUSY_TIMEOUT_READ_MS);
    db.exec(`PRAGMA cache_size = -${READER_CACHE_KIB}`);
    format = readFormatPatiently(db);
  } catch (e) {
    try {
      db?.close();
    } catch { /* never opened */ }
    const whole = wholeWithoutWal(path, e);
    if (!whole) throw new StoreError(`${path} cannot be opened: ${(e as Error).message}`);
    db = whole.db;
    format = whole.format;
  }
  if (!format) {
    // a file SQLite cannot read at all says so, rather than passing for someone else's store
    let detail = "is not a Terminus store (no archive format recorded)";
    let tables = 1;
    try {
      tables = (db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number }).n;
      // the two reads are two snapshots: tables now, where the format read found none, may be
      // a first pass's creating commit landing in between (its schema and format commit together)
      if (tables > 0) format = readFormatPatiently(db);
    } catch (e) {
      detail = `cannot be opened: ${(e as Error).message}`;
    }
    if (!format) {
      db.close();
      // an empty file, as a first pass killed before its first commit leaves, is no store yet:
      // the next pass adopts it the same way
      if (tables === 0) return null;
      throw new StoreError(`${path} ${detail}`);
    }
  }
  if (format.archiveFormat < ARCHIVE_FORMAT) {
    db.close();
    throw new StoreError(olderArchiveMessage(path, format.archiveFormat));
  }
  if (format.archiveFormat > ARCHIVE_FORMAT) {
    db.close();
    throw new StoreError(newerArchiveMessage(path, format.archiveFormat));
  }
  const warnings: string[] = [];
  if (format.derivedSchema < DERIVED_SCHEMA) {
    warnings.push(
      `${path}: the derived tables predate this build (schema ${format.derivedSchema}, this build ${DERIVED_SCHEMA}); the next ingest pass rebuilds them`,
    );
  }
  return { db, format, warnings };
}

export interface OpenWrite {
  db: Db;
  /** True when the derived tables were (re)created empty and must be rebuilt from blocks. */
  derivedStale: boolean;
  created: boolean;
}

/** Opens (creating when missing) the store for writing. */
export function openWrite(path: string): OpenWrite {
  const dir = dirname(path);
  Deno.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  let created = false;
  if (!exists(path)) {
    // Create the file ourselves so its mode is set in the creating call; SQLite's
    // -wal and -shm files copy the database file's permissions.
    Deno.openSync(path, { create: true, write: true, mode: FILE_MODE }).close();
    created = true;
  }
  let db: Db | undefined;
  let format: StoreFormat | null;
  let hasTables = 0;
  try {
    db = new DatabaseSync(path);
    pragmas(db, BUSY_TIMEOUT_WRITE_MS);
    format = readFormat(db);
    if (!format) {
      hasTables = (db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number }).n;
    }
  } catch (e) {
    db?.close();
    throw new StoreError(`${path} cannot be opened: ${(e as Error).message}`);
  }
  if (!format && hasTables > 0) {
    db.close();
    throw new StoreError(`${path} is not a Terminus store (no archive format recorded)`);
  }
  if (format && format.archiveFormat < ARCHIVE_FORMAT) {
    db.close();
    throw new StoreError(olderArchiveMessage(path, format.archiveFormat));
  }
  if (format && format.archiveFormat > ARCHIVE_FORMAT) {
    db.close();
    throw new StoreError(newerArchiveMessage(path, format.archiveFormat));
  }
  // WAL only once the file is known to be ours or empty: the switch rewrites the header,
  // and a file that is refused must be left byte for byte as it was.
  try {
    // a new store frees pages by incremental_vacuum (terminus compact): VACUUM attaches a
    // database, which node:sqlite refuses without --allow-all; settable only before any table
    if (!format && hasTables === 0) db.exec("PRAGMA auto_vacuum = INCREMENTAL");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    // The writer batches checkpoints and keeps a larger page cache: per-file commits on a
    // backfill otherwise spend much of their time copying WAL pages back and re-reading them.
    db.exec(`PRAGMA cache_size = -${WRITER_CACHE_KIB}`);
    db.exec(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
  } catch (e) {
    db.close();
    throw new StoreError(`${path} cannot be opened: ${(e as Error).message}`);
  }
  let derivedStale = false;
  // A store already in this build's formats has every table: skip the schema statements,
  // which would otherwise run on every pass.
  if (
    format && format.derivedSchema === DERIVED_SCHEMA && format.sessionsSchema === SESSIONS_SCHEMA
  ) return { db, derivedStale, created };
  try {
    const found = format;
    derivedStale = transaction(db, () => upgradeSchema(db, found));
  } catch (e) {
    db.close();
    throw new StoreError(`${path} cannot be prepared: ${(e as Error).message}`);
  }
  return { db, derivedStale, created };
}

export function rebuildPending(db: Db): boolean {
  return rebuildPendingFrom(db) !== null;
}

/** The derived schema a pending rebuild comes from, or null when none is pending. */
export function rebuildPendingFrom(db: Db): number | null {
  const r = db.prepare("SELECT value FROM meta WHERE key = 'derived_rebuild_pending'").get() as
    | { value: string }
    | undefined;
  if (!r) return null;
  const n = Number(r.value);
  return Number.isFinite(n) ? n : 0;
}

export function clearRebuildPending(db: Db): void {
  db.prepare("DELETE FROM meta WHERE key = 'derived_rebuild_pending'").run();
}

/**
 * Closes a connection opened by openWrite. The last connection to close folds the WAL into the
 * file while it holds the store's exclusive lock, fsync included, and every reader that opens
 * meanwhile waits in its busy handler: a hook opening the store as a pass closed waited
 * 100-180 ms, past its deadline. A passive checkpoint first does that work under no lock a
 * reader waits on (it stops short of frames a reader still needs), so the close finds nothing
 * left to copy (docs/design/performance.md, "A writer's close").
 */
export function closeWrite(db: Db): void {
  try {
    db.exec("PRAGMA wal_checkpoint(PASSIVE)");
  } catch {
    // the close checkpoints as before
  }
  db.close();
}

/** After a pass that wrote, fold the WAL back into the file and truncate it. */
export function checkpoint(db: Db): void {
  try {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } catch {
    // a reader holding an old snapshot: the next pass checkpoints
  }
}

/**
 * Runs `fn` in one write transaction (BEGIN IMMEDIATE): committed when it returns, rolled back
 * when it throws, so no caller can leave a transaction open behind an exception. Called inside
 * another transaction it is a savepoint: a failure undoes only its own part.
 */
const statements = new WeakMap<Db, Map<string, StatementSync>>();

/**
 * A statement prepared once per connection, for the pass's per-file writes: preparing the same
 * dozen statements for every window cost a backfill ~80 ms. Only for `run`/`get`/`all`, never
 * `iterate` (a cached statement must not be mid-iteration when it is used again).
 */
export function cached(db: Db, sql: string): StatementSync {
  let m = statements.get(db);
  if (!m) statements.set(db, m = new Map());
  let st = m.get(sql);
  if (!st) m.set(sql, st = db.prepare(sql));
  return st;
}

const arrayStatements = new WeakMap<Db, Map<string, StatementSync>>();

/**
 * `cached`, for a statement whose rows come back as arrays of column values: node:sqlite
 * builds a row of named columns several times slower than an array, which matters for the
 * reads a pass makes of every session (12-15 ms of a no-op pass at 4,000 sessions, 5 as arrays).
 */
export function cachedArrays(db: Db, sql: string): StatementSync {
  let m = arrayStatements.get(db);
  if (!m) arrayStatements.set(db, m = new Map());
  let st = m.get(sql);
  if (!st) {
    m.set(sql, st = db.prepare(sql));
    // the runtime's node:sqlite has it; the type definitions it ships do not name it yet
    (st as StatementSync & { setReturnArrays(on: boolean): void }).setReturnArrays(true);
  }
  return st;
}

/**
 * Opens a write transaction that a batch writer commits later with commitWrite (the pass
 * groups several files' writes in one); anything shorter uses transaction().
 */
export function beginWrite(db: Db): void {
  db.exec("BEGIN IMMEDIATE");
}

export function commitWrite(db: Db): void {
  db.exec("COMMIT");
}

/**
 * Runs `fn` in one write transaction (a savepoint when one is already open). On an error the
 * work is rolled back and the error itself is thrown: a failed ROLLBACK never replaces it.
 */
export function transaction<T>(db: Db, fn: () => T): T {
  const nested = db.isTransaction;
  db.exec(nested ? "SAVEPOINT nested" : "BEGIN IMMEDIATE");
  let result: T;
  try {
    result = fn();
  } catch (e) {
    try {
      db.exec(nested ? "ROLLBACK TO nested; RELEASE nested" : "ROLLBACK");
    } catch { /* SQLite already rolled it back */ }
    throw e;
  }
  db.exec(nested ? "RELEASE nested" : "COMMIT");
  return result;
}

/** Runs `fn` in one read transaction, so everything it reads is one state of the store. */
export function readTransaction<T>(db: Db, fn: () => T): T {
  db.exec("BEGIN");
  try {
    return fn();
  } finally {
    db.exec("COMMIT");
  }
}
