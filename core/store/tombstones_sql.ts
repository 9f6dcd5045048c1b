/**
 * Tombstones: what `terminus sessions delete` leaves behind so a pass never archives the
 * deleted session again while Claude Code's transcript is still on disk. A tombstone names the
 * session key and the transcript's identity (a hash of its first bytes); a file at that key
 * whose first bytes still hash the same is skipped. Not derived: reindex never touches it.
 */
import type { Db } from "./db.ts";
import { TOMBSTONES_DDL } from "./schema.ts";

export interface Tombstone {
  sessionKey: string;
  sessionId: string | null;
  transcriptPath: string | null;
  /** How many leading bytes of the transcript `headHash` covers; null when it was gone. */
  headLen: number | null;
  headHash: number | null;
  deletedAt: string;
}

function hasTable(db: Db): boolean {
  return !!db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_tombstones'",
  ).get();
}

/** Written in the deleting transaction (the table is made here on a store or snapshot without it). */
export function putTombstone(db: Db, t: Tombstone): void {
  db.exec(TOMBSTONES_DDL);
  db.prepare(
    `INSERT OR REPLACE INTO session_tombstones
       (session_key, session_id, transcript_path, head_len, head_hash, deleted_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(t.sessionKey, t.sessionId, t.transcriptPath, t.headLen, t.headHash, t.deletedAt);
}

function rowOf(r: Record<string, unknown>): Tombstone {
  return {
    sessionKey: r.session_key as string,
    sessionId: (r.session_id as string | null) ?? null,
    transcriptPath: (r.transcript_path as string | null) ?? null,
    headLen: (r.head_len as number | null) ?? null,
    headHash: (r.head_hash as number | null) ?? null,
    deletedAt: r.deleted_at as string,
  };
}

/** Every tombstone by session key (empty on a store made before them). */
export function allTombstones(db: Db): Map<string, Tombstone> {
  if (!hasTable(db)) return new Map();
  const rows = db.prepare("SELECT * FROM session_tombstones").all() as Record<string, unknown>[];
  return new Map(rows.map((r) => [r.session_key as string, rowOf(r)]));
}

/** Tombstones of a session id: the parent's own and its sidecars' (keys `<id>/subagents/...`). */
export function tombstonesOf(db: Db, sessionId: string): Tombstone[] {
  if (!hasTable(db)) return [];
  return (db.prepare(
    `SELECT * FROM session_tombstones WHERE session_id = ? OR session_key = ?
       OR substr(session_key, 1, ?) = ? ORDER BY session_key`,
  ).all(sessionId, `${sessionId}.jsonl`, sessionId.length + 1, `${sessionId}/`) as Record<
    string,
    unknown
  >[]).map(rowOf);
}
