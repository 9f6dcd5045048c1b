/**
 * The read paths' SQL: scope, exclusion, search candidates, turns, sessions, observations.
 * Every query that returns archived content takes a `Visibility` so exclusion binds it.
 */
import { cached, cachedArrays, type Db } from "./db.ts";
import { sameBytes } from "../bytes.ts";
import { ENTITY_ACT, SEARCH_COMMON_PAGES, SEARCH_READ_CAP } from "../constants.ts";
import { turnId } from "./ids.ts";
import { ACTIVE_GAP_CAP_SECONDS, TURN_SEQ_SPAN } from "../constants.ts";
import { handleColumns, tagsWhere } from "./sessions_sql.ts";
import { hasHistoryTables, historyHolds } from "./history_sql.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";

export { type Visibility, visibleWhere };

/** Every session row a read may see, subagents' included (search's title weight scales with it). */
export function visibleSessionRows(db: Db, vis: Visibility): number {
  const w = visibleWhere(vis);
  return (db.prepare(
    `SELECT count(*) AS n FROM sessions s LEFT JOIN session_meta m ON m.session_no = s.session_no
     WHERE ${w.sql}`,
  ).get(...w.params) as { n: number }).n;
}

/**
 * The archived project that covers `dir` (a resolved absolute path), by the longest stored
 * path that does: a project, a pre-worktree path (the project it was folded onto), or a project
 * only imported history knows. Each prefix of `dir` that could cover it is looked up by index,
 * longest first, so the cost follows the directory's depth, not how many sessions the store
 * holds (listing every distinct path walked every session's row: 1.2 ms at 4,000 sessions).
 * Where one path files under several projects, the least (SQLite's own order) is taken.
 */
export function projectCovering(db: Db, dir: string): { path: string; project: string } | null {
  const history = hasHistoryTables(db);
  // a store no pass has opened since the worktree index was added: its worktree paths are
  // read in one walk instead of one per prefix, until the next pass makes the index
  const walked = hasIndex(db, "session_meta_pre_worktree") ? null : preWorktreeProjects(db);
  for (const path of coveringPrefixes(dir)) {
    let project: string | null;
    if (walked === null) {
      project = (cached(
        db,
        `SELECT min(p) AS project FROM (
           SELECT (SELECT project FROM session_meta WHERE project = ?1 LIMIT 1) AS p
           UNION ALL SELECT (SELECT min(project) FROM session_meta WHERE project_pre_worktree = ?1))`,
      ).get(path) as { project: string | null }).project;
    } else {
      const own = cached(db, "SELECT project FROM session_meta WHERE project = ? LIMIT 1").get(
        path,
      ) as { project: string } | undefined;
      const folded = walked.get(path);
      project = own && folded !== undefined
        ? (cached(db, "SELECT min(?, ?) AS m").get(own.project, folded) as { m: string }).m
        : own?.project ?? folded ?? null;
    }
    if (project !== null) return { path, project };
    if (history && historyHolds(db, path)) return { path, project: path };
  }
  return null;
}

