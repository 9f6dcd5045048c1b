/**
 * The store's schema in one place: every table and index, which derived schema each derived
 * table's shape last changed in, and the ordered steps that bring an older store up to this
 * build. `openWrite` (db.ts) runs `upgradeSchema` in its opening transaction; the tables a pass
 * or an import makes on first use (history, tails, facts, tombstones, the pass's indexes) take
 * their DDL from here too.
 */
import type { DatabaseSync as Db } from "node:sqlite";
import { ARCHIVE_FORMAT, DERIVED_SCHEMA, SESSIONS_SCHEMA } from "../constants.ts";
import { addPathNames } from "./path_names.ts";
import { markTitlesFillPending } from "./sessions_sql.ts";

/** `runs.duration_ms` of a pass still running (or killed before it could finish). */
export const IN_FLIGHT = -1;

export interface StoreFormat {
  archiveFormat: number;
  derivedSchema: number;
  /** The names/tags/titles tables' version; 0 on a store made before them. */
  sessionsSchema: number;
}

/** Archive tables: never migrated, never rebuilt. */
export const ARCHIVE_DDL = `
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
export const OPERATIONAL_DDL = `
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
export const DERIVED_DDL = `
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

/** Session names, tags and titles (their own version, SESSIONS_SCHEMA). */
export const SESSIONS_DDL = `
CREATE TABLE IF NOT EXISTS session_names (
  session_no INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  named_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS session_tags (
  session_no INTEGER NOT NULL,
  tag TEXT NOT NULL,
  PRIMARY KEY (session_no, tag)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS session_tags_tag ON session_tags(tag);
CREATE TABLE IF NOT EXISTS session_titles (
  session_no INTEGER PRIMARY KEY,
  custom_title TEXT,
  ai_title TEXT,
  summary TEXT,
  first_prompt TEXT
);
`;

/** What `sessions delete` leaves behind; made in the deleting transaction. */
export const TOMBSTONES_DDL = `
CREATE TABLE IF NOT EXISTS session_tombstones (
  session_key TEXT PRIMARY KEY,
  session_id TEXT,
  transcript_path TEXT,
  head_len INTEGER,
  head_hash INTEGER,
  deleted_at TEXT NOT NULL
);
`;

/** Prompts imported from history.jsonl and their own index; made by the first import. */
export const HISTORY_DDL = `
CREATE TABLE IF NOT EXISTS history_prompts (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  cwd TEXT,
  project TEXT,
  session_id TEXT,
  display TEXT NOT NULL,
  pasted TEXT,
  UNIQUE (at, cwd, display)
);
CREATE INDEX IF NOT EXISTS history_prompts_project ON history_prompts(project);
CREATE VIRTUAL TABLE IF NOT EXISTS history_fts USING fts5(
  body, content='', contentless_delete=1, tokenize='unicode61'
);
`;

/** The pass's partial indexes; made on its first use. */
export const PASS_INDEXES_DDL = `
CREATE INDEX IF NOT EXISTS session_meta_open ON session_meta(last_turn_at) WHERE is_final = 0;
CREATE INDEX IF NOT EXISTS session_meta_unobserved ON session_meta(session_no)
  WHERE is_final = 1 AND observed = 0;
CREATE INDEX IF NOT EXISTS session_meta_session_id ON session_meta(session_id);
CREATE INDEX IF NOT EXISTS decisions_unlabelled_session ON decisions(session_id, id)
  WHERE labelled = 0;
DROP INDEX IF EXISTS decisions_unlabelled;
CREATE INDEX IF NOT EXISTS runs_in_flight ON runs(id) WHERE duration_ms = ${IN_FLIGHT};
CREATE INDEX IF NOT EXISTS blocks_bytes ON blocks(session_no, length(bytes));
CREATE INDEX IF NOT EXISTS session_meta_project_recency
  ON session_meta(project, last_turn_at, session_no, turn_count);
CREATE INDEX IF NOT EXISTS session_meta_pre_worktree ON session_meta(project_pre_worktree, project)
  WHERE project_pre_worktree IS NOT NULL;
CREATE INDEX IF NOT EXISTS session_meta_seen
  ON session_meta(session_no, is_evicted, transcript_diverged, uncompressed_len);
CREATE INDEX IF NOT EXISTS watermarks_seen ON watermarks(session_no, offset, stream_len);
CREATE INDEX IF NOT EXISTS session_meta_turns ON session_meta(turn_count);
CREATE INDEX IF NOT EXISTS session_titles_titles ON session_titles(custom_title, ai_title, summary);
`;

/** What the pass last saw of each transcript file; made on its first use. */
export const TAILS_DDL = `CREATE TABLE IF NOT EXISTS file_tails (
    session_no INTEGER PRIMARY KEY,
    offset INTEGER NOT NULL,
    len INTEGER NOT NULL,
    hash INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms REAL
  )`;

/** A closed transcript's last line judged to be no record, and where; made on the pass's first use. */
export const HELD_LINES_DDL = `CREATE TABLE IF NOT EXISTS held_lines (
    session_key TEXT PRIMARY KEY,
    offset INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ms REAL
  )`;

/** Folder listings a pass keeps for the next (core/transcript/listing.ts); made on first use. */
export const LISTINGS_DDL = `CREATE TABLE IF NOT EXISTS folder_listings (
    path TEXT PRIMARY KEY,
    dev INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    ctime_ms REAL NOT NULL,
    entries TEXT NOT NULL
  )`;

/** Facts kept until a session is observed; made on the pass's first use. */
export const FACTS_DDL = `CREATE TABLE IF NOT EXISTS observation_facts (
    session_no INTEGER PRIMARY KEY,
    stream_len INTEGER NOT NULL,
    mechanical TEXT NOT NULL
  )`;

/**
 * Brings a store this build can write up to its schema, in the opening transaction: makes every
 * table that is missing, and on a derived schema older than DERIVED_SCHEMA drops each derived
 * table whose shape changed since (DERIVED_SHAPE_SINCE) and marks the rebuild pending. `found`
 * is the format the store had (null: a new store). True when derived tables must be rebuilt.
 */
export function upgradeSchema(db: Db, found: StoreFormat | null): boolean {
  let derivedStale = false;
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
  return derivedStale;
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
