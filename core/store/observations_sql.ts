/** The observations table: one mechanical observation per closed session. */
import type { Db } from "./db.ts";

export interface ObserveTarget {
  sessionNo: number;
  sessionKey: string;
  branch: string | null;
  evicted: boolean;
  /** The archived stream's length, to tell whether an observation taken in the pass is current. */
  streamLen: number;
}

/** Closed sessions with no observation yet, oldest first. */
export function unobservedClosed(db: Db): ObserveTarget[] {
  return (db.prepare(
    `SELECT s.session_no AS sessionNo, s.session_key AS sessionKey, m.branch AS branch,
       m.is_evicted AS evicted, COALESCE(m.uncompressed_len, 0) AS streamLen
     FROM sessions s JOIN session_meta m USING (session_no)
     WHERE m.is_final = 1 AND m.observed = 0 ORDER BY s.session_no`,
  ).all() as {
    sessionNo: number;
    sessionKey: string;
    branch: string | null;
    evicted: number;
    streamLen: number;
  }[])
    .map((r) => ({ ...r, evicted: r.evicted === 1 }));
}

export function writeObservation(
  db: Db,
  sessionNo: number,
  generatedAt: string,
  mechanical: string,
): void {
  db.prepare(
    `INSERT INTO observations (session_no, generated_at, mechanical) VALUES (?, ?, ?)
     ON CONFLICT(session_no) DO UPDATE SET generated_at = excluded.generated_at, mechanical = excluded.mechanical`,
  ).run(sessionNo, generatedAt, mechanical);
  db.prepare("UPDATE session_meta SET observed = 1 WHERE session_no = ?").run(sessionNo);
}

/** Rewrites only the mechanical column (regenerate). */
export function rewriteMechanical(db: Db, sessionNo: number, mechanical: string): void {
  db.prepare("UPDATE observations SET mechanical = ? WHERE session_no = ?").run(
    mechanical,
    sessionNo,
  );
}
