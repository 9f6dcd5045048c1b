/**
 * Search's further answers (docs/design/search.md, "Further answers"), after the spec's own
 * (turns holding every word, rank.ts): the sessions that hold every word across their turns,
 * each shown by the turns that hold them, and, when nothing holds every word, the turns that
 * hold any of them ranked by BM25, so a rare word counts for much and `why`, `did`, `we` for
 * almost nothing. Every read is bounded (TIER_READ_CAP rows a word, counted inside SQLite) and
 * made only when a further answer is wanted.
 */
import type { Db } from "../store/db.ts";
import { COMMON_RULE, commonClauses, scopeRange } from "../store/search_candidates.ts";
import { bm25Among } from "../store/fts_walks.ts";
import { type Candidate } from "../store/candidate.ts";
import {
  candidatesByIds,
  clauseRowsUpTo,
  clauseScoresIn,
  type ClauseTurns,
  clauseTurns,
  sessionsBetween,
} from "../store/further_reads.ts";
import { totalTurns } from "../store/entities_sql.ts";
import { ftsKeepsPositions } from "../store/fts_pages.ts";
import {
  TIER_ANY_HELD_WEIGHT,
  TIER_ANY_POOL,
  TIER_EXCUSE_SHARE,
  TIER_READ_CAP,
  TIER_SESSION_TURNS,
  TIER_SESSIONS_SCORED,
  TURN_SEQ_SPAN,
} from "../constants.ts";
import { compareHits, type Hit, type SearchArgs, withEntities } from "./rank.ts";

/** What each word's bounded read found. */
export interface WordReads {
  clauses: string[];
  /** Per clause: the turns holding it in the scope (none read for a frequent one). */
  reads: ClauseTurns[];
  /** Per clause: the sessions holding it, with their count of its turns. */
  sessions: Map<number, number>[];
  /** Per clause: ln(1 + N / its rows), N the archive's turns. */
  idf: number[];
  /**
   * Per clause: common by the first answer's rule (COMMON_RULE: its doclist spans many of the
   * index's pages), so BM25, whose idf walks that whole doclist, is not asked for it.
   */
  common: boolean[];
  /**
   * Per clause: read, but held by at least TIER_EXCUSE_SHARE of the scope's sessions, so not
   * required of a session (it tells none apart); it still scores where it is held.
   */
  excused: boolean[];
}

const sessionOf = (id: number) => Math.floor(id / TURN_SEQ_SPAN);

/** One bounded read per clause: its rows when they are at most TIER_READ_CAP. */
export function readWords(db: Db, a: SearchArgs): WordReads | null {
  if (!a.query.match) return null;
  const clauses = ftsKeepsPositions(db) ? a.query.clauses : a.query.wordClauses;
  const range = scopeRange(db, a.vis, a.filters);
  if (range === null) return null;
  const reads = clauses.map((c) => clauseTurns(db, c, range.lo, range.hi, TIER_READ_CAP));
  const sessions = reads.map((r) => {
    const m = new Map<number, number>();
    for (const id of r.ids) m.set(sessionOf(id), (m.get(sessionOf(id)) ?? 0) + 1);
    return m;
  });
  const n = Math.max(1, totalTurns(db));
  const idf = reads.map((r) => Math.log(1 + n / Math.max(1, r.rows)));
  const commonSet = commonClauses(db, clauses, a.common ?? COMMON_RULE);
  const common = clauses.map((_, i) => commonSet.has(i));
  const share = a.excuseShare ?? TIER_EXCUSE_SHARE;
  // the scope's sessions, counted once and only when some word was read
  let inScope = -1;
  const excused = reads.map((r, i) => {
    if (r.frequent || sessions[i].size === 0) return false;
    if (inScope < 0) inScope = sessionsBetween(db, range.lo, range.hi);
    return sessions[i].size >= share * inScope;
  });
  return { clauses, reads, sessions, idf, common, excused };
}

/** Whether session `s` holds clause `i`: a turn of it does, or the word is frequent. */
function holds(r: WordReads, i: number, s: number): boolean {
  return r.reads[i].frequent || r.sessions[i].has(s);
}

/**
 * Whether `s` counts as holding every word: it holds each, or lacks only excused ones while it
 * holds a word that tells sessions apart (so words every session may lack never make one).
 */
