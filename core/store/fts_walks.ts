/**
 * The search index read by rowid: FTS5 walks a doclist from one end, so each read here picks
 * the nearer end, stops as soon as it can, and bounds its rowids as integers (ids.ts).
 */
import { cached, cachedArrays, type Db } from "./db.ts";
import { ftsRowid } from "./ids.ts";

/**
 * The rowids a MATCH holds from `newest` down to `oldest`. FTS5 walks a doclist from one end
 * and seeks to neither bound: forwards from its oldest row (a window of 67k rows of a 359k-row
 * doclist cost the whole walk), or backwards from its newest, stopping when the reader stops
 * (`erk` at ~3 GB, ten rows below a bound: 1.5 ms from the newest end, 9.3 from the middle).
 * So a window in the older half of the index is read forwards in one statement, one in the
 * newer half backwards, stopped at the first row past `oldest` (backwards costs more a row,
 * about twice on the 200 MB store, but walks only from the nearer end).
 */
export function heldBetween(db: Db, match: string, oldest: number, newest: number): Set<number> {
  if (nearerOldEnd(db, oldest)) {
    return new Set([...upFrom(db, match, oldest, newest)].map((r) => r[0]));
  }
  const out = new Set<number>();
  for (const [id] of downFrom(db, match, newest)) {
    if (id < oldest) break;
    out.add(id);
  }
  return out;
}

/** Whether `id` lies nearer the index's oldest row than its newest (or the index is one row). */
function nearerOldEnd(db: Db, id: number): boolean {
  const { min, max } = indexEnds(db);
  return max <= min || id - min < max - id;
}

/**
 * Whether a read of the rowids from `lo` to `hi` walks less from the index's oldest row (FTS5
 * seeks to neither bound: forwards it walks every row below `lo`, backwards every row above
 * `hi`).
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

/** The rowids `match` holds from `from` to `to`, oldest first (FTS5 walks from its oldest row). */
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
 * Which of `ids` hold `match`, newest first (rowids only: no BM25, so no idf walk). Walked
 * forwards and stopped at the newest id: read down from it instead, one id that did not hold
 * the match sent the walk on to the index's start, and backwards FTS5 costs more a row
 * (`src/erk/cli/commands/land_cmd.py`'s 50 definitions at ~3 GB: 23 ms down, 8 up).
 */
export function holdersAmong(db: Db, match: string, ids: number[]): number[] {
  return (cachedArrays(
    db,
    `SELECT rowid FROM turns_fts
     WHERE turns_fts MATCH ? AND rowid >= ? AND rowid <= ?
       AND +rowid IN (SELECT value FROM json_each(?))
     ORDER BY rowid ASC LIMIT ?`,
  ).all(
    match,
    ftsRowid(Math.min(...ids)),
    ftsRowid(Math.max(...ids)),
    JSON.stringify(ids),
    ids.length,
  ) as unknown as [number][])
    .map((r) => r[0]).reverse();
}

/** The rowids `match` holds, newest first from `newest`, read only as far as the caller steps. */
function downFrom(db: Db, match: string, newest: number): IterableIterator<[number]> {
  return cachedArrays(
    db,
    "SELECT rowid AS id FROM turns_fts WHERE turns_fts MATCH ? AND rowid <= ? ORDER BY rowid DESC",
  ).iterate(match, ftsRowid(newest)) as unknown as IterableIterator<[number]>;
}

/**
 * The rowids saying `phrase`, walked newest first from `newest`: every one of the `window`'s
 * candidates down to `oldest` (`said`), then the nearest `more` below it, down to `floor`
 * (`below`). Read from the index's nearer end, as heldBetween is: backwards a phrase said often
 * stops soon past `oldest`, and one only old turns say costs the walk to `floor`. A window whose
 * candidates already hold `more` sayers fills the pool with them, so nothing below is read: a
 * path said in most of its matches (all its words common) walked past it for 200 more sayers'
 * positions, search's tail at ~3 GB.
 */
export function phraseHolders(
  db: Db,
  phrase: string,
  window: Set<number>,
  oldest: number,
  newest: number,
  floor: number,
  more: number,
): { said: Set<number>; below: number[] } {
  const said = new Set<number>();
  let below: number[] = [];
  if (nearerOldEnd(db, oldest)) {
    // forwards, as heldBetween reads such a window: the nearest below it are the last seen
    for (const [id] of upFrom(db, phrase, floor, newest)) {
      if (id >= oldest) {
        if (window.has(id)) said.add(id);
      } else if (below.push(id) >= 2 * more) below = below.slice(-more);
    }
    return { said, below: said.size >= more ? [] : below.slice(-more) };
  }
  for (const [id] of downFrom(db, phrase, newest)) {
    if (id < floor) break;
    if (id >= oldest) {
      if (window.has(id)) said.add(id);
    } else if (said.size >= more || below.push(id) >= more) break;
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
