/**
 * Ranking. `rank` is the one search (`terminus search`, recall_search): FTS5 BM25 candidates,
 * plus a bonus for entities whose words the query covers (a ranking signal only), in the spec's
 * total order; excerpts are cut later, for the hits that survive the limit. Prompt recall's
 * lookup is its own module (lookup.ts).
 */
import type { Db } from "../store/db.ts";
import {
  editsOfFilesOf,
  entitiesOf,
  entityDf,
  symbolActors,
  totalTurns,
} from "../store/entities_sql.ts";
import {
  type CandidateReads,
  type CommonRule,
  searchCandidates,
  type SearchFilters,
} from "../store/search_candidates.ts";
import { type Candidate, type Ordered, totalOrder } from "../store/candidate.ts";
import { ftsKeepsPositions } from "../store/fts_pages.ts";
import type { Visibility } from "../store/visibility.ts";
import { byKindValue, type Matched } from "./structural.ts";
import {
  DEFINITION_BONUS,
  SEARCH_ACTORS_PER_WORD,
  SEARCH_DEFINED_FILES,
  SEARCH_POOL,
} from "../constants.ts";
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
  /**
   * Which answer the hit belongs to (MatchKind): the spec's every word in one turn, or a
   * further answer added when that one is short or empty. Unset: all_words_turn.
   */
  match?: MatchKind;
  /** Not in the documents: whether the excerpt left text out before and after it. */
  clipped: { start: boolean; end: boolean };
  /** Not in the documents: for the injection path. */
  candidate: Candidate;
}

/**
 * The answers a search gives, in this order (docs/design/search.md, "Further answers"):
 * - `all_words_turn`: turns holding every word (the spec's rule; with filters alone, every
 *   turn they pass);
 * - `all_words_session`: sessions holding every word across their turns, each shown by the
 *   turns that hold them;
 * - `any_word`: when nothing holds every word, turns holding any of them, by BM25 (rarer words
 *   weigh more).
 */
export type MatchKind = "all_words_turn" | "all_words_session" | "any_word";

/** The entity bonus per matched entity, times its idf: the quality bench chose them. */
export const ENTITY_WEIGHTS = { exact: 1.0, covered: 0.5 };
/** What saying the query's words in order adds to BM25 (chosen by the quality bench). */
export const PHRASE_BONUS = 10;

export const compareHits = totalOrder<Ordered & { turn_id: number }>((h) => h.turn_id);

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
  /** Matching rows read from the index, newest first (SEARCH_READ_CAP by default). */
  readCap?: number;
  /** Filled with what the candidate read did, when given. */
  reads?: CandidateReads;
  /** When a clause is scored as common (COMMON_RULE by default; the benches try others). */
  common?: CommonRule;
  /**
   * Added to a turn that acts on an identifier the query names (defines it in a Write or Edit,
   * Greps it, edits the file defining it); DEFINITION_BONUS by default.
   */
  definitionBonus?: number;
  /**
   * A word at least this share of the scope's sessions hold is not required of a session in
   * the further answers; TIER_EXCUSE_SHARE by default (the quality bench tries others).
   */
  excuseShare?: number;
}

