/** Turn ids: `session_no << 24 | turn_seq`, computed without 32-bit bitwise overflow. */
import { TURN_SEQ_SPAN } from "../constants.ts";

export function turnId(sessionNo: number, turnSeq: number): number {
  return sessionNo * TURN_SEQ_SPAN + turnSeq;
}

/** The session number a turn id holds (turnId's inverse in its first part). */
export function sessionOfTurn(id: number): number {
  return Math.floor(id / TURN_SEQ_SPAN);
}

/**
 * A rowid bound for an FTS5 MATCH, as SQLite's integer. node:sqlite binds a JS number as REAL,
 * and FTS5 takes a rowid bound only when it is an integer: a REAL one it drops, walking from the
 * index's end while SQLite filters the rows (`erk`, ten rows below the middle of the ~3 GB
 * index: 27 ms as REAL, 0.8 as an integer). With `rowid = ?` it even answers another row.
 */
export function ftsRowid(id: number): bigint {
  return BigInt(Math.trunc(id));
}
