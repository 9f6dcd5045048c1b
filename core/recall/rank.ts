/**
 * Ranking. `rank` is the one search (`terminus search`, recall_search): FTS5 BM25 candidates,
 * plus a bonus for entities whose words the query covers (a ranking signal only), in the spec's
 * total order; excerpts are cut later, for the hits that survive the limit.
 *
 * `structuralRank` is prompt recall's lookup: candidates come from exact entity keys (see
 * structural.ts), each keeps only the entities that really are what the prompt named, and those
 * matches rank them. No word overlap decides what may be handed over.
 */
import type { Db } from "../store/db.ts";
import {
  type Candidate,
  entitiesOf,
  entityDf,
  ftsKeepsPositions,
  searchCandidates,
  type SearchFilters,
  structuralCandidates,
  totalTurns,
  type Visibility,
} from "../store/query.ts";
import {
  byKindValue,
  canonicalPath,
  isPathSpelling,
  type Matched,
  matchTurn,
  pathKeys,
} from "./structural.ts";
import { RECALL_POOL_PER_NAME, SEARCH_POOL } from "../constants.ts";
import { type Query, tokens } from "./query.ts";

export interface Hit {
  turn_id: number;
  /** The session's number and title (filled by the search, not by the ranking). */
  session_no: number;
  title: string | null;
  session_key: string;
  project: string | null;
  record_type: string;
  ts: string | null;
  sidechain: boolean;
  relevance: number;
  entity_score: number;
  matched_on: { kind: string; value: string }[];
  excerpt: string;
  /** Not in the documents: whether the excerpt left text out before and after it. */
  clipped: { start: boolean; end: boolean };
  /** Not in the documents: for the injection path. */
  candidate: Candidate;
}

/** The entity bonus per matched entity, times its idf: the quality bench chose them. */
export const ENTITY_WEIGHTS = { exact: 1.0, covered: 0.5 };
/** What saying the query's words in order adds to BM25 (chosen by the quality bench). */
export const PHRASE_BONUS = 10;
/** Prompt recall's weight per structural match (its thresholds were set against it). */
const STRUCTURAL_WEIGHT = 2.0;

export function compareHits(
  a: { relevance: number; sidechain: boolean; ts: string | null; turn_id: number },
  b: { relevance: number; sidechain: boolean; ts: string | null; turn_id: number },
): number {
  if (a.relevance !== b.relevance) return b.relevance - a.relevance;
  if (a.sidechain !== b.sidechain) return a.sidechain ? 1 : -1;
  if (a.ts !== b.ts) {
    if (a.ts === null) return 1;
    if (b.ts === null) return -1;
    return a.ts < b.ts ? 1 : -1;
  }
  return a.turn_id - b.turn_id;
}

export interface SearchArgs {
  query: Query;
  vis: Visibility;
  filters: SearchFilters;
  limit: number;
  /** How many ranked candidates to consider (the pool). */
  pool?: number;
  /** With no words, select by the filters alone, newest first. */
  byTime?: boolean;
  /** The entity bonus's weights (the quality bench tries others); ENTITY_WEIGHTS by default. */
  weights?: { exact: number; covered: number };
  /** Added to a turn that says the query's words in order; PHRASE_BONUS by default. */
  phraseBonus?: number;
}

/** `ln(1 + N/df)` per (kind, value), each looked up once; N is read only when first needed. */
function idfOf(db: Db): (kind: string, value: string) => number {
  let n = -1;
  const cache = new Map<string, number>();
  return (kind, value) => {
    const key = kind + "\u0000" + value;
    let idf = cache.get(key);
    if (idf === undefined) {
      if (n < 0) n = totalTurns(db);
      idf = Math.log(1 + n / Math.max(1, entityDf(db, kind, value)));
      cache.set(key, idf);
    }
    return idf;
  };
}

/**
 * Ranked hits without excerpts: no block is read, so the hook path can use it. With
 * `byTime` and no words, the filters alone select and the newest turns come first.
 */