function hasIndex(db: Db, name: string): boolean {
  return !!cached(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(name);
}

/** Each worktree path the sessions were folded from, with the least project it filed under. */
function preWorktreeProjects(db: Db): Map<string, string> {
  const rows = db.prepare(
    `SELECT project_pre_worktree AS path, min(project) AS project FROM session_meta
     WHERE project_pre_worktree IS NOT NULL AND project IS NOT NULL GROUP BY project_pre_worktree`,
  ).all() as { path: string; project: string }[];
  return new Map(rows.map((r) => [r.path, r.project]));
}

/** Every prefix of `dir` that `covers` it (itself, each parent, each parent with its "/"), longest first. */
export function coveringPrefixes(dir: string): string[] {
  const out = [dir];
  for (let i = dir.length - 1; i >= 0; i--) {
    if (dir[i] !== "/") continue;
    if (i + 1 < dir.length) out.push(dir.slice(0, i + 1));
    if (i > 0) out.push(dir.slice(0, i));
  }
  return out;
}

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

export interface SearchFilters {
  tool?: string | null;
  kind?: string | null;
  paths?: string[];
  since?: string | null;
  until?: string | null;
  /** Only these sessions' turns (the post-compaction window). */
  sessionNo?: number | null;
  /** Only prompts a person typed (see isTyped). */
  prompts?: boolean;
  /** Only turns a hook may quote: prompts and replies, never tool results. */
  quotable?: boolean;
  /** Only turns archived by then (replay: the index as a decision saw it). */
  maxId?: number;
}

const CANDIDATE_COLUMNS = `t.id AS id, t.session_no AS sessionNo, s.session_key AS sessionKey,
  m.project AS project, t.record_type AS recordType, t.ts AS ts, t.is_sidechain AS sidechain,
  t.stream_offset AS streamOffset, t.byte_len AS byteLen, COALESCE(m.is_evicted, 0) AS evicted,
  t.is_tool_result AS isToolResult, t.tool_name AS toolName, t.uuid AS uuid`;

/**
 * A candidate from its row, read as an array of CANDIDATE_COLUMNS' values in their order:
 * node:sqlite builds a row of named columns several times slower than an array, and a fresh
 * process pays most of that on its first statement (a search's 1,000-row read took 15 ms as
 * objects, 6.6 as arrays, at ~3 GB).
 */
function toCandidate(r: unknown[], relevance = 0): Candidate {
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
const AFTER_CANDIDATE = 13;

const positional = new WeakMap<Db, boolean>();

/**
 * Whether the search index keeps positions (derived schema 4 on). A store made by an earlier
 * build keeps none (`detail=column`) until its next pass rebuilds it: FTS5 refuses a phrase
 * there, so a search falls back to its words alone.
 */
export function ftsKeepsPositions(db: Db): boolean {
  let p = positional.get(db);
  if (p === undefined) {
    const r = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'turns_fts'").get() as
      | { sql: string | null }
      | undefined;
    p = !!r?.sql && !/detail\s*=\s*['"]?(column|none)/i.test(r.sql);
    positional.set(db, p);
  }
  return p;
}

/** What a search's candidate read did (for the bounded-read test and the bench). */
export interface CandidateReads {
  /** Rows each bounded read took from the index (at most its cap each). */
  rows: number[];
  /** Whether a read stopped at its cap, so older matches were left unread. */
  capped: boolean;
  /** The clauses scored as common (they add nothing alike; no walk of their doclists). */
  common?: string[];
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
}

/** SQLite's varint, as FTS5 writes its row count and token totals: [value, bytes]. */
function varint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const x = b[at + i];
    if (x === undefined) return [v, i];
    v = v * 128 + (x & 0x7f);
    if (x < 0x80) return [v, i + 1];
  }
  return [v * 256 + (b[at + 8] ?? 0), 9];
}

/** The index's segments (FTS5 keeps few: 8 in the ~3 GB scale store), by their b-tree rows. */
export function ftsSegments(db: Db): number[] {
  const next = cached(
    db,
    "SELECT segid FROM turns_fts_idx WHERE segid > ? ORDER BY segid LIMIT 1",
  );
  const out: number[] = [];
  for (let at = -1;;) {
    const r = next.get(at) as { segid: number } | undefined;
    if (!r) return out;
    out.push(r.segid);
    at = r.segid;
  }
}

/** FTS5's rowid of a segment's leaf page in its data table (fts5_index.c, FTS5_SEGMENT_ROWID). */
const leafRowid = (segid: number, pgno: number) => segid * 2 ** 37 + pgno;

/** The last term that starts on an FTS5 leaf page (its footer lists where each term starts). */
function lastLeafTerm(page: Uint8Array): Uint8Array | null {
  if (page.length < 4) return null;
  const footer = (page[2] << 8) | page[3];
  let at = footer;
  let off = 0;
  const starts: number[] = [];
  while (at < page.length) {
    const [v, n] = varint(page, at);
    if (n === 0) break;
    at += n;
    off += v;
    starts.push(off);
  }
  let term: Uint8Array | null = null;
  starts.forEach((p, i) => {
    if (i === 0) {
      const [len, n] = varint(page, p);
      term = page.subarray(p + n, p + n + len);
    } else {
      const [keep, n1] = varint(page, p);
      const [add, n2] = varint(page, p + n1);
      const t = new Uint8Array(keep + add);
      t.set(term!.subarray(0, keep));
      t.set(page.subarray(p + n1 + n2, p + n1 + n2 + add), keep);
      term = t;
    }
  });
  return term;
}

/**
 * How many leaf pages of the index a one-word clause's doclist spans, from FTS5's own b-tree
 * of leaf pages (`turns_fts_idx`: each page's first term) and, where that says more than one
 * page, the page itself: pages between two b-tree rows hold the last term that starts on the
 * earlier one. That is what a walk of the word reads, found in about 20 small lookups per word
 * whatever the archive's size. A phrase or a prefix (or a word unicode61 would fold beyond
 * lower case) is not counted: null.
 */
export function clausePages(db: Db, clause: string, segs: number[]): number | null {
  const m = /^"([A-Za-z0-9]+)"$/.exec(clause);
  if (!m) return null;
  const key = new TextEncoder().encode("0" + m[1].toLowerCase());
  const below = cached(
    db,
    "SELECT pgno FROM turns_fts_idx WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1",
  );
  const above = cached(
    db,
    "SELECT pgno FROM turns_fts_idx WHERE segid = ? AND term > ? ORDER BY term LIMIT 1",
  );
  const leaf = cached(db, "SELECT block FROM turns_fts_data WHERE id = ?");
  let pages = 0;
  for (const seg of segs) {
    // the b-tree's pgno is the page number times 2, plus a flag: the term has a doclist index
    const lo = (below.get(seg, key) as { pgno: number } | undefined)?.pgno;
    const hi = (above.get(seg, key) as { pgno: number } | undefined)?.pgno;
    if (lo === undefined || hi === undefined) continue;
    const first = Math.floor(lo / 2);
    const next = Math.floor(hi / 2);
    if (next - first < 2) continue;
    const page = (leaf.get(leafRowid(seg, first)) as { block: Uint8Array } | undefined)?.block;
    const last = page ? lastLeafTerm(page) : null;
    if (last && sameBytes(last, key)) pages += next - first;
  }
  return pages;
}

/**
 * The rowids a MATCH holds from `newest` down to `oldest`. FTS5 walks a doclist from one end
 * and seeks to neither bound: forwards from its oldest row (a window of 67k rows of a 359k-row
 * doclist cost the whole walk), or backwards from its newest, stopping when the reader stops
 * (`erk` at ~3 GB, ten rows below a bound: 1.5 ms from the newest end, 9.3 from the middle).
 * So a window in the older half of the index is read forwards in one statement, one in the
 * newer half backwards, stopped at the first row past `oldest` (backwards costs more a row,
 * about twice on the 200 MB store, but walks only from the nearer end).
 */
function heldBetween(db: Db, match: string, oldest: number, newest: number): Set<number> {
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
  // one end each: SQLite answers a lone min() or max() from the b-tree's edge, both at once by a scan
  const lo =
    (cached(db, "SELECT min(id) AS v FROM turns_fts_docsize").get() as { v: number | null })
      .v ?? 0;
  const hi =
    (cached(db, "SELECT max(id) AS v FROM turns_fts_docsize").get() as { v: number | null })
      .v ?? 0;
  return hi <= lo || id - lo < hi - id;
}

/** The rowids `match` holds from `from` to `to`, oldest first (FTS5 walks from its oldest row). */
function upFrom(db: Db, match: string, from: number, to: number): IterableIterator<[number]> {
  return cachedArrays(
    db,
    "SELECT rowid AS id FROM turns_fts WHERE turns_fts MATCH ? AND rowid >= ? AND rowid <= ?",
  ).iterate(match, from, to) as unknown as IterableIterator<[number]>;
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
  const w = visibleWhere(vis);
  const where = [w.sql];
  const params: (string | number)[] = [...w.params];
  if (f.kind) {
    where.push("t.record_type = ?");
    params.push(f.kind);
  }
  if (f.tool) {
    where.push(
      "EXISTS (SELECT 1 FROM entities e WHERE e.turn_id = t.id AND e.kind = 'tool' AND e.value = ?)",
    );
    params.push(f.tool);
  }
  if (f.paths && f.paths.length) {
    where.push(
      `EXISTS (SELECT 1 FROM paths p WHERE p.turn_id = t.id AND p.path IN (${
        f.paths.map(() => "?").join(",")
      }))`,
    );
    params.push(...f.paths);
  }
  if (f.since) {
    where.push("t.ts IS NOT NULL AND t.ts >= ?");
    params.push(f.since);
  }
  if (f.until) {
    where.push("t.ts IS NOT NULL AND t.ts <= ?");
    params.push(f.until);
  }
  if (f.quotable) where.push("t.is_tool_result = 0 AND t.record_type IN ('user', 'assistant')");
  // what a person typed (is_typed): no tool result, compaction summary, harness text or
  // subagent prompt, which Claude Code all files as user records too
  if (f.prompts) where.push("t.is_typed = 1");
  // bounds on the id go on the index's rowid too, where FTS5 seeks rather than filters
  const idLo = f.sessionNo != null ? turnId(f.sessionNo, 0) : null;
  const idHi = f.sessionNo != null ? turnId(f.sessionNo + 1, 0) - 1 : null;
  const maxId = f.maxId !== undefined ? Math.min(f.maxId, idHi ?? Number.MAX_SAFE_INTEGER) : idHi;
  if (clauses === null || clauses.length === 0) {
    if (idLo !== null) {
      where.push("t.id >= ?");
      params.push(idLo);
    }
    if (maxId !== null) {
      where.push("t.id <= ?");
      params.push(maxId);
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
  // a project's turns lie between its first and last session's ids: the read is bounded to that
  // range (FTS5 still walks to it from the newest end: it seeks to neither bound)
  let lo = idLo ?? 0;
  let hi = maxId ?? Number.MAX_SAFE_INTEGER;
  if (vis.project !== null) {
    const span = cached(
      db,
      "SELECT min(session_no) AS lo, max(session_no) AS hi FROM session_meta WHERE project = ?",
    ).get(vis.project) as { lo: number | null; hi: number | null };
    if (span.lo === null || span.hi === null) return [];
    lo = Math.max(lo, turnId(span.lo, 0));
    hi = Math.min(hi, turnId(span.hi + 1, 0) - 1);
  }
  const match = clauses.join(" AND ");
  // which clauses are common: only an index large enough for a doclist walk to cost has any
  const rule = o.common ?? COMMON_RULE;
  const common = new Set<number>();
  const segs = ftsSegments(db);
  // the clauses scored exactly span fewer than `rule.pages` leaf pages together, since the idf
  // walk reads all of them: the longest are common first (one that long alone always is)
  const counted = clauses.map((c, i) => ({ i, pages: clausePages(db, c, segs) }))
    .filter((x): x is { i: number; pages: number } => x.pages !== null)
    .sort((a, b) => b.pages - a.pages || a.i - b.i);
  let exact = counted.reduce((n, x) => n + x.pages, 0);
  for (const x of counted) {
    if (exact < rule.pages) break;
    common.add(x.i);
    exact -= x.pages;
  }
  if (reads && common.size) reads.common = [...common].map((i) => clauses[i]);
  const rows = cachedArrays(
    db,
    `SELECT ${CANDIDATE_COLUMNS}, ${
      common.size ? "0 AS relevance" : "-bm25(turns_fts) AS relevance"
    }
     FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid
       JOIN sessions s ON s.session_no = t.session_no
       LEFT JOIN session_meta m ON m.session_no = t.session_no
     WHERE turns_fts MATCH ? AND turns_fts.rowid >= ? AND turns_fts.rowid <= ?
       AND ${where.join(" AND ")}
     ORDER BY turns_fts.rowid DESC
     LIMIT ?`,
  ).all(match, lo, hi, ...params, readCap) as unknown as unknown[][];
  const cands = rows.map((r) => toCandidate(r, r[AFTER_CANDIDATE] as number));
  const capped = cands.length >= readCap;
  if (reads) {
    reads.rows.push(cands.length);
    if (capped) reads.capped = true;
  }
  if (!cands.length) return cands;
  const newest = cands[0].id;
  if (common.size) {
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
    if (!capped) {
      // every match was read: a turn that says the words in order is among them
      const said = heldBetween(db, o.phrase, oldest, newest);
      if (reads) reads.rows.push(said.size);
      for (const c of cands) if (said.has(c.id)) c.relevance += o.phraseBonus;
    } else {
      // The read stopped at its cap, so it holds only the newest matches: a turn that says the
      // words in order further back would never be ranked, and at a few GB a query of everyday
      // words matches far more than the cap. The phrase's own walk goes on below the window,
      // for up to `pool` turns that say it (they pass the scope and filters like the rest).
      const window = new Set(cands.map((c) => c.id));
      const h = phraseHolders(db, o.phrase, window, oldest, newest, lo, pool);
      if (reads) reads.rows.push(h.said.size);
      for (const c of cands) if (h.said.has(c.id)) c.relevance += o.phraseBonus;
      if (h.below.length) {
        const older = olderSayers(db, h.below, where, params, clauses, common);
        if (reads) reads.rows.push(older.length);
        for (const c of older) c.relevance += o.phraseBonus;
        cands.push(...older);
      }
    }
  }
  return cands.sort(candidateOrder).slice(0, pool);
}

/** The rowids `match` holds, newest first from `newest`, read only as far as the caller steps. */
function downFrom(db: Db, match: string, newest: number): IterableIterator<[number]> {
  return cachedArrays(
    db,
    "SELECT rowid AS id FROM turns_fts WHERE turns_fts MATCH ? AND rowid <= ? ORDER BY rowid DESC",
  ).iterate(match, newest) as unknown as IterableIterator<[number]>;
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
function phraseHolders(
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
  const score = bm25Of(db, scored, out);
  for (const c of out) c.relevance = score.get(c.id) ?? 0;
  return out;
}

/**
 * FTS5's BM25 of `clauses` for `cands` alone (newest first, each holding every clause): read
 * newest first from the newest of them, so only that stretch of each doclist is walked and the
 * LIMIT stops it at the oldest; `+rowid` keeps the id list a filter, not one seek per id.
 */
function bm25Of(db: Db, clauses: string[], cands: Candidate[]): Map<number, number> {
  return new Map(
    cachedArrays(
      db,
      `SELECT rowid AS id, -bm25(turns_fts) AS r FROM turns_fts
       WHERE turns_fts MATCH ? AND rowid <= ? AND +rowid IN (SELECT value FROM json_each(?))
       ORDER BY rowid DESC LIMIT ?`,
    ).all(
      clauses.join(" AND "),
      cands[0].id,
      JSON.stringify(cands.map((c) => c.id)),
      cands.length,
    ) as unknown as [number, number][],
  );
}

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

const candidateOrder = totalOrder<Candidate>((c) => c.id);

export function entitiesOf(db: Db, ids: number[]): Map<number, { kind: string; value: string }[]> {
  const out = new Map<number, { kind: string; value: string }[]>();
  if (ids.length === 0) return out;
  // one statement whatever the count (the ids as JSON), its rows as arrays (see toCandidate)
  const rows = cachedArrays(
    db,
    "SELECT turn_id AS id, kind, value FROM entities WHERE turn_id IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(ids)) as unknown as [number, string, string][];
  for (const [id, kind, value] of rows) {
    let l = out.get(id);
    if (!l) out.set(id, l = []);
    l.push({ kind, value });
  }
  return out;
}

/** N for the entity idf: the archived turn count, summed per session (no scan of turns). */
export function totalTurns(db: Db): number {
  return (db.prepare("SELECT COALESCE(sum(turn_count), 0) AS n FROM session_meta").get() as {
    n: number;
  }).n;
}

/**
 * How many turns carry this entity. A turn stores each (kind, value) once, so a plain count
 * answers from the (kind, value) index alone, without a table lookup per row.
 */
export function entityDf(db: Db, kind: string, value: string, cap?: number): number {
  if (cap !== undefined) {
    // counted no further than `cap`: past it the idf hardly moves, and the hook has 50 ms
    return (cached(
      db,
      "SELECT count(*) AS n FROM (SELECT 1 FROM entities WHERE kind = ? AND value = ? LIMIT ?)",
    ).get(kind, value, cap) as { n: number }).n;
  }
  return (db.prepare(
    "SELECT count(*) AS n FROM entities WHERE kind = ? AND value = ?",
  )
    .get(kind, value) as { n: number }).n;
}

export interface TurnRecord {
  id: number;
  sessionNo: number;
  turnSeq: number;
  sessionKey: string;
  sessionId: string | null;
  project: string | null;
  recordType: string;
  toolName: string | null;
  ts: string | null;
  streamOffset: number;
  byteLen: number;
  evicted: boolean;
  hasMeta: boolean;
  continuesFrom: string | null;
  sidechain: boolean;
  isToolResult: boolean;
  uuid: string | null;
}

const TURN_SQL = `SELECT t.id AS id, t.session_no AS sessionNo, t.turn_seq AS turnSeq,
  s.session_key AS sessionKey, m.session_id AS sessionId, m.project AS project,
  t.record_type AS recordType, t.tool_name AS toolName, t.ts AS ts, t.stream_offset AS streamOffset,
  t.byte_len AS byteLen, COALESCE(m.is_evicted, 0) AS evicted, m.session_no IS NOT NULL AS hasMeta,
  m.continues_from AS continuesFrom, t.is_sidechain AS sidechain, t.is_tool_result AS isToolResult,
  t.uuid AS uuid
  FROM turns t JOIN sessions s ON s.session_no = t.session_no
  LEFT JOIN session_meta m ON m.session_no = t.session_no`;

function toTurn(r: Record<string, unknown>): TurnRecord {
  return {
    id: r.id as number,
    sessionNo: r.sessionNo as number,
    turnSeq: r.turnSeq as number,
    sessionKey: r.sessionKey as string,
    sessionId: (r.sessionId as string | null) ?? null,
    project: (r.project as string | null) ?? null,
    recordType: r.recordType as string,
    toolName: (r.toolName as string | null) ?? null,
    ts: (r.ts as string | null) ?? null,
    streamOffset: r.streamOffset as number,
    byteLen: r.byteLen as number,
    evicted: r.evicted === 1,
    hasMeta: r.hasMeta === 1,
    continuesFrom: (r.continuesFrom as string | null) ?? null,
    sidechain: r.sidechain === 1,
    isToolResult: r.isToolResult === 1,
    uuid: (r.uuid as string | null) ?? null,
  };
}

/** One turn by id, regardless of visibility; the caller decides what it may see. */
export function turnById(db: Db, id: number): TurnRecord | null {
  const r = db.prepare(TURN_SQL + " WHERE t.id = ?").get(id) as Record<string, unknown> | undefined;
  return r ? toTurn(r) : null;
}

/** Whether a session passes the visibility rule. */
export function sessionVisible(db: Db, sessionNo: number, vis: Visibility): boolean {
  const w = visibleWhere(vis);
  return !!db.prepare(
    `SELECT 1 FROM sessions s LEFT JOIN session_meta m ON m.session_no = s.session_no
     WHERE s.session_no = ? AND ${w.sql}`,
  ).get(sessionNo, ...w.params);
}

/** Turns of one session with turn_seq in [from, to]. */
export function turnsInRange(db: Db, sessionNo: number, from: number, to: number): TurnRecord[] {
  return (db.prepare(TURN_SQL + " WHERE t.id BETWEEN ? AND ? ORDER BY t.id").all(
    turnId(sessionNo, Math.max(0, from)),
    turnId(sessionNo, Math.max(0, to)),
  ) as Record<string, unknown>[]).map(toTurn);
}

export function sessionTurnCount(db: Db, sessionNo: number): number {
  return (db.prepare("SELECT count(*) AS n FROM turns WHERE session_no = ?").get(sessionNo) as {
    n: number;
  }).n;
}

export interface SessionRow {
  session_key: string;
  session_no: number;
  session_id: string | null;
  /** The first working directory the session's records named. */
  cwd: string | null;
  project: string | null;
  project_pre_worktree: string | null;
  branch: string | null;
  first_turn_at: string | null;
  last_turn_at: string | null;
  turns: number;
  watermark: number | null;
  sidecar: boolean;
  evicted: boolean;
  /** Where the transcript was archived from (Claude Code may have deleted it since). */
  transcript_path: string | null;
  /** Active time (activeSeconds); null when not asked for or the session has no timed turn. */
  active_seconds: number | null;
  /** The session's name and transcript titles, for the title's priority order. */
  name: string | null;
  custom_title: string | null;
  ai_title: string | null;
  summary: string | null;
  first_prompt: string | null;
  tags: string[];
}

export interface SessionFilters {
  since?: string | null;
  until?: string | null;
  limit?: number | null;
  /** Every one of these tags must be on the session. */
  tags?: string[];
  /** Only this session. */
  sessionNo?: number;
  /** Only the subagent sessions of this session key. */
  parentKey?: string;
  /**
   * "newest" (the default): by first turn, newest first, as a person reads a list;
   * "number": by session_no, the order the JSON contract names. `limit` keeps the first n.
   */
  order?: "newest" | "number";
  /** False skips the active-time query (the browser's list, redrawn on every key, shows none). */
  durations?: boolean;
}

/**
 * Each session's active time in whole seconds: the gaps between its consecutive turns, each
 * capped at `capSeconds`, summed, so a session resumed months later is not months long. A
 * session whose first and last turn are at most the cap apart has no gap to cap: its active
 * time is that span, read off the row, and only the longer ones read their turns' times (by
 * id range: a session's turn ids are contiguous).
 */
export function activeSeconds(
  db: Db,
  sessions: { session_no: number; first_turn_at: string | null; last_turn_at: string | null }[],
  capSeconds: number,
): Map<number, number> {
  const out = new Map<number, number>();
  const cap = capSeconds * 1000;
  const times = db.prepare(
    "SELECT ts FROM turns WHERE id >= ? AND id < ? AND ts IS NOT NULL ORDER BY id",
  );
  for (const r of sessions) {
    if (r.first_turn_at === null || r.last_turn_at === null) continue;
    const span = Date.parse(r.last_turn_at) - Date.parse(r.first_turn_at);
    if (!Number.isFinite(span)) continue;
    if (span <= cap) {
      out.set(r.session_no, Math.round(Math.max(0, span) / 1000));
      continue;
    }
    let prev = NaN;
    let sum = 0;
    const from = r.session_no * TURN_SEQ_SPAN;
    for (const t of times.all(from, from + TURN_SEQ_SPAN) as { ts: string }[]) {
      const at = Date.parse(t.ts);
      if (Number.isNaN(at)) continue;
      if (!Number.isNaN(prev)) sum += Math.min(Math.max(at - prev, 0), cap);
      prev = at;
    }
    out.set(r.session_no, Math.round(sum / 1000));
  }
  return out;
}

/** Visible sessions in `f.order`; `limit` keeps the first n of that order. */
export function listSessions(db: Db, vis: Visibility, f: SessionFilters = {}): SessionRow[] {
  const w = visibleWhere(vis);
  const where = [w.sql];
  const params: (string | number)[] = [...w.params];
  if (f.since) {
    where.push("m.last_turn_at IS NOT NULL AND m.last_turn_at >= ?");
    params.push(f.since);
  }
  if (f.until) {
    where.push("m.first_turn_at IS NOT NULL AND m.first_turn_at <= ?");
    params.push(f.until);
  }
  const h = handleColumns(db);
  if (f.tags && f.tags.length) {
    if (h.join === "") return []; // a store with no tags table has no tagged session
    const t = tagsWhere(f.tags);
    where.push(t.sql);
    params.push(...t.params);
  }
  if (f.sessionNo !== undefined) {
    where.push("s.session_no = ?");
    params.push(f.sessionNo);
  }
  if (f.parentKey !== undefined) {
    where.push("m.parent_session_key = ?");
    params.push(f.parentKey);
  }
  let sql =
    `SELECT s.session_key, s.session_no, m.session_id, m.cwd, m.project, m.project_pre_worktree,
      m.branch, m.first_turn_at, m.last_turn_at,
      (SELECT count(*) FROM turns t WHERE t.session_no = s.session_no) AS turns,
      w.offset AS watermark, m.parent_session_key IS NOT NULL AS sidecar,
      COALESCE(m.is_evicted, 0) AS evicted, m.transcript_path, ${h.select}
    FROM sessions s LEFT JOIN session_meta m ON m.session_no = s.session_no
      LEFT JOIN watermarks w ON w.session_no = s.session_no ${h.join}
    WHERE ${where.join(" AND ")}
    ORDER BY ${
      f.order === "number"
        ? "s.session_no"
        : "m.first_turn_at IS NULL, m.first_turn_at DESC, s.session_no DESC"
    }`;
  if (f.limit != null) {
    sql += " LIMIT ?";
    params.push(f.limit);
  }
  const n = (v: unknown) => (v as string | null) ?? null;
  const rows = db.prepare(sql).all(...params) as Record<string, unknown>[];
  const active = f.durations === false ? new Map<number, number>() : activeSeconds(
    db,
    rows as { session_no: number; first_turn_at: string | null; last_turn_at: string | null }[],
    ACTIVE_GAP_CAP_SECONDS,
  );
  return rows.map((r) => ({
    session_key: r.session_key as string,
    session_no: r.session_no as number,
    session_id: n(r.session_id),
    cwd: n(r.cwd),
    project: n(r.project),
    project_pre_worktree: n(r.project_pre_worktree),
    branch: n(r.branch),
    first_turn_at: n(r.first_turn_at),
    last_turn_at: n(r.last_turn_at),
    turns: r.turns as number,
    watermark: (r.watermark as number | null) ?? null,
    sidecar: r.sidecar === 1,
    evicted: r.evicted === 1,
    transcript_path: n(r.transcript_path),
    active_seconds: active.get(r.session_no as number) ?? null,
    name: n(r.name),
    custom_title: n(r.custom_title),
    ai_title: n(r.ai_title),
    summary: n(r.summary),
    first_prompt: n(r.first_prompt),
    tags: r.tags ? String(r.tags).split(" ") : [],
  }));
}

/**
 * Sessions a reference could name, regardless of visibility (the caller applies it): by
 * number, by Claude Code session id, by a prefix of the session key, or by transcript path.
 */
export function sessionsMatching(
  db: Db,
  by: {
    no?: number;
    keyPrefix?: string;
    sessionId?: string;
    key?: string;
    path?: string;
    /** A transcript's file name: a top-level key, or a sidecar's last part. */
    fileName?: string;
  },
): number[] {
  const q = (sql: string, ...p: (string | number)[]) =>
    (db.prepare(sql).all(...p) as { n: number }[]).map((r) => r.n);
  if (by.no !== undefined) {
    return q("SELECT session_no AS n FROM sessions WHERE session_no = ?", by.no);
  }
  if (by.key !== undefined) {
    return q("SELECT session_no AS n FROM sessions WHERE session_key = ?", by.key);
  }
  if (by.path !== undefined) {
    return q("SELECT session_no AS n FROM session_meta WHERE transcript_path = ?", by.path);
  }
  if (by.fileName !== undefined) {
    const tail = "/" + by.fileName;
    return q(
      `SELECT session_no AS n FROM sessions
       WHERE session_key = ? OR substr(session_key, -?) = ? ORDER BY session_no`,
      by.fileName,
      tail.length,
      tail,
    );
  }
  const out = new Set<number>();
  if (by.keyPrefix !== undefined) {
    // a top-level key is `<uuid>.jsonl`; a sidecar's starts with its parent's id and a slash
    for (
      const n of q(
        "SELECT session_no AS n FROM sessions WHERE substr(session_key, 1, ?) = ? AND instr(session_key, '/') = 0",
        by.keyPrefix.length,
        by.keyPrefix,
      )
    ) out.add(n);
  }
  if (by.sessionId !== undefined) {
    for (
      const n of q(
        "SELECT session_no AS n FROM session_meta WHERE session_id = ? AND parent_session_key IS NULL",
        by.sessionId,
      )
    ) out.add(n);
  }
  return [...out].sort((a, b) => a - b);
}

export interface ObservationRow {
  sessionNo: number;
  sessionKey: string;
  sessionId: string | null;
  generatedAt: string | null;
  mechanical: string | null;
  branch: string | null;
  project: string | null;
  lastTurnAt: string | null;
  evicted: boolean;
  hasMeta: boolean;
}

/** Observed sessions visible to `vis`, in ingest order; `since` bounds last_turn_at. */
export function listObservations(
  db: Db,
  vis: Visibility,
  since: string | null = null,
): ObservationRow[] {
  const w = visibleWhere(vis);
  const where = [w.sql];
  const params: string[] = [...w.params];
  if (since) {
    where.push("m.last_turn_at IS NOT NULL AND m.last_turn_at >= ?");
    params.push(since);
  }
  return (db.prepare(
    `SELECT o.session_no AS sessionNo, s.session_key AS sessionKey, m.session_id AS sessionId,
       o.generated_at AS generatedAt, o.mechanical AS mechanical, m.branch AS branch,
       m.project AS project, m.last_turn_at AS lastTurnAt, COALESCE(m.is_evicted, 0) AS evicted,
       m.session_no IS NOT NULL AS hasMeta
     FROM observations o JOIN sessions s ON s.session_no = o.session_no
       LEFT JOIN session_meta m ON m.session_no = o.session_no
     WHERE ${where.join(" AND ")} ORDER BY o.session_no`,
  ).all(...params) as Record<string, unknown>[]).map((r) => ({
    sessionNo: r.sessionNo as number,
    sessionKey: r.sessionKey as string,
    sessionId: (r.sessionId as string | null) ?? null,
    generatedAt: (r.generatedAt as string | null) ?? null,
    mechanical: (r.mechanical as string | null) ?? null,
    project: (r.project as string | null) ?? null,
    branch: (r.branch as string | null) ?? null,
    lastTurnAt: (r.lastTurnAt as string | null) ?? null,
    evicted: r.evicted === 1,
    hasMeta: r.hasMeta === 1,
  }));
}

/** One exact key of prompt recall's lookup: a stored entity's kind and value. */
export interface StructuralKey {
  kind: "path" | "symbol" | "command";
  value: string;
}

/** A candidate with the strongest way (ENTITY_ACT) it touched the key it was read by. */
export type ActedCandidate = Candidate & { act: number };

/**
 * Prompt recall's candidates for one key: quotable turns (prompts and replies, never tool
 * results) carrying an entity equal to it. The index on (kind, value, act, turn_id DESC) is
 * walked in its own order, direct actions first and then newest, and at most `cap` rows are
 * read from it, however many turns carry the key; visibility is applied to those. With a
 * `beforeTs` bound (the bench's replay) rows after it are skipped inside the walk instead.
 */
export function structuralCandidates(
  db: Db,
  key: StructuralKey,
  vis: Visibility,
  bound: { maxId?: number; beforeTs?: string },
  cap: number,
): ActedCandidate[] {
  const w = visibleWhere(vis);
  const inner: (string | number)[] = [key.kind, key.value, ENTITY_ACT.unquotable];
  let join = "";
  let extra = "";
  if (bound.beforeTs !== undefined) {
    join = " JOIN turns tb ON tb.id = e.turn_id";
    extra += " AND tb.ts IS NOT NULL AND tb.ts < ?";
    inner.push(bound.beforeTs);
  }
  if (bound.maxId !== undefined) {
    extra += " AND e.turn_id <= ?";
    inner.push(bound.maxId);
  }
  inner.push(cap);
  if (!hasActColumn(db)) return []; // a store from before schema 4: its first pass upgrades it
  const rows = cachedArrays(
    db,
    `SELECT ${CANDIDATE_COLUMNS}, x.act AS act
     FROM (SELECT e.turn_id AS turn_id, e.act AS act FROM entities e${join}
           WHERE e.kind = ? AND e.value = ? AND e.act < ?${extra}
           ORDER BY e.act, e.turn_id DESC LIMIT ?) x
       JOIN turns t ON t.id = x.turn_id
       JOIN sessions s ON s.session_no = t.session_no
       LEFT JOIN session_meta m ON m.session_no = t.session_no
     WHERE ${w.sql} AND t.is_tool_result = 0 AND t.record_type IN ('user', 'assistant')
     ORDER BY x.act, x.turn_id DESC`,
  ).all(...inner, ...w.params) as unknown as unknown[][];
  return rows.map((r) => ({ ...toCandidate(r), act: r[AFTER_CANDIDATE] as number }));
}

const actColumn = new WeakMap<Db, boolean>();

/** Whether the store has schema 4's `entities.act` (and `path_names`), asked once per handle. */
function hasActColumn(db: Db): boolean {
  let v = actColumn.get(db);
  if (v === undefined) {
    v = (db.prepare("SELECT count(*) AS n FROM pragma_table_info('entities') WHERE name = 'act'")
      .get() as { n: number }).n > 0;
    actColumn.set(db, v);
  }
  return v;
}

/** Stored paths that have `name` as one of their parts (path_names), at most `limit`. */
export function pathsNamed(db: Db, name: string, limit: number): string[] {
  if (!hasActColumn(db)) return [];
  return (cached(db, "SELECT path FROM path_names WHERE name = ? LIMIT ?").all(name, limit) as {
    path: string;
  }[]).map((r) => r.path);
}

/** How many sessions the visible scope holds (the base of "too common to fire alone"). */
export function visibleSessionCount(db: Db, vis: Visibility): number {
  const w = visibleWhere(vis);
  return (cached(
    db,
    `SELECT count(*) AS n FROM session_meta m WHERE m.parent_session_key IS NULL AND ${w.sql}`,
  ).get(...w.params) as { n: number }).n;
}

/** Which of these uuids a turn of these sessions carries (history a resumed file copied in). */
export function uuidsIn(db: Db, sessionNos: number[], uuids: string[]): Set<string> {
  if (!sessionNos.length || !uuids.length) return new Set();
  const rows = db.prepare(
    `SELECT DISTINCT uuid FROM turns WHERE uuid IN (${uuids.map(() => "?").join(",")})
       AND session_no IN (${sessionNos.map(() => "?").join(",")})`,
  ).all(...uuids, ...sessionNos) as { uuid: string }[];
  return new Set(rows.map((r) => r.uuid));
}
