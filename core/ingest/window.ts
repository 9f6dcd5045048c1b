/**
 * How a pass reads a transcript: one bounded window at a time, never the whole unarchived
 * remainder. A window holds complete lines, or the bytes of an oversized line (no newline
 * within LINE_CAP_BYTES), which are archived as they are and never parsed or held whole.
 */
import { LINE_CAP_BYTES, PASS_WINDOW_BYTES } from "../constants.ts";
import type { ChunkInput, ChunkOutput } from "./chunk.ts";
import { emptyTitles } from "../transcript/titles.ts";
import { openPlain, type PlainFile, readFully } from "../plain_file.ts";
import { lineRecords } from "../transcript/records.ts";

const NL = 0x0a;

export type Window =
  /** Complete lines: `chunk[0, end)`, ending on a newline. */
  | { kind: "lines"; chunk: Uint8Array; end: number }
  /** Bytes of an oversized line, `chunk[0, end)`; `starts` when this window opens the line. */
  | { kind: "raw"; chunk: Uint8Array; end: number; starts: boolean }
  /** Complete lines and, last, a closed file's record with no newline: `chunk[0, end)`. */
  | { kind: "last"; chunk: Uint8Array; end: number }
  /** A partial line under the cap: it waits for its newline. `seen` bytes were looked at. */
  | { kind: "wait"; seen: number }
  /** A closed file's last line, with no newline, that is not a record: it stays out. */
  | { kind: "held"; seen: number };

function readAt(f: PlainFile, from: number, len: number, buf?: Uint8Array): Uint8Array {
  return readFully(f, buf?.subarray(0, len) ?? new Uint8Array(len), from);
}

/**
 * The bytes of `path` in `[from, to)` (fewer when the file is shorter). Like every read of a
 * transcript, it opens without blocking and reads only a regular file (core/plain_file.ts).
 */
export function readRange(path: string, from: number, to: number): Uint8Array {
  using f = openPlain(path);
  return readAt(f, from, to - from);
}

/** The first newline in `[from, to)`, read a window at a time into one reused buffer; -1 if none. */
function scanNewline(f: PlainFile, from: number, to: number): number {
  const buf = new Uint8Array(Math.min(PASS_WINDOW_BYTES, Math.max(0, to - from)));
  for (let at = from; at < to;) {
    const got = readAt(f, at, Math.min(buf.length, to - at), buf);
    if (got.length === 0) return -1;
    const i = got.indexOf(NL);
    if (i >= 0) return at + i;
    at += got.length;
  }
  return -1;
}

/**
 * The next window of `path` from `offset` (a watermark) given the file's `size`. A watermark
 * that does not follow a newline is inside an oversized line: its bytes go on being archived
 * raw up to and including the newline that ends it, and lines are parsed again after that.
 * It also follows a closed session's last record archived without its newline: bytes that
 * then arrive up to the next newline are records of their own (Claude Code glues the next
 * record on), and are read as lines.
 *
 * `closed`: nobody writes the file any more (idle past the closing rule), so a last line
 * without a newline will not get one: it is archived when it is one record or several glued
 * ones, and `held` otherwise.
 */
export function nextWindow(path: string, offset: number, size: number, closed = false): Window {
  const f = openPlain(path);
  try {
    const midLine = offset > 0 && readAt(f, offset - 1, 1)[0] !== NL;
    const chunk = readAt(f, offset, Math.min(PASS_WINDOW_BYTES, size - offset));
    if (chunk.length === 0) return { kind: "wait", seen: 0 };
    if (midLine) {
      const nl = chunk.indexOf(NL);
      if (nl > 0 && lineRecords(chunk.subarray(0, nl)) !== null) {
        return { kind: "lines", chunk, end: chunk.lastIndexOf(NL) + 1 };
      }
      if (nl < 0 && closed && chunk.length === size - offset && lineRecords(chunk) !== null) {
        return { kind: "last", chunk, end: chunk.length };
      }
      return { kind: "raw", chunk, end: nl >= 0 ? nl + 1 : chunk.length, starts: false };
    }
    const last = chunk.lastIndexOf(NL);
    if (last >= 0) return { kind: "lines", chunk, end: last + 1 };
    // a whole window with no newline: a long line is held whole up to the cap, no further
    const capEnd = Math.min(size, offset + LINE_CAP_BYTES);
    const nl = scanNewline(f, offset + chunk.length, capEnd);
    if (nl >= 0) {
      const whole = readAt(f, offset, nl + 1 - offset);
      if (whole[whole.length - 1] === NL) return { kind: "lines", chunk: whole, end: whole.length };
      return { kind: "wait", seen: whole.length }; // the file changed under us
    }
    if (size - offset > LINE_CAP_BYTES) {
      return { kind: "raw", chunk, end: chunk.length, starts: true };
    }
    if (!closed) return { kind: "wait", seen: size - offset };
    // the closed file's last line, under the cap: read whole, archived only if it is records
    const whole = chunk.length === size - offset ? chunk : readAt(f, offset, size - offset);
    if (whole.length === size - offset && lineRecords(whole) !== null) {
      return { kind: "last", chunk: whole, end: whole.length };
    }
    return { kind: "held", seen: whole.length };
  } finally {
    f.close();
  }
}

/** What an oversized line's bytes add to a session: stream bytes only, no record, no turn. */
export function rawChunk(i: ChunkInput): ChunkOutput {
  return {
    stream: i.chunk.subarray(0, i.end),
    derived: [],
    streamOffset: i.streamOffset + i.end,
    turnSeq: i.turnSeq,
    sessionId: i.sessionId,
    recordSessionId: null,
    cwd: i.cwd,
    branch: null,
    continuesFrom: null,
    firstTurnAt: null,
    lastTurnAt: null,
    firstParentUuid: null,
    titles: emptyTitles(),
    unreadable: 0,
  };
}