function holdsEvery(r: WordReads, s: number): boolean {
  let lacks = false;
  let apart = false;
  for (let i = 0; i < r.clauses.length; i++) {
    if (holds(r, i, s)) apart ||= !r.reads[i].frequent && !r.excused[i];
    else if (r.excused[i]) lacks = true;
    else return false;
  }
  return !lacks || apart;
}

/**
 * Sessions holding every word across their turns, best first, none of `skip`; each shown by the
 * turns that together hold the words (the most words first, then the highest BM25), at most
 * TIER_SESSION_TURNS, that pass the scope and filters; `want` hits at most.
 *
 * A session holds a word when a turn of it does; a word held by more than TIER_READ_CAP turns
 * of the scope is frequent, taken as held by every session, and neither read nor scored. The
 * sessions are first ordered by the words' idf times one plus the log of their count in each;
 * the best TIER_SESSIONS_SCORED are then scored by the sum over the other words of the BM25 of
 * their best turn for that word, plus the best entity bonus among the turns shown, and each
 * hit carries its session's score as relevance.
 */
export function sessionHits(
  db: Db,
  a: SearchArgs,
  r: WordReads,
  skip: Set<number>,
  want: number,
): Hit[] {
  const k = r.clauses.length;
  if (want <= 0 || k === 0) return [];
  const seen = new Set<number>();
  for (const m of r.sessions) for (const s of m.keys()) if (!skip.has(s)) seen.add(s);
  const holding: { s: number; v: number }[] = [];
  for (const s of seen) {
    if (!holdsEvery(r, s)) continue;
    let v = 0;
    for (let i = 0; i < k; i++) {
      if (holds(r, i, s)) v += r.idf[i] * (1 + Math.log(r.sessions[i].get(s) ?? 1));
    }
    holding.push({ s, v });
  }
  if (!holding.length) return [];
  holding.sort((x, y) => y.v - x.v || y.s - x.s);
  const top = holding.slice(0, Math.max(TIER_SESSIONS_SCORED, want)).map((h) => h.s);
  // each turn of those sessions holding a fully read word: the words and their BM25
  const turns = new Map<number, { score: number; holds: Set<number> }>();
  const best = new Map<number, Float64Array>(top.map((s) => [s, new Float64Array(k)]));
  r.clauses.forEach((c, i) => {
    // a frequent word is held, but neither scored nor walked; a common one is not scored
    if (r.reads[i].frequent || r.common[i]) return;
    for (const [id, score] of clauseScoresIn(db, c, top, TIER_READ_CAP)) {
      let t = turns.get(id);
      if (!t) turns.set(id, t = { score: 0, holds: new Set() });
      t.score += score;
      t.holds.add(i);
      const b = best.get(sessionOf(id))!;
      if (score > b[i]) b[i] = score;
    }
  });
  const bySession = new Map<number, number[]>();
  for (const id of turns.keys()) {
    const l = bySession.get(sessionOf(id)) ?? [];
    l.push(id);
    bySession.set(sessionOf(id), l);
  }
  // every session's picks fetched at once; a session whose pick the scope or filters refuse
  // gives way to its other turns that pass
  const picks = new Map(top.map((s) => [s, cover(bySession.get(s) ?? [], turns, k)]));
  const cands = new Map(
    candidatesByIds(db, [...picks.values()].flat(), a.vis, a.filters).map((c) => [c.id, c]),
  );
  const chosenOf = new Map<number, Candidate[]>();
  const all: Candidate[] = [];
  for (const s of top) {
    const ids = bySession.get(s) ?? [];
    let pick = picks.get(s)!;
    if (pick.some((id) => !cands.has(id))) {
      const rest = candidatesByIds(db, ids.filter((id) => !pick.includes(id)), a.vis, a.filters);
      for (const c of rest) cands.set(c.id, c);
      pick = cover(ids.filter((id) => cands.has(id)), turns, k);
    }
    const chosen = pick.map((id) => cands.get(id)).filter((c): c is Candidate => !!c);
    for (const c of chosen) c.relevance = turns.get(c.id)!.score;
    chosenOf.set(s, chosen);
    all.push(...chosen);
  }
  // the entity bonus of every turn shown, in one read of their entities
  const withEnt = new Map(withEntities(db, all, a.query, a.weights).map((h) => [h.turn_id, h]));
  const scored: { score: number; hits: Hit[] }[] = [];
  for (const s of top) {
    const hits = chosenOf.get(s)!.map((c) => withEnt.get(c.id)!);
    if (!hits.length) continue;
    const b = best.get(s)!;
    let score = 0;
    for (let i = 0; i < k; i++) score += b[i];
    scored.push({ score: score + Math.max(...hits.map((h) => h.entity_score)), hits });
  }
  scored.sort((x, y) => y.score - x.score);
  const out: Hit[] = [];
  for (const { score, hits } of scored) {
    for (const h of hits) {
      if (out.length >= want) return out;
      h.relevance = score;
      h.match = "all_words_session";
      out.push(h);
    }
  }
  return out;
}

