/**
 * Search's further answers' reads (core/recall/further.ts): the rows each clause holds, counted
 * past a cap rather than read, BM25 only for the rows kept, and the candidates of chosen ids.
 */
import { cachedArrays, type Db } from "./db.ts";
import { TURN_SEQ_SPAN } from "../constants.ts";
import { ftsRowid, turnId } from "./ids.ts";
import type { Visibility } from "./visibility.ts";
import { filterWhere, type SearchFilters } from "./filter_sql.ts";
import { indexEnds, walkUp } from "./fts_walks.ts";
import { type Candidate, CANDIDATE_COLUMNS, toCandidate } from "./candidate.ts";

/** The sessions whose turns lie between two turn ids: those a clause's read may find. */
export function sessionsBetween(db: Db, lo: number, hi: number): number {
  const [n] = cachedArrays(
    db,
    "SELECT count(*) FROM sessions WHERE session_no >= ? AND session_no <= ?",
  ).get(Math.floor(lo / TURN_SEQ_SPAN), Math.floor(hi / TURN_SEQ_SPAN)) as unknown as [number];
  return n;
}

/** The turns holding one clause in a rowid range, unless it has more than a cap of them. */
export interface ClauseTurns {
  /** Its rows, in rowid order (none when `frequent`). */
  ids: number[];
  /** Rows counted (one past the cap when `frequent`). */
  rows: number;
  /** The clause has more rows than the cap: they were counted, not read. */
  frequent: boolean;
}

/**
 * The rows holding one clause between `lo` and `hi` when there are at most `cap` of them, else
 * `frequent` and none: at most `cap + 1` rowids read, walked from the index's nearer end
 * (over the whole index, counted first).
 */
export function clauseTurns(
  db: Db,
  clause: string,
  lo: number,
  hi: number,
  cap: number,
): ClauseTurns {
  // from the index's nearer end: a project's range in the newer half is walked backwards
  const order = walkUp(db, lo, hi) ? "" : "ORDER BY rowid DESC";
  const ends = indexEnds(db);
  if (lo <= ends.min && hi >= ends.max) {
    // the whole index: counting first spares handing a frequent word's rows to JavaScript (a
    // narrower range is read once: a count would walk the rows outside it twice)
    const [n] = cachedArrays(
      db,
      "SELECT count(*) FROM (SELECT 1 FROM turns_fts WHERE turns_fts MATCH ? LIMIT ?)",
    ).get(clause, cap + 1) as unknown as [number];
    if (n > cap) return { ids: [], rows: n, frequent: true };
  }
  const ids = (cachedArrays(
    db,
    `SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? AND rowid >= ? AND rowid <= ? ${order}
     LIMIT ?`,
  ).all(clause, ftsRowid(lo), ftsRowid(hi), cap + 1) as unknown as [number][]).map((r) => r[0]);
  if (ids.length > cap) return { ids: [], rows: ids.length, frequent: true };
  return { ids, rows: ids.length, frequent: false };
}

/**
 * FTS5's BM25 of one clause alone for each of its rows in these sessions (the rows the scope's
 * range holds, at most `cap`): BM25 is computed only for the rows kept.
 */
export function clauseScoresIn(
  db: Db,
  clause: string,
  sessions: number[],
  cap: number,
): [number, number][] {
  if (!sessions.length) return [];
  const lo = turnId(Math.min(...sessions), 0);
  const hi = turnId(Math.max(...sessions) + 1, 0) - 1;
  const order = walkUp(db, lo, hi) ? "" : "ORDER BY rowid DESC";
  return cachedArrays(
    db,
    `SELECT rowid, -bm25(turns_fts) FROM turns_fts
     WHERE turns_fts MATCH ? AND rowid >= ? AND rowid <= ?
       AND rowid / ${TURN_SEQ_SPAN} IN (SELECT value FROM json_each(?))
     ${order} LIMIT ?`,
  ).all(clause, ftsRowid(lo), ftsRowid(hi), JSON.stringify(sessions), cap) as unknown as [
    number,
    number,
  ][];
}

/** At most `cap` rows holding one clause between `lo` and `hi`, in FTS5's order (oldest first). */
export function clauseRowsUpTo(db: Db, clause: string, lo: number, hi: number, cap: number) {
  return (cachedArrays(
    db,
    "SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? AND rowid >= ? AND rowid <= ? LIMIT ?",
  ).all(clause, ftsRowid(lo), ftsRowid(hi), cap) as unknown as [number][]).map((r) => r[0]);
}

/** The candidates for these turn ids that the scope and filters pass, newest first. */
export function candidatesByIds(
  db: Db,
  ids: number[],
  vis: Visibility,
  f: SearchFilters,
): Candidate[] {
  if (!ids.length) return [];
  const { where, params } = filterWhere(vis, f);
  return (cachedArrays(
    db,
    `SELECT ${CANDIDATE_COLUMNS}
     FROM turns t JOIN sessions s ON s.session_no = t.session_no
       LEFT JOIN session_meta m ON m.session_no = t.session_no
     WHERE t.id IN (SELECT value FROM json_each(?)) AND ${where.join(" AND ")}
     ORDER BY t.id DESC`,
  ).all(JSON.stringify(ids), ...params) as unknown as unknown[][]).map((r) => toCandidate(r));
}
