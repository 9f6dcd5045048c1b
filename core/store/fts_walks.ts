/**
 * The search index read by rowid: each read stops as soon as it can and bounds its rowids as
 * integers (ids.ts), which FTS5 seeks to. A walk forwards costs less a row than one backwards
 * (a third to a half, for a phrase or words most turns hold), so a read whose both ends are
 * known walks forwards.
 */
import { cached, cachedArrays, type Db } from "./db.ts";
import { ftsRowid, sessionOfTurn } from "./ids.ts";
import { SEARCH_RUN_GAP_SESSIONS, SEARCH_RUNS_MAX } from "../constants.ts";

/**
 * The rowids a MATCH holds from `oldest` to `newest`, walked forwards from `oldest`. FTS5 seeks
 * to a rowid bound given as an integer (ids.ts), either way, and a forward walk of a phrase or
 * of words most turns hold costs a third to a half of a backward one at ~3 GB (a path's phrase
 * over its 1,000-row window: 3.0 against 6.1 ms; another path's, 3.0 against 8.3).
 */
export function heldBetween(db: Db, match: string, oldest: number, newest: number): Set<number> {
  return new Set([...upFrom(db, match, oldest, newest)].map((r) => r[0]));
}

/**
 * Whether a read of the rowids from `lo` to `hi` goes forwards: when the range lies nearer the
 * index's oldest row. Chosen when FTS5 was thought to seek to neither bound (a REAL bound it
 * does not, ids.ts); kept where a read's LIMIT makes its direction choose the rows it keeps.
 */
export function walkUp(db: Db, lo: number, hi: number): boolean {
  const { min, max } = indexEnds(db);
  return Math.max(0, lo - min) <= Math.max(0, max - hi);
}

/** The index's oldest and newest rowids. */
export function indexEnds(db: Db): { min: number; max: number } {
  // one end each: SQLite answers a lone min() or max() from the b-tree's edge, both at once by a scan
  const min =
    (cached(db, "SELECT min(id) AS v FROM turns_fts_docsize").get() as { v: number | null })
      .v ?? 0;
  const max =
    (cached(db, "SELECT max(id) AS v FROM turns_fts_docsize").get() as { v: number | null })
      .v ?? 0;
  return { min, max };
}

/** The rowids `match` holds from `from` to `to`, oldest first. */
function upFrom(
  db: Db,
  match: string,
  from: number,
  to: number,
): IterableIterator<[number]> {
  return cachedArrays(
    db,
    "SELECT rowid AS id FROM turns_fts WHERE turns_fts MATCH ? AND rowid >= ? AND rowid <= ?",
  ).iterate(match, ftsRowid(from), ftsRowid(to)) as unknown as IterableIterator<[number]>;
}

/**
 * Every rowid `match` holds from `lo` to `hi`, when there are at most `cap` of them; else null.
 * Walked forwards and stopped one row past the cap: backwards FTS5 reads each row of every
 * word's list down to where it stops (`cli/commands/codespace/setup_cmd.py`, 552 matches at
 * ~3 GB: 14.6 ms backwards, 6.0 forwards). Scope and filters need not be known: the rows they
 * pass are among these, so the capped read would have returned exactly those. `scored`: each
 * row's BM25 of the match too (its idf walk is short: the match holds a rare word).
 */
export function everyMatch(
  db: Db,
  match: string,
  lo: number,
  hi: number,
  cap: number,
  scored: boolean,
): { ids: number[]; scores: Map<number, number> | null } | null {
  const rows = cachedArrays(
    db,
    `SELECT rowid${scored ? ", -bm25(turns_fts)" : ""} FROM turns_fts
     WHERE turns_fts MATCH ? AND rowid >= ? AND rowid <= ? LIMIT ?`,
  ).all(match, ftsRowid(lo), ftsRowid(hi), cap + 1) as unknown as [number, number][];
  if (rows.length > cap) return null;
  return { ids: rows.map((r) => r[0]), scores: scored ? new Map(rows) : null };
}

/**
 * The newest `cap` rowids `match` holds from `hi` down to `lo` that `keep` passes (all when it is
 * null), newest first, with each one's BM25 of the match when `scored`: the capped read by id,
 * before any row of `turns` is read (a scope known by id is `keep`).
 */
export function newestMatches(
  db: Db,
  match: string,
  lo: number,
  hi: number,
  cap: number,
  keep: ((id: number) => boolean) | null,
  scored: boolean,
): { ids: number[]; scores: Map<number, number> | null } {
  const sql = `SELECT rowid${scored ? ", -bm25(turns_fts)" : ""} FROM turns_fts
     WHERE turns_fts MATCH ? AND rowid >= ? AND rowid <= ? ORDER BY rowid DESC`;
  type Row = [number, number];
  let rows: Row[];
  if (keep === null) {
    const all = cachedArrays(db, `${sql} LIMIT ?`).all(match, ftsRowid(lo), ftsRowid(hi), cap);
    rows = all as unknown as Row[];
  } else {
    // walked only as far as `cap` kept rows: SQLite cannot stop it at a count it does not see
    rows = [];
    const all = cachedArrays(db, sql).iterate(match, ftsRowid(lo), ftsRowid(hi));
    for (const r of all as unknown as IterableIterator<Row>) {
      if (keep(r[0]) && rows.push(r) >= cap) break;
    }
  }
  return { ids: rows.map((r) => r[0]), scores: scored ? new Map(rows) : null };
}

