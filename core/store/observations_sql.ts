/** The observations table: one mechanical observation per closed session. */
import { cached, type Db } from "./db.ts";
import { FACTS_DDL } from "./schema.ts";

export interface ObserveTarget {
  sessionNo: number;
  sessionKey: string;
  branch: string | null;
  evicted: boolean;
  /** The archived stream's length, to tell whether an observation taken in the pass is current. */
  streamLen: number;
}

/**
 * The facts a pass took while it archived a session whole, kept until the session is
 * observed: valid while the session's stream is still `stream_len` long. They are kept in the
 * store, not the pass's memory, so a later pass (the backfill's worker runs ~40 at ~3 GB, each
 * observing its 100) reads no blocks back for them, whatever the archive holds. Created on a
 * pass's first use, so a store from an earlier build needs no migration.
 */
export function ensureFacts(db: Db): void {
  db.exec(FACTS_DDL);
}

export interface KeptFacts {
  streamLen: number;
  /** The facts as JSON, branch left out (the observe step adds the stored one). */
  mechanical: string;
}

/** Keeps (replaces) a session's facts; in the transaction that wrote its stream. */
export function keepFacts(db: Db, sessionNo: number, f: KeptFacts): void {
  cached(
    db,
    "INSERT OR REPLACE INTO observation_facts (session_no, stream_len, mechanical) VALUES (?, ?, ?)",
  ).run(sessionNo, f.streamLen, f.mechanical);
}

export function factsOf(db: Db, sessionNo: number): KeptFacts | null {
  const r = cached(
    db,
    "SELECT stream_len AS streamLen, mechanical FROM observation_facts WHERE session_no = ?",
  ).get(sessionNo) as KeptFacts | undefined;
  return r ?? null;
}

/** A session's kept facts go (observed, evicted or deleted); a store without the table has none. */
export function dropFacts(db: Db, sessionNo: number): void {
  const has = db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'observation_facts'",
  ).get();
  if (has) db.prepare("DELETE FROM observation_facts WHERE session_no = ?").run(sessionNo);
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
  // observed in a pass, which made the table (ensureFacts): no look for it
  cached(db, "DELETE FROM observation_facts WHERE session_no = ?").run(sessionNo);
}

/** Rewrites only the mechanical column (regenerate). */
export function rewriteMechanical(db: Db, sessionNo: number, mechanical: string): void {
  db.prepare("UPDATE observations SET mechanical = ? WHERE session_no = ?").run(
    mechanical,
    sessionNo,
  );
}
