/**
 * Opening the store and owning its schema. Read paths open read-only and never create
 * anything; the pass opens read-write and creates the data directory (0700) and file (0600).
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
  READ_BUSY_PAUSE_MS,
  READ_BUSY_RETRIES,
  SESSIONS_SCHEMA,
  WAL_AUTOCHECKPOINT_PAGES,
  WRITER_CACHE_KIB,
} from "../constants.ts";
import { StoreError } from "../errors.ts";
import { markTitlesFillPending, SESSIONS_DDL } from "./sessions_sql.ts";

export type Db = DatabaseSync;

/** Archive tables: never migrated, never rebuilt. */
const ARCHIVE_DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  session_no INTEGER PRIMARY KEY,
  session_key TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS session_meta (
  session_no INTEGER PRIMARY KEY REFERENCES sessions(session_no),
  session_id TEXT,
  transcript_path TEXT,
  checksum BLOB,
  uncompressed_len INTEGER NOT NULL DEFAULT 0,
  continues_from TEXT,
  first_parent_uuid TEXT,
  first_turn_at TEXT,
  last_turn_at TEXT,
  project TEXT,
  cwd TEXT,
  branch TEXT,
  is_final INTEGER NOT NULL DEFAULT 0,
  is_evicted INTEGER NOT NULL DEFAULT 0,
  parent_session_key TEXT,
  agent_meta BLOB,
  transcript_diverged INTEGER NOT NULL DEFAULT 0,
  project_pre_worktree TEXT,
  capture_mode TEXT NOT NULL DEFAULT 'full',
  turn_count INTEGER NOT NULL DEFAULT 0,
  observed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS session_meta_project ON session_meta(project);
CREATE TABLE IF NOT EXISTS blocks (
  session_no INTEGER NOT NULL,
  block_no INTEGER NOT NULL,
  raw_len INTEGER NOT NULL,
  hash BLOB NOT NULL,
  bytes BLOB NOT NULL,
  PRIMARY KEY (session_no, block_no)
);
CREATE TABLE IF NOT EXISTS observations (
  session_no INTEGER PRIMARY KEY,
  generated_at TEXT,
  mechanical TEXT
);
CREATE TABLE IF NOT EXISTS decisions (
  id INTEGER PRIMARY KEY,
  session_id TEXT,
  project TEXT,
  at TEXT,
  compacted INTEGER,
  injected_turns INTEGER NOT NULL DEFAULT 0,
  chars_injected INTEGER NOT NULL DEFAULT 0,
  labelled INTEGER NOT NULL DEFAULT 0,
  queue_name TEXT UNIQUE,
  doc TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS labels (
  decision_id INTEGER NOT NULL,
  turn_id INTEGER,
  label TEXT NOT NULL,
  chars INTEGER NOT NULL DEFAULT 0
);
`;

/** Operational tables. */
const OPERATIONAL_DDL = `
CREATE TABLE IF NOT EXISTS watermarks (
  session_no INTEGER PRIMARY KEY,
  transcript_path TEXT NOT NULL,
  offset INTEGER NOT NULL,
  stream_len INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  files_seen INTEGER NOT NULL DEFAULT 0,
  files_committed INTEGER NOT NULL DEFAULT 0,
  files_failed INTEGER NOT NULL DEFAULT 0,
  bytes_read INTEGER NOT NULL DEFAULT 0,
  turns_added INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  notes TEXT
);
`;

/**
 * The derived schema in which each derived table's shape last changed. On a schema change only
 * a table older than that is dropped and made anew; the others keep their rows, so an evicted
 * session (whose derived rows are the only copy left of it) keeps whatever it can. Schema 2
 * changed what the entities hold (Bash lines' identifiers), not their shape; schema 3 made the
 * search index `detail=column`; schema 4 made it `detail=full` again (BM25 scores and phrases
 * need its counts and positions) and changed what it holds (no boilerplate, no result copies),
 * added how each entity was touched (`entities.act`, by ALTER, so an evicted session keeps its
 * rows) and the path segment table `path_names`. Schema 5 changed what the entities hold, not
 * their shape: the names a Write or an Edit defines (`class X`, `def x`, `func X`) are symbols
 * acted on directly, so every session is derived again and none of its tables is dropped.
 */
export const DERIVED_SHAPE_SINCE: Record<string, number> = {
  turns: 1,
  compaction_boundaries: 1,
  turns_fts: 4,
  entities: 1,
  paths: 1,
  turn_text: 1,
  path_names: 4,
};

/** Derived tables: dropped and rebuilt from the blocks (same turn ids). */
export const DERIVED_TABLES = [
  "turns",
  "compaction_boundaries",
  "turns_fts",
  "entities",
  "paths",
  "turn_text",
  "path_names",
];
const DERIVED_DDL = `
CREATE TABLE IF NOT EXISTS turns (
  id INTEGER PRIMARY KEY,
  session_no INTEGER NOT NULL,
  turn_seq INTEGER NOT NULL,
  uuid TEXT,
  parent_uuid TEXT,
  record_type TEXT NOT NULL,
  tool_name TEXT,
  ts TEXT,
  stream_offset INTEGER NOT NULL,
  byte_len INTEGER NOT NULL,
  is_typed INTEGER NOT NULL DEFAULT 0,
  is_sidechain INTEGER NOT NULL DEFAULT 0,
  is_tool_result INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS turns_session ON turns(session_no, turn_seq);
CREATE INDEX IF NOT EXISTS turns_uuid ON turns(uuid);
CREATE TABLE IF NOT EXISTS turn_text (
  turn_id INTEGER PRIMARY KEY,
  text TEXT NOT NULL,
  is_reply INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS compaction_boundaries (
  turn_id INTEGER PRIMARY KEY,
  session_no INTEGER NOT NULL,
  preserved TEXT
);
CREATE VIRTUAL TABLE IF NOT EXISTS turns_fts USING fts5(
  body, content='', contentless_delete=1, tokenize='unicode61'
);
CREATE TABLE IF NOT EXISTS entities (
  turn_id INTEGER NOT NULL,
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  act INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS entities_act ON entities(kind, value, act, turn_id DESC);
CREATE INDEX IF NOT EXISTS entities_turn ON entities(turn_id);
CREATE TABLE IF NOT EXISTS paths (
  turn_id INTEGER NOT NULL,
  path TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS paths_path ON paths(path);
CREATE INDEX IF NOT EXISTS paths_turn ON paths(turn_id);
CREATE TABLE IF NOT EXISTS path_names (
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  PRIMARY KEY (name, path)
) WITHOUT ROWID;
`;

export interface StoreFormat {
  archiveFormat: number;
  derivedSchema: number;
  /** The names/tags/titles tables' version; 0 on a store made before them. */
  sessionsSchema: number;
}

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
  if (!exists(path)) return null;
  let db!: Db;
  let format: StoreFormat | null;
  try {
    db = new DatabaseSync(path, { readOnly: true });
    pragmas(db, BUSY_TIMEOUT_READ_MS);
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
    transaction(db, () => {
      db.exec(ARCHIVE_DDL);
      db.exec(OPERATIONAL_DDL);
      let sessionsSchema = SESSIONS_SCHEMA;
      if (!found) {
        const put = db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)");
        put.run("archive_format", String(ARCHIVE_FORMAT));
        put.run("derived_schema", String(DERIVED_SCHEMA));
      } else {
        sessionsSchema = found.sessionsSchema;
        if (found.derivedSchema !== DERIVED_SCHEMA) {
          if (found.derivedSchema < 4) addEntityAct(db);
          for (const t of DERIVED_TABLES) {
            if (found.derivedSchema < (DERIVED_SHAPE_SINCE[t] ?? DERIVED_SCHEMA)) {
              db.exec(`DROP TABLE IF EXISTS ${t}`);
            }
          }
          db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('derived_schema', ?)").run(
            String(DERIVED_SCHEMA),
          );
          // the pass that opened the store rebuilds them from the blocks before archiving; the
          // value is the schema it came from (what could not be carried across depends on it)
          db.prepare(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('derived_rebuild_pending', ?)",
          ).run(String(found.derivedSchema));
          derivedStale = true;
        }
      }
      db.exec(DERIVED_DDL);
      if (found && found.derivedSchema < 4) fillPathNames(db);
      db.exec(SESSIONS_DDL);
      if (sessionsSchema < SESSIONS_SCHEMA) {
        // a store made before these tables: the next pass reads the titles its sessions carry
        markTitlesFillPending(db);
      }
      db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('sessions_schema', ?)").run(
        String(SESSIONS_SCHEMA),
      );
    });
  } catch (e) {
    db.close();
    throw new StoreError(`${path} cannot be prepared: ${(e as Error).message}`);
  }
  return { db, derivedStale, created };
}

/**
 * Schema 4's step on an older store: how each entity was touched becomes a column (every old
 * row a mention until the rebuild), and the old index gives way to one in prompt recall's order.
 */
function addEntityAct(db: Db): void {
  const cols = db.prepare("SELECT name FROM pragma_table_info('entities')").all() as {
    name: string;
  }[];
  if (cols.length === 0) return; // no entities table yet: the DDL makes it whole
  if (!cols.some((c) => c.name === "act")) {
    db.exec("ALTER TABLE entities ADD COLUMN act INTEGER NOT NULL DEFAULT 1");
  }
  db.exec("DROP INDEX IF EXISTS entities_value");
}

/** The segments of every stored path, for a store that had entities before `path_names`. */
function fillPathNames(db: Db): void {
  const rows = db.prepare("SELECT DISTINCT value FROM entities WHERE kind = 'path'").all() as {
    value: string;
  }[];
  addPathNames(db, rows.map((r) => r.value));
}

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