/**
 * Which of `ids` hold `match`, newest first (rowids only: no BM25, so no idf walk). Each run of
 * them (idRuns) is walked forwards and stopped at its newest id: read down from it instead, one
 * id that did not hold the match sent the walk on to the index's start, and backwards FTS5 costs
 * more a row (`src/erk/cli/commands/land_cmd.py`'s 50 definitions at ~3 GB: 23 ms down, 8 up).
 * BM25 reads (bm25Among) are not split so: each statement walks its clauses' doclists whole
 * again for their idf.
 */
export function holdersAmong(db: Db, match: string, ids: number[]): number[] {
  const held: number[] = [];
  for (const run of idRuns(ids)) {
    const rows = cachedArrays(
      db,
      `SELECT rowid FROM turns_fts
       WHERE turns_fts MATCH ? AND rowid >= ? AND rowid <= ?
         AND +rowid IN (SELECT value FROM json_each(?))
       ORDER BY rowid ASC LIMIT ?`,
    ).all(
      match,
      ftsRowid(run[0]),
      ftsRowid(run[run.length - 1]),
      JSON.stringify(run),
      run.length,
    ) as unknown as [number][];
    for (const r of rows) held.push(r[0]);
  }
  return held.reverse();
}

/**
 * `ids` in ascending runs, split where two neighbours lie more than SEARCH_RUN_GAP_SESSIONS
 * sessions apart (the widest gaps first, at most SEARCH_RUNS_MAX runs): one walk from the lowest
 * to the highest id reads every match between them, where a walk per run seeks past the
 * stretches that hold none of them (performance.md, "Chosen turns read in runs").
 */
export function idRuns(ids: number[]): number[][] {
  const up = [...new Set(ids)].sort((a, b) => a - b);
  if (up.length < 2) return up.length ? [up] : [];
  const gaps: { at: number; sessions: number }[] = [];
  for (let i = 1; i < up.length; i++) {
    const sessions = sessionOfTurn(up[i]) - sessionOfTurn(up[i - 1]);
    if (sessions > SEARCH_RUN_GAP_SESSIONS) gaps.push({ at: i, sessions });
  }
  const cuts = gaps.sort((a, b) => b.sessions - a.sessions || a.at - b.at)
    .slice(0, SEARCH_RUNS_MAX - 1).map((g) => g.at).sort((a, b) => a - b);
  const runs: number[][] = [];
  let from = 0;
  for (const at of [...cuts, up.length]) {
    runs.push(up.slice(from, at));
    from = at;
  }
  return runs;
}

/** The rowids `match` holds, newest first from `newest`, read only as far as the caller steps. */
function downFrom(db: Db, match: string, newest: number): IterableIterator<[number]> {
  return cachedArrays(
    db,
    "SELECT rowid AS id FROM turns_fts WHERE turns_fts MATCH ? AND rowid <= ? ORDER BY rowid DESC",
  ).iterate(match, ftsRowid(newest)) as unknown as IterableIterator<[number]>;
}

/**
 * The rowids saying `phrase`: those of the `window`'s candidates from `oldest` to `newest`
 * (`said`, walked forwards as heldBetween walks), then, only when fewer than `more` of them do,
 * the nearest `more` below `oldest`, down to `floor` (`below`, newest first). A window whose
 * candidates already hold `more` sayers fills the pool with them, so nothing below is read: a
 * path said in most of its matches (all its words common) walked past it for 200 more sayers'
 * positions, search's tail at ~3 GB.
 *
 * Below the window the walk goes backwards from `oldest` and stops at the `more`-th sayer. With
 * `up` (the phrase's rarest word spans few pages, so every turn saying it is on a short list)
 * it goes forwards from `floor` instead, the newest `more` kept: the same turns, and where few or
 * none say it below (a compound name said in order by a few of the turns holding its words) a
 * forward walk of that stretch costs FTS5 less than the backward one.
 */
export function phraseHolders(
  db: Db,
  phrase: string,
  window: Set<number>,
  span: { oldest: number; newest: number },
  floor: number,
  more: number,
  up = false,
): { said: Set<number>; below: number[] } {
  const { oldest, newest } = span;
  const said = new Set<number>();
  for (const [id] of upFrom(db, phrase, oldest, newest)) if (window.has(id)) said.add(id);
  const below: number[] = [];
  if (said.size >= more || oldest <= floor) return { said, below };
  if (up) {
    for (const [id] of upFrom(db, phrase, floor, oldest - 1)) below.push(id);
    return { said, below: below.slice(-more).reverse() };
  }
  for (const [id] of downFrom(db, phrase, oldest - 1)) {
    if (id < floor || below.push(id) >= more) break;
  }
  return { said, below };
}

/**
 * FTS5's BM25 of `match` (clauses joined by AND or OR) for those of `ids` that hold it: read
 * between the lowest and the highest of them, so only that stretch of each doclist is walked,
 * from the index's nearer end, and the LIMIT stops it at the far one. `+rowid` keeps the id
 * list a filter, not one seek per id.
 */
export function bm25Among(db: Db, match: string, ids: number[]): Map<number, number> {
  if (!ids.length) return new Map();
  const lo = Math.min(...ids);
  const hi = Math.max(...ids);
  return new Map(
    cachedArrays(
      db,
      `SELECT rowid AS id, -bm25(turns_fts) AS r FROM turns_fts
       WHERE turns_fts MATCH ? AND rowid >= ? AND rowid <= ?
         AND +rowid IN (SELECT value FROM json_each(?))
       ORDER BY rowid ${walkUp(db, lo, hi) ? "ASC" : "DESC"} LIMIT ?`,
    ).all(match, ftsRowid(lo), ftsRowid(hi), JSON.stringify(ids), ids.length) as unknown as [
      number,
      number,
    ][],
  );
}
