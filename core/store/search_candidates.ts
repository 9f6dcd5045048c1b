/**
 * Search's candidate read: the turns a query's clauses hold, bounded by SEARCH_READ_CAP, with
 * the phrase's walk past the window, the BM25 of each candidate and the spec's total order.
 * Every read takes a `Visibility` so exclusion binds it.
 */
import { cached, cachedArrays, type Db } from "./db.ts";
import { SEARCH_COMMON_PAGES, SEARCH_PROBE_PAGES, SEARCH_READ_CAP } from "../constants.ts";
import { ftsRowid, sessionOfTurn, turnId } from "./ids.ts";
import type { Visibility } from "./visibility.ts";
import { filterWhere, type SearchFilters } from "./filter_sql.ts";
import { clausePages, ftsSegments } from "./fts_pages.ts";
import {
  bm25Among,
  everyMatch,
  heldBetween,
  holdersAmong,
  newestMatches,
  phraseHolders,
} from "./fts_walks.ts";
import {
  AFTER_CANDIDATE,
  type Candidate,
  CANDIDATE_COLUMNS,
  candidateOrder,
  toCandidate,
} from "./candidate.ts";

export type { SearchFilters } from "./filter_sql.ts";

/** What a search's candidate read did (for the bounded-read test and the bench). */
export interface CandidateReads {
  /** Rows each bounded read took from the index (at most its cap each). */
  rows: number[];
  /** Whether a read stopped at its cap, so older matches were left unread. */
  capped: boolean;
  /** The clauses scored as common (they add nothing alike; no walk of their doclists). */
  common?: string[];
  /**
   * Candidate rows the window's read built: fewer than its matches when only those that can
   * reach the pool were read.
   */
  built?: number;
  /** Whether every match was first looked for by a walk forwards (the rarest word is rare). */
  walkedForwards?: boolean;
}

/** When a clause counts as common (SEARCH_COMMON_PAGES by default). */
export interface CommonRule {
  /**
   * The one-word clauses scored exactly span fewer leaf pages of the index than this, together;
   * the longest are common until they do (so one this long or longer always is).
   */
  pages: number;
}

export const COMMON_RULE: CommonRule = { pages: SEARCH_COMMON_PAGES };

export interface CandidateOptions {
  /** The words in the order typed, as one FTS5 phrase: a turn that says them gets the bonus. */
  phrase?: string | null;
  phraseBonus?: number;
  /** Matching rows read, newest first (SEARCH_READ_CAP by default). */
  readCap?: number;
  reads?: CandidateReads;
  common?: CommonRule;
  /**
   * Turns to rank beside the read's window whatever their age (the definitions of a stored
   * identifier the query names): those that hold every clause and pass the scope and filters
   * join the candidates, scored as the window's are.
   */
  alsoIds?: number[];
  /** Walk forwards first when the rarest word spans at most this many pages (SEARCH_PROBE_PAGES). */
  probePages?: number;
}

/**
 * FTS5 candidates ranked by BM25 with the spec's total order, at most `pool`. With no clauses
 * (filters alone), every turn the filters pass, newest first, relevance 0.
 *
 * The read is bounded: the MATCH (every clause ANDed) reads at most `readCap` rows that pass the
 * scope and filters, newest first (FTS5 walks its doclists in rowid order, and a turn's id grows
 * with the archive). A word rarer than that is ranked exactly; a common one over its newest
 * `readCap` rows in the scope, so a small scope still gets every row of its own. A turn among
 * them that says the words in the order typed (`phrase`) gets `phraseBonus` on top, found by a
 * MATCH of the phrase over the same rowid window.
 *
 * BM25 is FTS5's own for every clause but the common ones: FTS5 computes a clause's idf by
 * walking its whole doclist, once per statement, and a clause most turns hold costs that walk
 * for almost nothing (its idf is small, and every candidate holds it). The longest clauses are
 * common (`common`) until the rest span fewer leaf pages than its rule together; a common one
 * adds nothing, to every candidate alike, and the rest are scored by a `bm25()` MATCH of them
 * alone over the candidates' window, which walks only their doclists.
 */
