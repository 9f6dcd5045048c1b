/** The turns table read: one turn, a range of one session's turns, and uuids a session holds. */
import type { Db } from "./db.ts";
import { turnId } from "./ids.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";

export interface TurnRecord {
  id: number;
  sessionNo: number;
  turnSeq: number;
  sessionKey: string;
  sessionId: string | null;
  project: string | null;
  recordType: string;
  toolName: string | null;
  ts: string | null;
  streamOffset: number;
  byteLen: number;
  evicted: boolean;
  hasMeta: boolean;
  continuesFrom: string | null;
  sidechain: boolean;
  isToolResult: boolean;
  uuid: string | null;
}

const TURN_SQL = `SELECT t.id AS id, t.session_no AS sessionNo, t.turn_seq AS turnSeq,
  s.session_key AS sessionKey, m.session_id AS sessionId, m.project AS project,
  t.record_type AS recordType, t.tool_name AS toolName, t.ts AS ts, t.stream_offset AS streamOffset,
  t.byte_len AS byteLen, COALESCE(m.is_evicted, 0) AS evicted, m.session_no IS NOT NULL AS hasMeta,
  m.continues_from AS continuesFrom, t.is_sidechain AS sidechain, t.is_tool_result AS isToolResult,
  t.uuid AS uuid
  FROM turns t JOIN sessions s ON s.session_no = t.session_no
  LEFT JOIN session_meta m ON m.session_no = t.session_no`;

function toTurn(r: Record<string, unknown>): TurnRecord {
  return {
    id: r.id as number,
    sessionNo: r.sessionNo as number,
    turnSeq: r.turnSeq as number,
    sessionKey: r.sessionKey as string,
    sessionId: (r.sessionId as string | null) ?? null,
    project: (r.project as string | null) ?? null,
    recordType: r.recordType as string,
    toolName: (r.toolName as string | null) ?? null,
    ts: (r.ts as string | null) ?? null,
    streamOffset: r.streamOffset as number,
    byteLen: r.byteLen as number,
    evicted: r.evicted === 1,
    hasMeta: r.hasMeta === 1,
    continuesFrom: (r.continuesFrom as string | null) ?? null,
    sidechain: r.sidechain === 1,
    isToolResult: r.isToolResult === 1,
    uuid: (r.uuid as string | null) ?? null,
  };
}

/** One turn by id, regardless of visibility; the caller decides what it may see. */
export function turnById(db: Db, id: number): TurnRecord | null {
  const r = db.prepare(TURN_SQL + " WHERE t.id = ?").get(id) as Record<string, unknown> | undefined;
  return r ? toTurn(r) : null;
}

/** Whether a session passes the visibility rule. */
export function sessionVisible(db: Db, sessionNo: number, vis: Visibility): boolean {
  const w = visibleWhere(vis);
  return !!db.prepare(
    `SELECT 1 FROM sessions s LEFT JOIN session_meta m ON m.session_no = s.session_no
     WHERE s.session_no = ? AND ${w.sql}`,
  ).get(sessionNo, ...w.params);
}

/** Turns of one session with turn_seq in [from, to]. */
export function turnsInRange(db: Db, sessionNo: number, from: number, to: number): TurnRecord[] {
  return (db.prepare(TURN_SQL + " WHERE t.id BETWEEN ? AND ? ORDER BY t.id").all(
    turnId(sessionNo, Math.max(0, from)),
    turnId(sessionNo, Math.max(0, to)),
  ) as Record<string, unknown>[]).map(toTurn);
}

export function sessionTurnCount(db: Db, sessionNo: number): number {
  return (db.prepare("SELECT count(*) AS n FROM turns WHERE session_no = ?").get(sessionNo) as {
    n: number;
  }).n;
}

/** Which of these uuids a turn of these sessions carries (history a resumed file copied in). */
export function uuidsIn(db: Db, sessionNos: number[], uuids: string[]): Set<string> {
  if (!sessionNos.length || !uuids.length) return new Set();
  const rows = db.prepare(
    `SELECT DISTINCT uuid FROM turns WHERE uuid IN (${uuids.map(() => "?").join(",")})
       AND session_no IN (${sessionNos.map(() => "?").join(",")})`,
  ).all(...uuids, ...sessionNos) as { uuid: string }[];
  return new Set(rows.map((r) => r.uuid));
}
