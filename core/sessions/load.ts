/**
 * One session, read whole for a person: its listing facts, its records (through the egress
 * filter when redaction applies) and its subagent sessions.
 */
import type { Db } from "../store/db.ts";
import { readWholeStream } from "../store/archive.ts";
import { listSessions } from "../store/session_listing.ts";
import { type Visibility } from "../store/visibility.ts";
import { egress, redactLine } from "../egress.ts";
import { type Rec } from "../transcript/records.ts";
import { type SessionView, viewOf } from "./list.ts";
import type { SubagentLink } from "./messages.ts";
import type { SessionRow } from "../store/session_listing.ts";
import { turnIdsByUuid } from "../store/sessions_sql.ts";

export interface LoadedSession {
  view: SessionView;
  /** Parsed records in file order; empty for an evicted session. */
  records: Rec[];
  subagents: SubagentLink[];
  /** Turn ids by record uuid. */
  turnIds: Map<string, number>;
}

const decoder = new TextDecoder("utf-8", { fatal: false });

/** Splits a stream into its records; lines that are not JSON objects are passed over. */
export function parseStream(stream: Uint8Array, redacting: boolean): Rec[] {
  const out: Rec[] = [];
  for (const line of decoder.decode(stream).split("\n")) {
    if (line.trim() === "") continue;
    try {
      const v = JSON.parse(redacting ? redactLine(line) : line);
      if (v && typeof v === "object" && !Array.isArray(v)) out.push(v as Rec);
    } catch {
      // a torn or foreign line: not part of the conversation
    }
  }
  return out;
}

export function loadSession(
  db: Db,
  row: SessionRow,
  vis: Visibility,
  redacting: boolean,
): LoadedSession {
  const filter = egress(redacting);
  const view = viewOf(row, filter);
  const records = row.evicted ? [] : parseStream(readWholeStream(db, row.session_no), redacting);
  const subagents = listSessions(db, vis, { parentKey: row.session_key })
    .map((r) => viewOf(r, filter))
    .sort((a, b) =>
      (a.first_turn_at ?? "\uffff").localeCompare(b.first_turn_at ?? "\uffff") ||
      a.session_no - b.session_no
    )
    .map((s) => ({
      session_no: s.session_no,
      session_key: s.session_key,
      title: s.title,
      first_turn_at: s.first_turn_at,
    }));
  return { view, records, subagents, turnIds: turnIdsByUuid(db, row.session_no) };
}

/** The raw archived transcript, byte for byte (jsonl export). */
export function rawStream(db: Db, row: SessionRow): Uint8Array {
  return readWholeStream(db, row.session_no);
}
