/** Export's SQL: the visible sessions with what the manifest says of each, and their blocks. */
import { type Db, readTransaction } from "./db.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";
import { decompress } from "./codec.ts";

export interface ExportSession {
  sessionNo: number;
  sessionKey: string;
  sessionId: string | null;
  project: string | null;
  turns: number;
  evicted: boolean;
  firstTurnAt: string | null;
  lastTurnAt: string | null;
  /** The archived stream's length (for progress). */
  bytes: number;
}

/** Every session the visibility rule lets a read see, in ingest order. */
export function exportSessions(db: Db, vis: Visibility): ExportSession[] {
  const w = visibleWhere(vis);
  return (db.prepare(
    `SELECT s.session_no AS sessionNo, s.session_key AS sessionKey, m.session_id AS sessionId,
       m.project AS project, (SELECT count(*) FROM turns t WHERE t.session_no = s.session_no) AS turns,
       COALESCE(m.is_evicted, 0) AS evicted, m.first_turn_at AS firstTurnAt,
       m.last_turn_at AS lastTurnAt, COALESCE(m.uncompressed_len, 0) AS bytes
     FROM sessions s LEFT JOIN session_meta m ON m.session_no = s.session_no
     WHERE ${w.sql} ORDER BY s.session_no`,
  ).all(...w.params) as Record<string, unknown>[]).map((r) => ({
    sessionNo: r.sessionNo as number,
    sessionKey: r.sessionKey as string,
    sessionId: (r.sessionId as string | null) ?? null,
    project: (r.project as string | null) ?? null,
    turns: r.turns as number,
    evicted: r.evicted === 1,
    firstTurnAt: (r.firstTurnAt as string | null) ?? null,
    lastTurnAt: (r.lastTurnAt as string | null) ?? null,
    bytes: r.bytes as number,
  }));
}

/** A session's stream block by block, uncompressed, so a large session is never held whole. */
export function* streamBlocks(db: Db, sessionNo: number): Generator<Uint8Array> {
  const rows = db.prepare("SELECT bytes FROM blocks WHERE session_no = ? ORDER BY block_no")
    .iterate(sessionNo) as Iterable<{ bytes: Uint8Array }>;
  for (const r of rows) yield decompress(r.bytes);
}

/** Runs `fn` inside one read transaction, so everything it reads is one state of the store. */
export const inReadTransaction = readTransaction;
