/**
 * The reads the hooks make. Kept apart from the block codec so a hook run never loads zstd:
 * quotes come from `turn_text`, written at ingest for the turns a hook may quote.
 */
import { cached, type Db } from "./db.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";
import { turnId } from "./ids.ts";

export interface BriefSession {
  sessionNo: number;
  sessionKey: string;
  sessionId: string | null;
  branch: string | null;
  lastTurnAt: string | null;
}

/**
 * The project's newest session that is not a subagent's and holds a turn: newest by its last
 * turn, then by number; one with no time only when none has one. Each read walks
 * `session_meta_project_recency` from the newest end and stops at the first that qualifies, so
 * it costs the same whatever the project holds (a busy project has thousands of sessions).
 */
export function newestSession(db: Db, vis: Visibility): BriefSession | null {
  const w = visibleWhere(vis);
  const read = (when: string, order: string) =>
    db.prepare(
      `SELECT s.session_no AS sessionNo, s.session_key AS sessionKey, m.session_id AS sessionId,
         m.branch AS branch, m.last_turn_at AS lastTurnAt
       FROM session_meta m JOIN sessions s ON s.session_no = m.session_no
       WHERE ${w.sql} AND m.parent_session_key IS NULL AND m.turn_count > 0 AND ${when}
       ORDER BY ${order} LIMIT 1`,
    ).get(...w.params) as BriefSession | undefined;
  const r = read("m.last_turn_at IS NOT NULL", "m.last_turn_at DESC, m.session_no DESC") ??
    read("m.last_turn_at IS NULL", "m.session_no DESC");
  return r ?? null;
}

export interface Quote {
  id: number;
  text: string;
}

/** The last turn a person typed in a session, with its text. */
export function lastTypedQuote(db: Db, sessionNo: number): Quote | null {
  const r = db.prepare(
    `SELECT t.id AS id, q.text AS text FROM turns t JOIN turn_text q ON q.turn_id = t.id
     WHERE t.session_no = ? AND t.is_typed = 1 ORDER BY t.id DESC LIMIT 1`,
  ).get(sessionNo) as Quote | undefined;
  return r ?? null;
}

/**
 * The last assistant turn that wrote an answer in words; failing that (a session whose
 * assistant only called tools), the last assistant turn with any quote, its tool call.
 */
export function lastReplyQuote(db: Db, sessionNo: number): Quote | null {
  const range = [turnId(sessionNo, 0), turnId(sessionNo + 1, 0)];
  const r = db.prepare(
    `SELECT q.turn_id AS id, q.text AS text FROM turn_text q
     WHERE q.turn_id >= ? AND q.turn_id < ? AND q.is_reply = 1 ORDER BY q.turn_id DESC LIMIT 1`,
  ).get(...range) as Quote | undefined;
  if (r) return r;
  const call = db.prepare(
    `SELECT q.turn_id AS id, q.text AS text FROM turn_text q JOIN turns t ON t.id = q.turn_id
     WHERE q.turn_id >= ? AND q.turn_id < ? AND t.record_type = 'assistant'
     ORDER BY q.turn_id DESC LIMIT 1`,
  ).get(...range) as Quote | undefined;
  return call ?? null;
}

export function projectTotals(db: Db, vis: Visibility): { sessions: number; turns: number } {
  const w = visibleWhere(vis);
  // session_meta alone (a session's row and its meta row are deleted together), so
  // session_meta_project_recency answers it without reading a table row
  const r = db.prepare(
    `SELECT count(*) AS sessions, COALESCE(sum(m.turn_count), 0) AS turns
     FROM session_meta m WHERE ${w.sql}`,
  ).get(...w.params) as { sessions: number; turns: number };
  return r;
}

/**
 * The quotes of `ids`. With `chars`, each text's head only; with `under`, only the texts shorter
 * than that many characters: for a record no longer than QUOTE_FOLD_CHARS bytes and `under`
 * INJECTION_CHARS_CAP, the turn's whole folded text (a longer one was cut at the cap).
 */
export function quotesFor(
  db: Db,
  ids: number[],
  chars?: number,
  under?: number,
): Map<number, string> {
  const out = new Map<number, string>();
  if (!ids.length) return out;
  // with `chars`, only each text's head is copied out of SQLite; one statement whatever the
  // count (the ids as JSON), compiled once per handle
  const col = chars === undefined ? "text" : `substr(text, 1, ${Math.floor(chars)}) AS text`;
  const short = under === undefined ? "" : ` AND length(text) < ${Math.floor(under)}`;
  const rows = cached(
    db,
    `SELECT turn_id AS id, ${col} FROM turn_text
     WHERE turn_id IN (SELECT value FROM json_each(?))${short}`,
  ).all(JSON.stringify(ids)) as unknown as Quote[];
  for (const r of rows) out.set(r.id, r.text);
  return out;
}

/** The archived sessions carrying a Claude Code session id (a session and its sidecars). */
export function sessionNosForId(db: Db, sessionId: string): number[] {
  return (db.prepare("SELECT session_no AS n FROM session_meta WHERE session_id = ?").all(
    sessionId,
  ) as { n: number }[]).map((r) => r.n);
}

export interface Boundary {
  turnId: number;
  sessionNo: number;
  preserved: string[] | null;
  /** When the compaction was recorded (its boundary turn's time). */
  ts: string | null;
}

/** Compaction boundaries recorded for these sessions, newest last. */
export function boundaries(db: Db, sessionNos: number[]): Boundary[] {
  if (!sessionNos.length) return [];
  const rows = db.prepare(
    `SELECT b.turn_id AS turnId, b.session_no AS sessionNo, b.preserved, t.ts
     FROM compaction_boundaries b LEFT JOIN turns t ON t.id = b.turn_id
     WHERE b.session_no IN (${sessionNos.map(() => "?").join(",")}) ORDER BY b.turn_id`,
  ).all(...sessionNos) as {
    turnId: number;
    sessionNo: number;
    preserved: string | null;
    ts: string | null;
  }[];
  return rows.map((r) => {
    let preserved: string[] | null = null;
    if (r.preserved) {
      try {
        const v = JSON.parse(r.preserved);
        if (Array.isArray(v)) preserved = v.filter((x) => typeof x === "string");
      } catch { /* an unreadable list counts as absent */ }
    }
    return { turnId: r.turnId, sessionNo: r.sessionNo, preserved, ts: r.ts ?? null };
  });
}

/** The turns a compaction dropped: before the boundary, and not among the preserved uuids. */
export function droppedTurnIds(db: Db, b: Boundary): Set<number> {
  const rows = db.prepare(
    "SELECT id, uuid FROM turns WHERE session_no = ? AND id < ? ORDER BY id",
  ).all(b.sessionNo, b.turnId) as { id: number; uuid: string | null }[];
  const keep = new Set(b.preserved ?? []);
  return new Set(rows.filter((r) => !r.uuid || !keep.has(r.uuid)).map((r) => r.id));
}

/** The highest turn id archived: the decision log's watermark for replay. */
export function maxTurnId(db: Db): number {
  return (db.prepare("SELECT COALESCE(max(id), 0) AS n FROM turns").get() as { n: number }).n;
}
