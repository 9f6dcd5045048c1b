/**
 * From the new complete lines of one transcript to what the archive stores for them: the
 * stream bytes (after the capture mode), the derived rows of each turn, and the session
 * facts the lines carry. Pure: no store, no file system.
 */
import type { CaptureMode } from "../config.ts";
import type { DerivedRows } from "../store/archive.ts";
import { isTurn, lineRecords, type Rec, str } from "../transcript/records.ts";
import { deriveTurn } from "../index/derive.ts";
import { captureLine } from "./capture.ts";
import type { TranscriptTitles } from "../transcript/titles.ts";
import { emptyTitles, noteTitle } from "../transcript/titles.ts";
import { concat } from "../bytes.ts";
import type { Observer } from "../observe/mechanical.ts";

const NL = 0x0a;
const NEWLINE = new Uint8Array([NL]);

export interface ChunkInput {
  /** Bytes read from the watermark; only `[0, end)` (complete lines) is used. */
  chunk: Uint8Array;
  end: number;
  mode: CaptureMode;
  /** Where the session's stream and turn numbering stand before these lines. */
  streamOffset: number;
  turnSeq: number;
  sidecar: boolean;
  /** The session id already known (the file name's, or the store's). */
  sessionId: string | null;
  /** The cwd already stored, if any. */
  cwd: string | null;
  /**
   * `[0, end)` ends in a record without its newline: a closed session's last line. It is
   * archived as the file has it, with no newline added.
   */
  unterminated?: boolean;
}

export interface ChunkOutput {
  stream: Uint8Array;
  derived: DerivedRows[];
  streamOffset: number;
  turnSeq: number;
  sessionId: string | null;
  recordSessionId: string | null;
  cwd: string | null;
  branch: string | null;
  continuesFrom: string | null;
  firstTurnAt: string | null;
  lastTurnAt: string | null;
  firstParentUuid: string | null;
  /** The titles these lines carry (custom-title, ai-title, summary, first typed prompt). */
  titles: TranscriptTitles;
  /** Lines that are not one JSON record or several glued ones: archived as bytes, unread. */
  unreadable: number;
}

/** `observer`, when given, is fed every record as archived (after the capture mode). */
export function deriveChunk(i: ChunkInput, observer?: Observer): ChunkOutput {
  const { chunk, end } = i;
  const parts: Uint8Array[] = [];
  const derived: DerivedRows[] = [];
  let streamOffset = i.streamOffset;
  let turnSeq = i.turnSeq;
  let cwd = i.cwd;
  let branch: string | null = null;
  let foreign: string | null = null;
  let firstTurnAt: string | null = null;
  let lastTurnAt: string | null = null;
  let firstParentUuid: string | null = null;
  let recordSessionId: string | null = null;
  const titles = emptyTitles();
  let unreadable = 0;
  const record = (rec: Rec, offset: number, byteLen: number) => {
    observer?.add(rec);
    const sid = str(rec.sessionId);
    if (sid && !recordSessionId) recordSessionId = sid;
    const c = str(rec.cwd);
    if (c && !cwd) cwd = c;
    const b = str(rec.gitBranch);
    if (b) branch = b;
    const snake = str(rec.session_id);
    // the file's own id in snake_case is no continuation: keep looking past it
    if (snake && !foreign && snake !== (i.sessionId ?? recordSessionId)) foreign = snake;
    noteTitle(titles, rec);
    if (isTurn(rec)) {
      const ts = str(rec.timestamp);
      if (!firstTurnAt) firstTurnAt = ts;
      if (ts && (!lastTurnAt || ts > lastTurnAt)) lastTurnAt = ts;
      if (turnSeq === 0 && derived.length === 0) firstParentUuid = str(rec.parentUuid);
      derived.push(deriveTurn({
        rec,
        streamOffset: offset,
        byteLen,
        turnSeq: turnSeq++,
        sidecar: i.sidecar,
      }));
    }
  };
  let start = 0;
  while (start < end) {
    let nl = chunk.indexOf(NL, start);
    let terminated = true;
    if (nl < 0 || nl >= end) {
      // the window ends on a newline, unless it is a closed session's last record
      nl = i.unterminated ? end : end - 1;
      terminated = !i.unterminated;
    }
    const line = chunk.subarray(start, nl);
    start = nl + 1;
    const recs = lineRecords(line);
    if (recs === null || recs.length === 1) {
      const { bytes, rec } = captureLine(line, recs?.[0].rec ?? null, i.mode);
      parts.push(bytes);
      if (rec) record(rec, streamOffset, bytes.length);
      else if (line.length > 0) unreadable++;
      streamOffset += bytes.length;
    } else {
      // records glued on one line: each is read, and kept where it lies on the line
      for (const r of recs) {
        const { bytes, rec } = captureLine(line.subarray(r.start, r.end), r.rec, i.mode);
        parts.push(bytes);
        record(rec!, streamOffset, bytes.length);
        streamOffset += bytes.length;
      }
    }
    if (terminated) {
      parts.push(NEWLINE);
      streamOffset += 1;
    }
  }
  const sessionId = i.sessionId ?? recordSessionId;
  return {
    stream: concat(parts),
    derived,
    streamOffset,
    turnSeq,
    sessionId,
    recordSessionId,
    cwd,
    branch,
    continuesFrom: foreign === sessionId ? null : foreign,
    firstTurnAt,
    lastTurnAt,
    firstParentUuid,
    titles,
    unreadable,
  };
}
