/** Turn ids: `session_no << 24 | turn_seq`, computed without 32-bit bitwise overflow. */
import { TURN_SEQ_SPAN } from "../constants.ts";

export function turnId(sessionNo: number, turnSeq: number): number {
  return sessionNo * TURN_SEQ_SPAN + turnSeq;
}