export function searchCandidates(
  db: Db,
  clauses: string[] | null,
  vis: Visibility,
  f: SearchFilters,
  pool: number,
  o: CandidateOptions = {},
): Candidate[] {
  const readCap = o.readCap ?? SEARCH_READ_CAP;
  const reads = o.reads;
  const byTime = clauses === null || clauses.length === 0;
  const { where, params } = filterWhere(vis, f, byTime);
  const bounds = idBounds(f);
  if (byTime) {
    if (bounds.lo !== null) {
      where.push("t.id >= ?");
      params.push(bounds.lo);
    }
    if (bounds.hi !== null) {
      where.push("t.id <= ?");
      params.push(bounds.hi);
    }
    params.push(pool);
    return (cachedArrays(
      db,
      `SELECT ${CANDIDATE_COLUMNS}
       FROM turns t JOIN sessions s ON s.session_no = t.session_no
         LEFT JOIN session_meta m ON m.session_no = t.session_no
       WHERE ${where.join(" AND ")}
       ORDER BY t.ts IS NULL ASC, t.ts DESC, t.id DESC
       LIMIT ?`,
    ).all(...params) as unknown as unknown[][]).map((r) => toCandidate(r));
  }
  const range = scopeRange(db, vis, f);
  if (range === null) return [];
  const { lo, hi } = range;
  const match = clauses.join(" AND ");
  const segs = ftsSegments(db);
  const pages = clauses.map((c) => clausePages(db, c, segs));
  const common = commonClauses(db, clauses, o.common ?? COMMON_RULE, pages);
  const rr: RowRead = { where, params, clauses, common };
  if (reads && common.size) reads.common = [...common].map((i) => clauses[i]);
  // with no common clause every clause is scored, so the walk that finds the matches scores
  // them too (BM25's idf is the whole index's, whatever rowids a statement reads)
  // every match holds the rarest word: when it spans few pages, a walk of every match (or of
  // every turn saying the phrase below a window) forwards is bounded by its list
  const rare = rarestPages(db, clauses, pages, segs) <= (o.probePages ?? SEARCH_PROBE_PAGES);
  // not one word read by id: its matches are its own list, which the window reads as cheaply
  const forwards = rare && !(clauses.length === 1 && pages[0] !== null && byIdAlone(vis, f));
  if (reads) reads.walkedForwards = forwards;
  const few = forwards ? everyMatch(db, match, lo, hi, readCap, common.size === 0) : null;
  // every match known by id, its relevance too: only the rows that can reach the pool are read
  const best = few && few.ids.length && few.ids.length < readCap
    ? fewBest(db, few, vis, rr, o, pool)
    : !few && byIdAlone(vis, f)
    ? windowBest(db, match, { lo, hi, readCap, pool, rare }, vis, rr, o)
    : null;
  const cands = best
    ? best.cands
    : few
    ? (few.ids.length ? olderSayers(db, few.ids, where, params, clauses, common, few.scores) : [])
    : cappedRead(db, match, lo, hi, where, params, common.size > 0, readCap);
  const capped = best ? best.capped : cands.length >= readCap;
  if (reads) {
    reads.rows.push(best ? best.known.size : cands.length);
    // the window's rows built: the sayers below it, built beside them, are counted apart
    reads.built = best ? cands.filter((c) => best.known.has(c.id)).length : cands.length;
    if (capped) reads.capped = true;
  }
  // the turns asked for beside the window: those holding every clause, scored as the rest.
  // When every match was found (`few`), any of them holding every clause is among the
  // candidates already, or left out by the scope and filters it would meet again.
  const known = best ? best.known : new Set(cands.map((c) => c.id));
  const extra = few ? [] : alsoHeld(db, o, known, lo, hi, match, rr, best?.beside ?? null);
  if (reads && extra.length) reads.rows.push(extra.length);
  if (!cands.length) return extra.sort(candidateOrder).slice(0, pool);
  const newest = cands[0].id;
  // read by id (`few`), the candidates were scored so already
  if (common.size && !few && !best) {
    // a clause every candidate holds and most turns do tells them apart by its count alone,
    // for the price of its doclist's walk: it adds nothing, to every candidate alike
    const rare = clauses.filter((_, i) => !common.has(i));
    if (rare.length) {
      // FTS5's own BM25 for the rest, for the candidates alone; its idf walk is over these
      // clauses' doclists only
      const score = bm25Of(db, rare, cands);
      for (const c of cands) c.relevance += score.get(c.id) ?? 0;
    }
  }
  if (o.phrase && o.phraseBonus) {
    const oldest = cands[cands.length - 1].id;
    if (best) {
      // the bonus was added before the rows were read: a match's relevance was known by then
      if (reads) reads.rows.push(...best.phraseRows);
      cands.push(...best.older);
    } else {
      const window = { ids: new Set(cands.map((c) => c.id)), oldest, newest, capped };
      const p = phraseSayers(db, o.phrase, o.phraseBonus, window, { lo, pool, rare }, rr);
      if (reads) reads.rows.push(...p.rows);
      for (const c of cands) if (p.said.has(c.id)) c.relevance += o.phraseBonus;
      cands.push(...p.older);
    }
  }
  cands.push(...extra);
  return cands.sort(candidateOrder).slice(0, pool);
}