/**
 * The turns of one session that together hold the most words: greedily, the turn adding the
 * most words not yet held, then the highest BM25, at most TIER_SESSION_TURNS.
 */
function cover(
  ids: number[],
  turns: Map<number, { score: number; holds: Set<number> }>,
  k: number,
): number[] {
  const left = new Set(Array.from({ length: k }, (_, i) => i));
  const out: number[] = [];
  const pool = new Set(ids);
  while (out.length < TIER_SESSION_TURNS && pool.size) {
    let pick = -1;
    let gain = -1;
    let score = -Infinity;
    for (const id of pool) {
      const t = turns.get(id)!;
      let g = 0;
      for (const i of t.holds) if (left.has(i)) g++;
      if (g > gain || (g === gain && (t.score > score || (t.score === score && id > pick)))) {
        pick = id;
        gain = g;
        score = t.score;
      }
    }
    if (gain <= 0 && out.length) break;
    out.push(pick);
    pool.delete(pick);
    for (const i of turns.get(pick)!.holds) left.delete(i);
    if (left.size === 0) break;
  }
  return out;
}

/**
 * The `n` ids with the highest sums, the higher id first among equals: the first `n` of every
 * entry sorted so, without sorting the 10-20 thousand turns a long question's words hold to keep
 * 50 of them (8-12 ms at ~3 GB).
 */
export function bestIds(sum: Map<number, number>, n: number): number[] {
  const top: [number, number][] = [];
  const before = (x: [number, number], y: [number, number]) =>
    x[1] > y[1] || (x[1] === y[1] && x[0] > y[0]);
  for (const e of sum) {
    if (top.length === n && !before(e, top[n - 1])) continue;
    let i = top.length - 1;
    while (i >= 0 && before(e, top[i])) i--;
    top.splice(i + 1, 0, e);
    if (top.length > n) top.pop();
  }
  return top.map(([id]) => id);
}

/**
 * Turns holding any of the words, best first, `limit` at most: the TIER_ANY_POOL turns whose
 * words' idf add up highest, then ranked by FTS5's BM25 of those words joined by OR (BM25 adds
 * up over them: a rare word counts for much), plus TIER_ANY_HELD_WEIGHT times that idf sum (a
 * turn holding more of the rare words outranks a shorter one holding fewer), plus the entity
 * bonus, in the spec's total order.
 * A frequent word is left out: it would weigh next to nothing (unless every word is one; then
 * each is read up to TIER_READ_CAP rows, in FTS5's order).
 */
export function anyWordHits(
  db: Db,
  a: SearchArgs,
  r: WordReads,
  limit: number,
): Hit[] {
  let used = r.clauses.map((_, i) => i).filter((i) => !r.reads[i].frequent);
  let reads = r.reads;
  if (!used.length) {
    const range = scopeRange(db, a.vis, a.filters)!;
    reads = r.clauses.map((c) => {
      const ids = clauseRowsUpTo(db, c, range.lo, range.hi, TIER_READ_CAP);
      return { ids, rows: ids.length, frequent: false };
    });
    used = r.clauses.map((_, i) => i);
  }
  const sum = new Map<number, number>();
  for (const i of used) for (const id of reads[i].ids) sum.set(id, (sum.get(id) ?? 0) + r.idf[i]);
  if (!sum.size) return [];
  const ids = bestIds(sum, TIER_ANY_POOL);
  const scored = used.filter((i) => !r.common[i]).map((i) => r.clauses[i]);
  const bm25 = scored.length ? bm25Among(db, scored.join(" OR "), ids) : new Map<number, number>();
  const cands = candidatesByIds(db, ids, a.vis, a.filters);
  for (const c of cands) {
    c.relevance = (bm25.get(c.id) ?? 0) + TIER_ANY_HELD_WEIGHT * (sum.get(c.id) ?? 0);
  }
  const hits = withEntities(db, cands, a.query, a.weights);
  for (const h of hits) h.match = "any_word";
  return hits.sort(compareHits).slice(0, limit);
}
