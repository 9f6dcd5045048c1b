/**
 * The runs table: one row per archive pass. A row is written when the pass starts, marked in
 * flight (a negative duration, which no finished pass can have), and completed when it ends;
 * a row still in flight when the next pass takes the lock belongs to a process that died.
 */
import type { Db } from "./db.ts";
import { IN_FLIGHT } from "./schema.ts";

export { IN_FLIGHT };

/** duration_ms of a run row whose pass has not finished. */

export const IN_FLIGHT_NOTE =
  "this pass has not finished: it is still running, or its process died (the next pass records which)";

export const DIED_MESSAGE = "this pass did not finish: its process died or was killed";

export interface RunRow {
  startedAt: string;
  durationMs: number;
  filesSeen: number;
  filesCommitted: number;
  filesFailed: number;
  bytesRead: number;
  turnsAdded: number;
  error: string | null;
  notes: string | null;
  /** The pass has not recorded its result: it is running, or its process died. */
  inFlight?: boolean;
}

/**
 * Starts a run row, in flight. The caller holds the ingest lock, so any other row still in
 * flight was left by a pass whose process died: each is marked so, and their start times are
 * returned for this pass to report.
 */
export function beginRun(db: Db, startedAt: string): { id: number; died: string[] } {
  // the value is written into the statement so the partial index runs_in_flight answers it
  const died = (db.prepare(
    `SELECT started_at AS at FROM runs WHERE duration_ms = ${IN_FLIGHT} ORDER BY id`,
  ).all() as { at: string }[]).map((r) => r.at);
  if (died.length > 0) {
    db.prepare(`UPDATE runs SET duration_ms = 0, error = ? WHERE duration_ms = ${IN_FLIGHT}`).run(
      DIED_MESSAGE,
    );
  }
  db.prepare("INSERT INTO runs (started_at, duration_ms) VALUES (?, ?)").run(startedAt, IN_FLIGHT);
  const id = (db.prepare("SELECT last_insert_rowid() AS id").get() as { id: number }).id;
  return { id, died };
}

/**
 * The real cause of a pass that stopped, over the "died" mark beginRun gave its row (this
 * pass's or an earlier one's). False when no such row was marked: it never recorded its run.
 */
export function recordStopCause(db: Db, startedAt: string, cause: string): boolean {
  const r = db.prepare("UPDATE runs SET error = ? WHERE started_at = ? AND error = ?").run(
    cause,
    startedAt,
    DIED_MESSAGE,
  );
  return Number(r.changes) > 0;
}

export function finishRun(db: Db, id: number, r: RunRow): void {
  db.prepare(
    `UPDATE runs SET duration_ms = :durationMs, files_seen = :filesSeen,
       files_committed = :filesCommitted, files_failed = :filesFailed, bytes_read = :bytesRead,
       turns_added = :turnsAdded, error = :error, notes = :notes WHERE id = :id`,
  ).run({
    durationMs: Math.max(0, r.durationMs),
    filesSeen: r.filesSeen,
    filesCommitted: r.filesCommitted,
    filesFailed: r.filesFailed,
    bytesRead: r.bytesRead,
    turnsAdded: r.turnsAdded,
    error: r.error,
    notes: r.notes,
    id,
  });
}

/**
 * A pass in flight records how far it has got, so `status` can show it: the files it will
 * walk, those done and failed, the bytes and turns so far. One small UPDATE of one row.
 */
export function progressRun(db: Db, id: number, r: RunRow): void {
  db.prepare(
    `UPDATE runs SET files_seen = ?, files_committed = ?, files_failed = ?, bytes_read = ?,
       turns_added = ? WHERE id = ? AND duration_ms = ?`,
  ).run(r.filesSeen, r.filesCommitted, r.filesFailed, r.bytesRead, r.turnsAdded, id, IN_FLIGHT);
}

export function lastRun(db: Db): RunRow | null {
  const r = db.prepare(
    `SELECT started_at AS startedAt, duration_ms AS durationMs, files_seen AS filesSeen,
       files_committed AS filesCommitted, files_failed AS filesFailed, bytes_read AS bytesRead,
       turns_added AS turnsAdded, error, notes FROM runs ORDER BY id DESC LIMIT 1`,
  ).get() as RunRow | undefined;
  if (!r) return null;
  return { ...r, inFlight: r.durationMs === IN_FLIGHT };
}

/**
 * The archive rate the newest pass that read at least `minBytes` achieved, in bytes per
 * second (its whole duration, tail work included, so the figure errs slow), or null.
 */
export function measuredRate(db: Db, minBytes: number): number | null {
  const r = db.prepare(
    `SELECT bytes_read AS bytes, duration_ms AS ms FROM runs
     WHERE bytes_read >= ? AND duration_ms > 0 AND error IS NULL ORDER BY id DESC LIMIT 1`,
  ).get(minBytes) as { bytes: number; ms: number } | undefined;
  return r ? r.bytes / (r.ms / 1000) : null;
}