/**
 * The newest `readCap` turns holding `match` between `lo` and `hi` that pass the scope and
 * filters, newest first, with their BM25 unless a clause is common (`unscored`).
 */
function cappedRead(
  db: Db,
  match: string,
  lo: number,
  hi: number,
  where: string[],
  params: (string | number)[],
  unscored: boolean,
  readCap: number,
): Candidate[] {
  return (cachedArrays(
    db,
    `SELECT ${CANDIDATE_COLUMNS}, ${unscored ? "0 AS relevance" : "-bm25(turns_fts) AS relevance"}
     FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid
       JOIN sessions s ON s.session_no = t.session_no
       LEFT JOIN session_meta m ON m.session_no = t.session_no
     WHERE turns_fts MATCH ? AND turns_fts.rowid >= ? AND turns_fts.rowid <= ?
       AND ${where.join(" AND ")}
     ORDER BY turns_fts.rowid DESC
     LIMIT ?`,
  ).all(match, ftsRowid(lo), ftsRowid(hi), ...params, readCap) as unknown as unknown[][])
    .map((r) => toCandidate(r, r[AFTER_CANDIDATE] as number));
}

/** How a candidate's row is read and scored: the scope's and filters' terms, the clauses. */
interface RowRead {
  where: string[];
  params: (string | number)[];
  clauses: string[];
  /** The clauses that add nothing alike (commonClauses). */
  common: Set<number>;
}

/** What a read by id chose to build: the rows that can reach the pool, and what it walked. */
interface Best {
  cands: Candidate[];
  /** Every match the index read found (the window), read or not. */
  known: Set<number>;
  /** Whether that read stopped at its cap. */
  capped: boolean;
  /** The phrase walk's counts, for CandidateReads (empty with no phrase). */
  phraseRows: number[];
  /** Turns below the window that say the phrase, bonus added. */
  older: Candidate[];
  /**
   * The BM25 the window's statement also gave the turns asked for beside it (`alsoIds`), so
   * `alsoHeld` walks no clause's whole doclist a second time for its idf.
   */
  beside?: Map<number, number>;
}

/**
 * The rows of `few` (every match, found by the index, fewer than the cap) that can reach the
 * pool, scored and with the phrase bonus (bestRows). At the 200 MB store a word in some 500
 * turns read them all, about 5 ms of a fresh process.
 */
function fewBest(
  db: Db,
  few: { ids: number[]; scores: Map<number, number> | null },
  vis: Visibility,
  rr: RowRead,
  o: CandidateOptions,
  pool: number,
): Best {
  const known = new Set(few.ids);
  const bonus = o.phrase && o.phraseBonus ? o.phraseBonus : 0;
  // a project's scope is known by id (a turn's id holds its session's number): the matches of
  // other projects are left out before the level is drawn, or they would fill it
  const scope = vis.project === null ? null : projectSessions(db, vis.project);
  const ids = scope ? few.ids.filter((id) => scope.has(sessionOfTurn(id))) : few.ids;
  const none = { cands: [], known, capped: false, phraseRows: bonus ? [0] : [], older: [] };
  if (!ids.length) return none;
  const scores = scoresOf(db, rr, ids, few.scores);
  const said = bonus ? heldBetween(db, o.phrase!, Math.min(...ids), Math.max(...ids)) : null;
  const cands = bestRows(db, ids, said, bonus, { ...rr, scores, pool });
  return { ...none, cands, phraseRows: said ? [said.size] : none.phraseRows };
}

/**
 * The capped read when the scope is known by id (no filter, no exclusion): the newest
 * `readCap` matches by rowid alone, each one's relevance from the index (BM25 and the phrase's
 * walk), then only the rows that can reach the pool (bestRows). The window, its scores and the
 * phrase's sayers below it are those the joined read gives, which built every row of the
 * window (a page of `turns` apiece on a large store) for a pool a fifth its size.
 */
