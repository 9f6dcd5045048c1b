/**
 * A search candidate: a turn as the ranking reads it, the columns its row is read with, and
 * the spec's total order over hits and candidates.
 */

export interface Candidate {
  id: number;
  relevance: number;
  sessionNo: number;
  sessionKey: string;
  project: string | null;
  recordType: string;
  ts: string | null;
  sidechain: boolean;
  streamOffset: number;
  byteLen: number;
  evicted: boolean;
  isToolResult: boolean;
  toolName: string | null;
  uuid: string | null;
}

export const CANDIDATE_COLUMNS =
  `t.id AS id, t.session_no AS sessionNo, s.session_key AS sessionKey,
  m.project AS project, t.record_type AS recordType, t.ts AS ts, t.is_sidechain AS sidechain,
  t.stream_offset AS streamOffset, t.byte_len AS byteLen, COALESCE(m.is_evicted, 0) AS evicted,
  t.is_tool_result AS isToolResult, t.tool_name AS toolName, t.uuid AS uuid`;

/**
 * A candidate from its row, read as an array of CANDIDATE_COLUMNS' values in their order:
 * node:sqlite builds a row of named columns several times slower than an array, and a fresh
 * process pays most of that on its first statement (a search's 1,000-row read took 15 ms as
 * objects, 6.6 as arrays, at ~3 GB).
 */
export function toCandidate(r: unknown[], relevance = 0): Candidate {
  return {
    id: r[0] as number,
    relevance,
    sessionNo: r[1] as number,
    sessionKey: r[2] as string,
    project: (r[3] as string | null) ?? null,
    recordType: r[4] as string,
    ts: (r[5] as string | null) ?? null,
    sidechain: r[6] === 1,
    streamOffset: r[7] as number,
    byteLen: r[8] as number,
    evicted: r[9] === 1,
    isToolResult: r[10] === 1,
    toolName: (r[11] as string | null) ?? null,
    uuid: (r[12] as string | null) ?? null,
  };
}
/** Where the column after CANDIDATE_COLUMNS (relevance, act) sits in an array row. */
export const AFTER_CANDIDATE = 13;

/** What the spec's total order reads: relevance, then main thread first, newer, lower id. */
export interface Ordered {
  relevance: number;
  sidechain: boolean;
  ts: string | null;
}

/** The spec's total order: relevance, main thread before subagent, newer, then lower id. */
export function totalOrder<T extends Ordered>(id: (x: T) => number): (a: T, b: T) => number {
  return (a, b) => {
    if (a.relevance !== b.relevance) return b.relevance - a.relevance;
    if (a.sidechain !== b.sidechain) return a.sidechain ? 1 : -1;
    if (a.ts !== b.ts) {
      if (a.ts === null) return 1;
      if (b.ts === null) return -1;
      return a.ts < b.ts ? 1 : -1;
    }
    return id(a) - id(b);
  };
}

/** Candidates in the spec's total order. */
export const candidateOrder = totalOrder<Candidate>((c) => c.id);
