/**
 * Retention's SQL: the closed sessions it weighs, and the two verbs. evict drops a session's
 * blocks and keeps everything else; delete removes the session and all that hangs off it.
 */
import type { Db } from "./db.ts";
import { clearQuotes, deleteDerived } from "./archive.ts";
import { deleteSessionHandles } from "./sessions_sql.ts";
import { dropFacts } from "./observations_sql.ts";

export interface ClosedSession {
  sessionNo: number;
  sessionKey: string;
  sessionId: string | null;
  project: string | null;
  lastTurnAt: string;
  transcriptPath: string | null;
  evicted: boolean;
  sidecar: boolean;
}

/** Closed sessions with a last turn, oldest first (ties in ingest order). */
export function closedSessions(db: Db): ClosedSession[] {
  return (db.prepare(
    `SELECT s.session_no AS sessionNo, s.session_key AS sessionKey, m.session_id AS sessionId,
       m.project AS project, m.last_turn_at AS lastTurnAt, m.transcript_path AS transcriptPath,
       m.is_evicted AS evicted, m.parent_session_key IS NOT NULL AS sidecar
     FROM sessions s JOIN session_meta m ON m.session_no = s.session_no
     WHERE m.is_final = 1 AND m.last_turn_at IS NOT NULL
     ORDER BY m.last_turn_at, s.session_no`,
  ).all() as Record<string, unknown>[]).map((r) => ({
    sessionNo: r.sessionNo as number,
    sessionKey: r.sessionKey as string,
    sessionId: (r.sessionId as string | null) ?? null,
    project: (r.project as string | null) ?? null,
    lastTurnAt: r.lastTurnAt as string,
    transcriptPath: (r.transcriptPath as string | null) ?? null,
    evicted: r.evicted === 1,
    sidecar: r.sidecar === 1,
  }));
}

/**
 * Eviction: the archived text goes (blocks, and the quotes kept for the hooks); the session's
 * row, metadata, watermark, derived rows and observation stay. The caller holds a transaction.
 */
export function evictSession(db: Db, sessionNo: number): void {
  db.prepare("DELETE FROM blocks WHERE session_no = ?").run(sessionNo);
  clearQuotes(db, sessionNo);
  db.prepare("UPDATE session_meta SET is_evicted = 1 WHERE session_no = ?").run(sessionNo);
  dropFacts(db, sessionNo);
}

/**
 * Deletion: the session, its blocks, metadata, watermark, derived rows, observation, names,
 * tags and titles, and,
 * for a top-level session, the prompts and labels the injection log holds under its session
 * id. A subagent reports its parent's id, so deleting one removes no prompts. Returns how many
 * logged prompts went. The caller holds a transaction.
 */
export function deleteSession(db: Db, sessionNo: number): number {
  const m = db.prepare(
    "SELECT session_id AS sid, parent_session_key IS NOT NULL AS sidecar FROM session_meta WHERE session_no = ?",
  ).get(sessionNo) as { sid: string | null; sidecar: number } | undefined;
  deleteDerived(db, sessionNo);
  deleteSessionHandles(db, sessionNo);
  db.prepare("DELETE FROM blocks WHERE session_no = ?").run(sessionNo);
  db.prepare("DELETE FROM observations WHERE session_no = ?").run(sessionNo);
  // a later session may be given this number: it must not inherit these facts
  dropFacts(db, sessionNo);
  db.prepare("DELETE FROM watermarks WHERE session_no = ?").run(sessionNo);
  db.prepare("DELETE FROM session_meta WHERE session_no = ?").run(sessionNo);
  db.prepare("DELETE FROM sessions WHERE session_no = ?").run(sessionNo);
  if (!m || m.sidecar === 1 || m.sid === null) return 0;
  // the same id can name another top-level transcript still archived (a second root): its
  // prompts are that session's too, so they stay until it goes
  const shared = db.prepare(
    "SELECT 1 FROM session_meta WHERE session_id = ? AND parent_session_key IS NULL LIMIT 1",
  ).get(m.sid);
  if (shared) return 0;
  db.prepare(
    "DELETE FROM labels WHERE decision_id IN (SELECT id FROM decisions WHERE session_id = ?)",
  ).run(m.sid);
  return Number(db.prepare("DELETE FROM decisions WHERE session_id = ?").run(m.sid).changes);
}