function windowBest(
  db: Db,
  match: string,
  at: { lo: number; hi: number; readCap: number; pool: number; rare: boolean },
  vis: Visibility,
  rr: RowRead,
  o: CandidateOptions,
): Best {
  const scope = vis.project === null ? null : projectSessions(db, vis.project);
  const keep = scope ? (id: number) => scope.has(sessionOfTurn(id)) : null;
  // with no common clause the window's walk scores every match as it finds it
  const win = newestMatches(db, match, at.lo, at.hi, at.readCap, keep, rr.common.size === 0);
  const known = new Set(win.ids);
  const capped = win.ids.length >= at.readCap;
  const bonus = o.phrase && o.phraseBonus ? o.phraseBonus : 0;
  const out: Best = { cands: [], known, capped, phraseRows: [], older: [] };
  if (!win.ids.length) return out;
  // the phrase's sayers first (as phraseSayers finds them), so the window's and those below it
  // are scored and leveled together, and only the rows that can reach the pool are read
  let said: Set<number> | null = null;
  let below: number[] = [];
  if (bonus) {
    const oldest = win.ids[win.ids.length - 1];
    const h = sayersOf(db, o.phrase!, { ids: known, oldest, newest: win.ids[0], capped }, at);
    said = h.said;
    // below the window the scope still holds, and it is known by id here
    below = keep ? h.below.filter(keep) : h.below;
    out.phraseRows = h.below.length ? [said.size, below.length] : [said.size];
  }
  // the turns alsoHeld will ask about, scored with the window unless its walk scored itself
  const beside = win.scores ? [] : outsideWindow(o, known, at.lo, at.hi);
  let scores = scoresOf(db, rr, win.ids, win.scores, below.concat(beside));
  if (win.scores && below.length) {
    // the walk scored the window by every clause; the sayers below it take a statement of their own
    scores = new Map([...win.scores, ...bm25Among(db, match, below)]);
  }
  if (beside.length && scores) out.beside = scores;
  const sayers = below.length ? new Set([...said!, ...below]) : said;
  const ids = below.length ? win.ids.concat(below) : win.ids;
  out.cands = bestRows(db, ids, sayers, bonus, { ...rr, scores, pool: at.pool });
  return out;
}

/**
 * The turns saying the query's words in order, for a window of matches: those of the window
 * (`said`) and, when the window stopped at its cap, up to `pool` below it that pass the scope and
 * filters (`older`: read, scored as the window's are, the bonus added). The window holds only
 * the newest matches, and at a few GB a query of everyday words matches far more than the cap,
 * so a turn that says the words in order further back would otherwise never be ranked.
 * `rows`: the walks' counts, for CandidateReads.
 */
function phraseSayers(
  db: Db,
  phrase: string,
  bonus: number,
  window: { ids: Set<number>; oldest: number; newest: number; capped: boolean },
  at: { lo: number; pool: number; rare: boolean },
  rr: RowRead,
): { said: Set<number>; older: Candidate[]; rows: number[] } {
  const { said, below } = sayersOf(db, phrase, window, at);
  if (!below.length) return { said, older: [], rows: [said.size] };
  const older = olderSayers(db, below, rr.where, rr.params, rr.clauses, rr.common);
  for (const c of older) c.relevance += bonus;
  return { said, older, rows: [said.size, older.length] };
}

/**
 * The ids of phraseSayers' turns, none read: those of the window (`said`) and, when it stopped
 * at its cap, up to `pool` below it (`below`, scope not yet applied). `at.rare`: the query's
 * rarest word spans few pages, so the walk below may go forwards (phraseHolders).
 */
function sayersOf(
  db: Db,
  phrase: string,
  window: { ids: Set<number>; oldest: number; newest: number; capped: boolean },
  at: { lo: number; pool: number; rare: boolean },
): { said: Set<number>; below: number[] } {
  // every match was read: a turn that says the words in order is among them
  if (!window.capped) {
    return { said: heldBetween(db, phrase, window.oldest, window.newest), below: [] };
  }
  const { ids, oldest, newest } = window;
  return phraseHolders(db, phrase, ids, { oldest, newest }, at.lo, at.pool, at.rare);
}

/**
 * The BM25 of the clauses that are not common for `ids`: `known` when the walk that found them
 * scored them (no clause is common), else read; null when every clause is common. `beside`
 * are scored by the same statement: a row's BM25 is the same whichever statement reads it.
 */
function scoresOf(
  db: Db,
  rr: RowRead,
  ids: number[],
  known: Map<number, number> | null,
  beside: number[] = [],
): Map<number, number> | null {
  const scored = rr.clauses.filter((_, i) => !rr.common.has(i));
  if (!scored.length) return null;
  return known ?? bm25Among(db, scored.join(" AND "), beside.length ? ids.concat(beside) : ids);
}

