/**
 * The bench's reads of a finished store (its recall replay, quality and scale sections), kept
 * here so the bench holds no SQL against the store and reads it only as core does.
 */
import { cached, type Db } from "./db.ts";

/** A typed prompt with its session's id, project and working folder. */
export interface TypedPromptRow {
  id: number;
  ts: string;
  text: string;
  sessionId: string | null;
  project: string | null;
  cwd: string | null;
}

/** Typed prompts of non-subagent sessions that carry a time, in time order (ties by id). */
export function typedPromptRows(db: Db): TypedPromptRow[] {
  return db.prepare(
    `SELECT t.id AS id, t.ts AS ts, q.text AS text, m.session_id AS sessionId,
       m.project AS project, m.cwd AS cwd
     FROM turns t JOIN turn_text q ON q.turn_id = t.id
       JOIN session_meta m ON m.session_no = t.session_no
     WHERE t.is_typed = 1 AND t.is_sidechain = 0 AND m.parent_session_key IS NULL
       AND t.ts IS NOT NULL
     ORDER BY t.ts, t.id`,
  ).all() as unknown as TypedPromptRow[];
}

/**
 * The project with the most sessions of any kind (subagents count) and one of its working
 * folders; ties fall as SQLite groups them. Not inspect.ts's `busiestProject`, which counts main
 * sessions only: the recall replay's prompt sets were drawn from this one.
 */
export function mostSessionsProject(db: Db): { project: string; cwd: string | null } | null {
  return (db.prepare(
    `SELECT project, cwd FROM session_meta WHERE project IS NOT NULL
     GROUP BY project ORDER BY count(*) DESC LIMIT 1`,
  ).get() as { project: string; cwd: string | null } | undefined) ?? null;
}

/** The project whose sessions hold the most turns, and one of its working folders. */
export function mostTurnsProject(db: Db): { project: string; cwd: string | null } | null {
  return (db.prepare(
    `SELECT project, cwd FROM session_meta WHERE project IS NOT NULL
     GROUP BY project ORDER BY sum(turn_count) DESC LIMIT 1`,
  ).get() as { project: string; cwd: string | null } | undefined) ?? null;
}

/** The paths below `project` that look like files (a dot after a slash), most mentioned first. */
export function commonFilePathsBelow(db: Db, project: string, limit: number): string[] {
  return (db.prepare(
    `SELECT value FROM entities WHERE kind = 'path' AND value LIKE ? AND value LIKE '%/%.%'
     GROUP BY value ORDER BY count(*) DESC LIMIT ?`,
  ).all(project + "/%", limit) as { value: string }[]).map((r) => r.value);
}

/** The identifiers the store mentions most, over every project. */
export function commonSymbols(db: Db, limit: number): string[] {
  return (db.prepare(
    `SELECT value FROM entities WHERE kind = 'symbol' GROUP BY value ORDER BY count(*) DESC
     LIMIT ?`,
  ).all(limit) as { value: string }[]).map((r) => r.value);
}

/**
 * Whether any stored path or identifier is `v` or holds it. The pattern's `\` before `%` and `_`
 * is not an escape (no ESCAPE clause), as the never-archived set was first drawn with; kept so
 * the set stays the same.
 */
export function entityMentioned(db: Db, v: string): boolean {
  return db.prepare("SELECT 1 FROM entities WHERE value = ? OR value LIKE ? LIMIT 1").get(
    v,
    "%" + v.replace(/[\\%_]/g, (c) => "\\" + c) + "%",
  ) !== undefined;
}

/**
 * The paths or identifiers (`kind`) that `project`'s prompts and replies (never tool results)
 * mention most, at most `limit`.
 */
