/**
 * Reading turns back: the archived record behind an id (show, recall_get) and the window of
 * turns around it (show --before/--after, recall_context). The window never crosses a
 * session boundary; `continues_from` is handed back unfollowed.
 */
import type { Db } from "../store/db.ts";
import {
  sessionTurnCount,
  sessionVisible,
  turnById,
  type TurnRecord,
  turnsInRange,
} from "../store/turns.ts";
import { type Visibility } from "../store/visibility.ts";
import { cutExcerpt, turnBytes, turnText } from "./excerpt.ts";
import { isRedacting, redactLine } from "../egress.ts";

export interface RecordDoc {
  turn_id: number;
  session_key: string;
  turn_seq: number;
  record_type: string;
  tool_name: string | null;
  ts: string | null;
  project: string | null;
  body: string | null;
  body_evicted: boolean;
  context?: ContextDoc | null;
}

export interface ContextTurn {
  turn_id: number;
  turn_seq: number;
  record_type: string;
  tool_name: string | null;
  ts: string | null;
  text: string;
  is_anchor: boolean;
}

export interface ContextDoc {
  turns: ContextTurn[];
  at_session_start: boolean;
  at_session_end: boolean;
  continues_from: string | null;
  reason: string | null;
}

export interface Absent {
  turn_id: number;
  reason: string;
}

export interface Found {
  doc: RecordDoc;
  /** The record's archived bytes, for the human form (null when not read). */
  bytes: Uint8Array | null;
  turn: TurnRecord;
}

export const emptyContext = (reason: string | null): ContextDoc => ({
  turns: [],
  at_session_start: false,
  at_session_end: false,
  continues_from: null,
  reason,
});

export function absentReason(id: number): string {
  return `no turn ${id} is archived`;
}

/** Looks a turn up for a caller who may see `vis`; returns the reason when it may not. */
export function visibleTurn(db: Db, id: number, vis: Visibility): TurnRecord | string {
  const t = turnById(db, id);
  if (!t) return absentReason(id);
  if (!sessionVisible(db, t.sessionNo, { project: null, exclude: vis.exclude })) {
    return absentReason(id); // an excluded project's turn is not admitted to exist
  }
  if (!sessionVisible(db, t.sessionNo, vis)) {
    return `turn ${id} is not in ${vis.project}; pass its project or '*'`;
  }
  return t;
}

/** The project a turn is filed under, when the turn exists and its project is not excluded. */
export function projectOfTurn(db: Db, id: number, exclude: string[]): string | null {
  const t = turnById(db, id);
  if (!t || !sessionVisible(db, t.sessionNo, { project: null, exclude })) return null;
  return t.project;
}

const decoder = new TextDecoder("utf-8", { fatal: false });

export function readRecord(db: Db, t: TurnRecord, filter: (s: string) => string): Found {
  const bytes = t.evicted ? null : turnBytes(db, t.sessionNo, t.streamOffset, t.byteLen);
  return {
    turn: t,
    bytes,
    doc: {
      turn_id: t.id,
      session_key: t.sessionKey,
      turn_seq: t.turnSeq,
      record_type: t.recordType,
      tool_name: t.toolName,
      ts: t.ts,
      project: t.hasMeta ? t.project : null,
      // filtered string by string, so the body stays JSON with every key it had
      body: bytes ? (isRedacting(filter) ? redactLine : filter)(decoder.decode(bytes)) : null,
      body_evicted: t.evicted,
    },
  };
}

export function contextWindow(
  db: Db,
  t: TurnRecord,
  before: number,
  after: number,
  filter: (s: string) => string,
): ContextDoc {
  const last = sessionTurnCount(db, t.sessionNo) - 1;
  const from = Math.max(0, t.turnSeq - before);
  const to = Math.min(last, t.turnSeq + after);
  const turns = turnsInRange(db, t.sessionNo, from, to).map((x) => {
    let text = "";
    if (!x.evicted) {
      const b = turnBytes(db, x.sessionNo, x.streamOffset, x.byteLen);
      if (b) text = cutExcerpt(filter(turnText(b, isRedacting(filter))), []);
    }
    return {
      turn_id: x.id,
      turn_seq: x.turnSeq,
      record_type: x.recordType,
      tool_name: x.toolName,
      ts: x.ts,
      text,
      is_anchor: x.id === t.id,
    };
  });
  return {
    turns,
    at_session_start: from === 0,
    at_session_end: to >= last,
    continues_from: t.hasMeta ? t.continuesFrom : null,
    reason: null,
  };
}