/** `o.alsoIds` not among the `known` matches, within the rowid bounds, each once. */
function outsideWindow(o: CandidateOptions, known: Set<number>, lo: number, hi: number): number[] {
  if (!o.alsoIds?.length) return [];
  return [...new Set(o.alsoIds)].filter((id) => !known.has(id) && id >= lo && id <= hi);
}

/** Whether the scope and filters can be told from a turn's id alone (a project, or none). */
function byIdAlone(vis: Visibility, f: SearchFilters): boolean {
  return !vis.exclude.length && !f.kind && !f.tool && !f.paths?.length && !f.since &&
    !f.until && !f.quotable && !f.prompts;
}

/**
 * The rows of `ids` (matches newest first, their relevance known before any row is read: the
 * BM25 in `scores`, `bonus` for those `said` holds) that can reach the pool: first those at
 * least as relevant as the pool-th best, every tie with it too; when `pool` of them pass the
 * scope and filters, every row left unread ranks below each of those, and the pool is the one
 * a read of every row gives. Else the rest are read too. Newest first, bonus added.
 */
function bestRows(
  db: Db,
  ids: number[],
  said: Set<number> | null,
  bonus: number,
  r: RowRead & { scores: Map<number, number> | null; pool: number },
): Candidate[] {
  const rel = new Float64Array(ids.length);
  ids.forEach((id, i) => {
    rel[i] = r.scores?.get(id) ?? 0;
    if (said?.has(id)) rel[i] += bonus;
  });
  // the pool-th best relevance (a typed array sorts natively, with no comparator to call)
  const level = r.pool > 0 ? rel.slice().sort()[Math.max(0, rel.length - r.pool)] : Infinity;
  const top: number[] = [];
  const rest: number[] = [];
  ids.forEach((id, i) => (rel[i] >= level ? top : rest).push(id));
  const read = (ids: number[]) =>
    olderSayers(db, ids, r.where, r.params, r.clauses, r.common, r.scores);
  const first = read(top);
  // too few passed the filters: the rest are read too, as a read of every row would
  const cands = first.length >= r.pool || !rest.length
    ? first
    : first.concat(read(rest)).sort((a, b) => b.id - a.id);
  if (said) { for (const c of cands) if (said.has(c.id)) c.relevance += bonus; }
  return cands;
}

/** The sessions archived under `project` (session_meta's project, as visibleWhere reads it). */
function projectSessions(db: Db, project: string): Set<number> {
  return new Set(
    (cachedArrays(db, "SELECT session_no FROM session_meta WHERE project = ?").all(
      project,
    ) as unknown as [number][]).map((r) => r[0]),
  );
}

/**
 * `o.alsoIds` not among the `known` matches that hold every clause and pass the scope and
 * filters, scored as the window's turns are (the phrase bonus included).
 */
function alsoHeld(
  db: Db,
  o: CandidateOptions,
  known: Set<number>,
  lo: number,
  hi: number,
  match: string,
  rr: RowRead,
  scored: Map<number, number> | null,
): Candidate[] {
  const ids = outsideWindow(o, known, lo, hi);
  const held = ids.length ? holdersAmong(db, match, ids) : [];
  if (!held.length) return [];
  // scored with the window, unless a turn is missing there (another connection's commit
  // between the two reads): then all of them are scored afresh
  const beside = scored && held.every((id) => scored.has(id)) ? scored : null;
  const more = olderSayers(db, held, rr.where, rr.params, rr.clauses, rr.common, beside);
  if (more.length && o.phrase && o.phraseBonus) {
    const said = new Set(holdersAmong(db, o.phrase, more.map((c) => c.id)));
    for (const c of more) if (said.has(c.id)) c.relevance += o.phraseBonus;
  }
  return more;
}

/** The id bounds the filters set: one session's turns, turns archived by a replay's point. */
function idBounds(f: SearchFilters): { lo: number | null; hi: number | null } {
  const lo = f.sessionNo != null ? turnId(f.sessionNo, 0) : null;
  const idHi = f.sessionNo != null ? turnId(f.sessionNo + 1, 0) - 1 : null;
  const hi = f.maxId !== undefined ? Math.min(f.maxId, idHi ?? Number.MAX_SAFE_INTEGER) : idHi;
  return { lo, hi };
}

/**
 * The rowid range a read of the index may cover: the filters' bounds and, for one project, its
 * first to last session's ids (from `session_meta_project`); null when the project has none.
 * Bounds on the id go on the index's rowid, where FTS5 seeks rather than filters.
 */
