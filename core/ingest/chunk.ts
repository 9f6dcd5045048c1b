/**
 * From the new complete lines of one transcript to what the archive stores for them: the
 * stream bytes (after the capture mode), the derived rows of each turn, and the session
 * facts the lines carry. Pure: no store, no file system.
 */
import type { CaptureMode } from "../config.ts";
import type { DerivedRows } from "../store/archive.ts";
import { isTurn, parseLine, str } from "../transcript/records.ts";
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
  let start = 0;
  while (start < end) {
    let nl = chunk.indexOf(NL, start);
    if (nl < 0 || nl >= end) nl = end - 1;
    const line = chunk.subarray(start, nl);
    start = nl + 1;
    const { bytes, rec } = captureLine(line, parseLine(line), i.mode);
    parts.push(bytes, NEWLINE);
    if (rec) {
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
          streamOffset,
          byteLen: bytes.length,
          turnSeq: turnSeq++,
          sidecar: i.sidecar,
        }));
      }
    }
    streamOffset += bytes.length + 1;
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
  };
}