/** `ln(1 + N/df)` per (kind, value), each looked up once; N is read only when first needed. */
export function idfOf(db: Db, dfCap?: number): (kind: string, value: string) => number {
  let n = -1;
  const cache = new Map<string, number>();
  return (kind, value) => {
    const key = kind + "\u0000" + value;
    let idf = cache.get(key);
    if (idf === undefined) {
      if (n < 0) n = totalTurns(db);
      idf = Math.log(1 + n / Math.max(1, entityDf(db, kind, value, dfCap)));
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
  const bonus = a.definitionBonus ?? DEFINITION_BONUS;
  const acting = a.query.match && bonus ? actingTurns(db, a.query) : new Set<number>();
  const cands = searchCandidates(
    db,
    a.query.match === null ? null : positions ? a.query.clauses : a.query.wordClauses,
    a.vis,
    a.filters,
    pool,
    {
      phrase: positions ? a.query.phrase : null,
      phraseBonus: a.phraseBonus ?? PHRASE_BONUS,
      readCap: a.readCap,
      reads: a.reads,
      common: a.common,
      alsoIds: acting.size ? [...acting] : undefined,
    },
  );
  if (cands.length === 0) return [];
  const hits = withEntities(db, cands, a.query, a.weights);
  if (acting.size) {
    // a turn acting on the identifier ranks above the turns that only carry it
    for (const h of hits) {
      if (!acting.has(h.turn_id)) continue;
      h.relevance += bonus;
      h.entity_score += bonus;
    }
  }
  if (a.query.match) hits.sort(compareHits); // else already newest first
  return hits.slice(0, a.limit);
}

/**
 * Hits for candidates, each with the entity bonus: per stored entity whose words the query
 * covers, its idf times `weights.exact` when the query spells exactly it, `covered` when it
 * only covers it.
 */
export function withEntities(
  db: Db,
  cands: Candidate[],
  query: Query,
  weights?: { exact: number; covered: number },
): Hit[] {
  const groups = query.groups.map((g) => new Set(g));
  // only the entities the query's words could cover are read
  const words = new Set<string>();
  for (const g of groups) for (const t of g) words.add(t);
  const ents = entitiesOf(db, cands.map((c) => c.id), [...words]);
  const idf = idfOf(db);
  const w = weights ?? ENTITY_WEIGHTS;
  // the candidates share most of their entities (some 1,100 rows, 220 values for a class
  // name): each value is split and matched against the query once
  // (null: the query covers none of the value's words)
  const weightOf = new Map<string, number | null>();
  const weightFor = (value: string): number | null => {
    let m = weightOf.get(value);
    if (m !== undefined) return m;
    m = null;
    const vt = [...new Set(tokens(value).map((t) => t.toLowerCase()))];
    const within = vt.length ? groups.filter((g) => vt.every((t) => g.has(t))) : [];
    if (within.length) m = within.some((g) => g.size === vt.length) ? w.exact : w.covered;
    weightOf.set(value, m);
    return m;
  };
  return cands.map((c) => {
    let score = 0;
    const matched: Matched[] = [];
    for (const e of ents.get(c.id) ?? []) {
      const weight = weightFor(e.value);
      if (weight === null) continue;
      score += weight * idf(e.kind, e.value);
      matched.push({ kind: e.kind, value: e.value });
    }
    matched.sort(byKindValue);
    return hitFrom(c, c.relevance + score, score, matched);
  });
}

/**
 * The turns acting on an identifier the query names as typed (a stored symbol): the Writes and
 * Edits defining it and the Greps of it, then the Writes and Edits of the files it was defined
 * in; at most SEARCH_ACTORS_PER_WORD of each per word.
 */
function actingTurns(db: Db, q: Query): Set<number> {
  const out = new Set<number>();
  for (const t of q.terms) {
    if (t.length < 3) continue;
    const actors = symbolActors(db, t, SEARCH_ACTORS_PER_WORD);
    if (!actors.length) continue;
    for (const id of actors) out.add(id);
    for (const id of editsOfFilesOf(db, actors, SEARCH_DEFINED_FILES, SEARCH_ACTORS_PER_WORD)) {
      out.add(id);
    }
  }
  return out;
}

/** A hit for a candidate turn, its excerpt (and title) filled in later. */
export function hitFrom(
  c: Candidate,
  relevance: number,
  score: number,
  matched: Hit["matched_on"],
): Hit {
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
    match: "all_words_turn",
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
    match: h.match ?? "all_words_turn",
    excerpt: h.excerpt,
  };
  if (withMatched) d.matched_on = h.matched_on;
  return d;
}