export function scopeRange(
  db: Db,
  vis: Visibility,
  f: SearchFilters,
): { lo: number; hi: number } | null {
  const b = idBounds(f);
  let lo = b.lo ?? 0;
  let hi = b.hi ?? Number.MAX_SAFE_INTEGER;
  if (vis.project !== null) {
    // a project's turns lie between its first and last session's ids: the read is bounded to
    // that range (FTS5 still walks to it from the newest end: it seeks to neither bound)
    const span = cached(
      db,
      "SELECT min(session_no) AS lo, max(session_no) AS hi FROM session_meta WHERE project = ?",
    ).get(vis.project) as { lo: number | null; hi: number | null };
    if (span.lo === null || span.hi === null) return null;
    lo = Math.max(lo, turnId(span.lo, 0));
    hi = Math.min(hi, turnId(span.hi + 1, 0) - 1);
  }
  return { lo, hi };
}

/**
 * Which clauses are common (their indexes): the clauses scored exactly span fewer than
 * `rule.pages` leaf pages together, since the idf walk reads all of them, and the longest are
 * common first (one that long alone always is). Only an index large enough for a doclist walk
 * to cost has any.
 */
export function commonClauses(
  db: Db,
  clauses: string[],
  rule: CommonRule,
  pages?: (number | null)[],
): Set<number> {
  const common = new Set<number>();
  const segs = pages ? [] : ftsSegments(db);
  const counted = (pages ?? clauses.map((c) => clausePages(db, c, segs)))
    .map((p, i) => ({ i, pages: p }))
    .filter((x): x is { i: number; pages: number } => x.pages !== null)
    .sort((a, b) => b.pages - a.pages || a.i - b.i);
  let exact = counted.reduce((n, x) => n + x.pages, 0);
  for (const x of counted) {
    if (exact < rule.pages) break;
    common.add(x.i);
    exact -= x.pages;
  }
  return common;
}

/**
 * The fewest leaf pages any word of `clauses` spans (`pages` per one-word clause; a phrase's
 * words are counted here, a prefix is none): every match holds that word, so a forward walk of
 * the match is about as long as that word's list. Infinity when no word was counted.
 */
function rarestPages(
  db: Db,
  clauses: string[],
  pages: (number | null)[],
  segs: number[],
): number {
  let fewest = Infinity;
  clauses.forEach((c, i) => {
    const ps = pages[i] !== null ? [pages[i]] : phraseWords(c).map((w) => clausePages(db, w, segs));
    for (const p of ps) if (p !== null && p < fewest) fewest = p;
  });
  return fewest;
}

/** A phrase clause's words, each a clause of its own (`"a b"` -> `"a"`, `"b"`); else none. */
function phraseWords(clause: string): string[] {
  const m = /^"([^"*]+)"$/.exec(clause);
  return m ? m[1].split(" ").filter(Boolean).map((w) => `"${w}"`) : [];
}

/**
 * The candidates for turns found below the read's window by their phrase, those the scope and
 * filters pass, scored as the window's are: BM25 of the clauses not common (every clause when
 * none is), a common one adding nothing to them as to the rest.
 */
function olderSayers(
  db: Db,
  ids: number[],
  where: string[],
  params: (string | number)[],
  clauses: string[],
  common: Set<number>,
  scores: Map<number, number> | null = null,
): Candidate[] {
  const rows = cachedArrays(
    db,
    `SELECT ${CANDIDATE_COLUMNS}
     FROM turns t JOIN sessions s ON s.session_no = t.session_no
       LEFT JOIN session_meta m ON m.session_no = t.session_no
     WHERE t.id IN (SELECT value FROM json_each(?)) AND ${where.join(" AND ")}
     ORDER BY t.id DESC`,
  ).all(JSON.stringify(ids), ...params) as unknown as unknown[][];
  const out = rows.map((r) => toCandidate(r));
  const scored = clauses.filter((_, i) => !common.has(i));
  if (!out.length || !scored.length) return out;
  // the BM25 of every clause, when the read that found them scored it
  const score = scores ?? bm25Of(db, scored, out);
  for (const c of out) c.relevance = score.get(c.id) ?? 0;
  return out;
}

/** FTS5's BM25 of `clauses` for `cands` alone (newest first, each holding every clause). */
function bm25Of(db: Db, clauses: string[], cands: Candidate[]): Map<number, number> {
  return bm25Among(db, clauses.join(" AND "), cands.map((c) => c.id));
}