export function rank(db: Db, a: SearchArgs): Hit[] {
  if (!a.query.match && !a.byTime) return [];
  const pool = a.query.match ? a.pool ?? SEARCH_POOL : a.limit;
  // an index made before positions were kept again answers the words alone
  const positions = a.query.match === null || ftsKeepsPositions(db);
  const cands = searchCandidates(
    db,
    positions ? a.query.match : a.query.wordsMatch,
    a.vis,
    a.filters,
    pool,
    positions ? a.query.phrase : null,
    a.phraseBonus ?? PHRASE_BONUS,
  );
  if (cands.length === 0) return [];
  const ents = entitiesOf(db, cands.map((c) => c.id));
  const groups = a.query.groups.map((g) => new Set(g));
  const idf = idfOf(db);
  const w = a.weights ?? ENTITY_WEIGHTS;
  const hits: Hit[] = cands.map((c) => {
    let score = 0;
    const matched: Matched[] = [];
    for (const e of ents.get(c.id) ?? []) {
      const vt = [...new Set(tokens(e.value).map((t) => t.toLowerCase()))];
      if (vt.length === 0) continue;
      const within = groups.filter((g) => vt.every((t) => g.has(t)));
      if (within.length === 0) continue;
      const exact = within.some((g) => g.size === vt.length);
      score += (exact ? w.exact : w.covered) * idf(e.kind, e.value);
      matched.push({ kind: e.kind, value: e.value });
    }
    matched.sort(byKindValue);
    return hitFrom(c, c.relevance + score, score, matched);
  });
  if (a.query.match) hits.sort(compareHits); // else already newest first
  return hits.slice(0, a.limit);
}

export interface StructuralArgs {
  spellings: string[];
  vis: Visibility;
  maxId?: number;
  /** Only turns from before this time (the bench replays prompts against their past). */
  beforeTs?: string;
  limit: number;
}

/**
 * Prompt recall's ranked hits: only quotable turns with at least one structural match, scored
 * by their idf-weighted structural matches (rarer things named count more), then in the
 * spec's order (main thread before subagents, newer first). BM25 is left out here: every
 * candidate already carries what the prompt named, and scoring FTS5 over a few hundred given
 * rowids cost up to 1.8 s on a real store, far past the hook's 50 ms.
 */
export function structuralRank(db: Db, a: StructuralArgs): Hit[] {
  const paths = new Set<string>();
  const pathTails: string[] = [];
  const identifiers: string[] = [];
  for (const s of a.spellings) {
    if (isPathSpelling(s)) {
      for (const k of pathKeys(s)) paths.add(k);
      const c = canonicalPath(s);
      if (!c.startsWith("/")) pathTails.push(c);
    } else identifiers.push(s);
  }
  const cands = structuralCandidates(
    db,
    { paths: [...paths], pathTails, identifiers },
    a.vis,
    { maxId: a.maxId, beforeTs: a.beforeTs },
    RECALL_POOL_PER_NAME,
  );
  if (!cands.length) return [];
  const ents = entitiesOf(db, cands.map((c) => c.id));
  const idf = idfOf(db);
  const hits: Hit[] = [];
  for (const c of cands) {
    const m = matchTurn(ents.get(c.id) ?? [], a.spellings);
    if (!m.matched.length) continue;
    let score = 0;
    for (const e of m.matched) score += STRUCTURAL_WEIGHT * idf(e.kind, e.value);
    hits.push(hitFrom(c, score, score, m.matched));
  }
  hits.sort(compareHits);
  return hits.slice(0, a.limit);
}

/** A hit for a candidate turn, its excerpt (and title) filled in later. */
function hitFrom(c: Candidate, relevance: number, score: number, matched: Hit["matched_on"]): Hit {
  return {
    turn_id: c.id,
    session_no: c.sessionNo,
    title: null,
    session_key: c.sessionKey,
    project: c.project,
    record_type: c.recordType,
    ts: c.ts,
    sidechain: c.sidechain,
    relevance,
    entity_score: score,
    matched_on: matched,
    excerpt: "",
    clipped: { start: false, end: false },
    candidate: c,
  };
}

/** The JSON form of a hit (without the internal candidate). */
export function hitDoc(h: Hit, withMatched: boolean): Record<string, unknown> {
  const d: Record<string, unknown> = {
    turn_id: h.turn_id,
    session_no: h.session_no,
    title: h.title,
    session_key: h.session_key,
    project: h.project,
    record_type: h.record_type,
    ts: h.ts,
    sidechain: h.sidechain,
    relevance: h.relevance,
    entity_score: h.entity_score,
    excerpt: h.excerpt,
  };
  if (withMatched) d.matched_on = h.matched_on;
  return d;
}