export function commonNamesOfProject(
  db: Db,
  kind: string,
  project: string,
  limit: number,
): string[] {
  return (db.prepare(
    `SELECT e.value AS value FROM entities e JOIN turns t ON t.id = e.turn_id
       JOIN session_meta m ON m.session_no = t.session_no
     WHERE e.kind = ? AND m.project = ? AND t.is_tool_result = 0
     GROUP BY e.value ORDER BY count(*) DESC LIMIT ?`,
  ).all(kind, project, limit) as { value: string }[]).map((r) => r.value);
}

/** The first main session a Claude Code session id files under, with its project. */
export function mainSessionOf(
  db: Db,
  sessionId: string,
): { project: string; sessionNo: number; firstTs: string | null } | null {
  return (cached(
    db,
    `SELECT project, session_no AS sessionNo, first_turn_at AS firstTs FROM session_meta
     WHERE session_id = ? AND parent_session_key IS NULL AND project IS NOT NULL
     ORDER BY session_no LIMIT 1`,
  ).get(sessionId) as
    | { project: string; sessionNo: number; firstTs: string | null }
    | undefined) ?? null;
}

/** Every main session's project and first turn time, by project and then time. */
export function mainSessionStarts(db: Db): { project: string; ts: string }[] {
  return db.prepare(
    `SELECT project, first_turn_at AS ts FROM session_meta
     WHERE parent_session_key IS NULL AND first_turn_at IS NOT NULL AND project IS NOT NULL
     ORDER BY project, first_turn_at`,
  ).all() as { project: string; ts: string }[];
}

/** Of the turns `ids`, how many are tool results or records other than a prompt or a reply. */
export function unquotableCount(db: Db, ids: number[]): number {
  if (!ids.length) return 0;
  return (db.prepare(
    `SELECT count(*) AS n FROM turns WHERE id IN (${ids.map(() => "?").join(",")})
       AND (is_tool_result = 1 OR record_type NOT IN ('user', 'assistant'))`,
  ).get(...ids) as { n: number }).n;
}

/** A turn's entities with how it touched each (`act`: 0 read or wrote it, 2 a git listing). */
export function entityActs(db: Db, turnId: number): { kind: string; value: string; act: number }[] {
  return cached(db, "SELECT e.kind, e.value, e.act FROM entities e WHERE e.turn_id = ?").all(
    turnId,
  ) as { kind: string; value: string; act: number }[];
}

/** A turn's searchable text ("" when it has none). */
export function turnTextOf(db: Db, turnId: number): string {
  return (cached(db, "SELECT text FROM turn_text WHERE turn_id = ?").get(turnId) as
    | { text: string }
    | undefined)?.text ?? "";
}

/** Every turn's record uuid by its id. */
export function turnUuids(db: Db): Map<number, string> {
  return new Map(
    (db.prepare("SELECT id, uuid FROM turns").all() as { id: number; uuid: string }[]).map((
      r,
    ) => [r.id, r.uuid]),
  );
}

/** The session key of a turn ("" when there is no such turn). */
export function sessionKeyOfTurn(db: Db, turnId: number): string {
  return (cached(
    db,
    "SELECT s.session_key AS k FROM turns t JOIN sessions s ON s.session_no = t.session_no WHERE t.id = ?",
  ).get(turnId) as { k: string } | undefined)?.k ?? "";
}

/**
 * Plain BM25 over the whole search index: the ids of the `limit` best rows matching an FTS5
 * expression, every match scored, no cap and none of the product's ranking.
 */
export function plainFtsTop(db: Db, match: string, limit: number): number[] {
  return (cached(
    db,
    "SELECT rowid AS id FROM turns_fts WHERE turns_fts MATCH ? ORDER BY rank LIMIT ?",
  ).all(match, limit) as { id: number }[]).map((r) => r.id);
}

/** The search index's bytes on disk: every `turns_fts*` table and index (SQLite's dbstat). */
export function ftsIndexBytes(db: Db): number {
  return (db.prepare(
    "SELECT sum(pgsize) AS n FROM dbstat WHERE name LIKE 'turns_fts%'",
  ).get() as { n: number }).n;
}
