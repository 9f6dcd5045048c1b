/**
 * The one search: ranked turn hits (rank.ts) and, apart from them, sessions whose title holds
 * every word (titles.ts); then excerpts for the hits that survive the limit, cut from a turn's
 * whole quote where ingest kept one, else from the archived blocks. The steps are apart so a
 * process can load zstd only once a hit needs a block read.
 */
import type { Db } from "../store/db.ts";
import { initReader } from "../store/codec.ts";
import { startReader } from "../store/reader.ts";
import { BlockCache } from "../store/blocks.ts";
import { type Hit, rank, type SearchArgs } from "./rank.ts";
import { parseQuery } from "./query.ts";
import { excerptFor, excerptFromQuote } from "./excerpt.ts";
import { isRedacting } from "../egress.ts";
import { quotesFor } from "../store/inject_sql.ts";
import { annotateTitles, type TitleHit, titleHits } from "./titles.ts";
import { anyWordHits, readWords, sessionHits } from "./further.ts";
import { anyTurnPasses } from "../store/filter_sql.ts";
import type { Visibility } from "../store/visibility.ts";
import {
  INJECTION_CHARS_CAP,
  QUOTE_FOLD_CHARS,
  TIER_SESSION_BELOW,
  TURN_SEQ_SPAN,
} from "../constants.ts";

export { ENTITY_WEIGHTS, type Hit, hitDoc, type MatchKind, PHRASE_BONUS } from "./rank.ts";
export { type CandidateReads } from "../store/search_candidates.ts";
export { type TitleHit } from "./titles.ts";

type Args = SearchArgs & { filter: (s: string) => string };

/** How a search answers beyond the spec's own rule (the defaults are the build's). */
export interface FurtherArgs {
  /** The spec's answer alone: turns holding every word (`--strict`, MCP `strict`). */
  strict?: boolean;
  /**
   * Sessions holding every word across their turns join a first answer with fewer hits than
   * this (TIER_SESSION_BELOW by default; the quality bench tries others). 0: only an empty one.
   */
  sessionBelow?: number;
}

export function search(db: Db, a: Args): Hit[] {
  const top = searchHits(db, a);
  cutExcerpts(db, top, a);
  return top;
}

/** The turn hits, ranked, limited and titled; their excerpts still empty. */
export function searchHits(db: Db, a: Args): Hit[] {
  const top = rank(db, a);
  annotateTitles(db, top, a.filter);
  return top;
}

/** Sessions found by their title (through the egress filter); none for filters alone. */
export function searchTitles(db: Db, a: Args): TitleHit[] {
  if (!a.query.match) return [];
  return titleHits(db, a).map((t) => ({ ...t, title: a.filter(t.title) }));
}

/** Whether cutting the hits' excerpts reads any block (and so needs zstd loaded). */
export function readsBlocks(hits: Hit[], quotes = new Map<number, string>()): boolean {
  return hits.some((h) => !h.candidate.evicted && !quotes.has(h.turn_id));
}

/**
 * The hits whose whole folded text ingest kept as their quote (a prompt or a reply, not a tool
 * result): their excerpts are cut from it, the same text the blocks give, with no block read.
 * None when the search redacts.
 */
export function hitQuotes(db: Db, hits: Hit[], filter: (s: string) => string): Map<number, string> {
  if (isRedacting(filter)) return new Map();
  const ids = hits.filter((h) => !h.candidate.evicted && h.candidate.byteLen <= QUOTE_FOLD_CHARS)
    .map((h) => h.turn_id);
  return quotesFor(db, ids, undefined, INJECTION_CHARS_CAP);
}

/** Fills each hit's excerpt: from its quote where `quotes` has it, else from the blocks. */
export function cutExcerpts(
  db: Db,
  hits: Hit[],
  a: Args,
  quotes = new Map<number, string>(),
): void {
  const blocks = new BlockCache();
  // in stream order, so hits that share a block decompress it once (BlockCache holds one)
  const inStream = [...hits].sort((x, y) =>
    x.candidate.sessionNo - y.candidate.sessionNo ||
    x.candidate.streamOffset - y.candidate.streamOffset
  );
  for (const h of inStream) {
    const quote = quotes.get(h.turn_id);
    const e = quote !== undefined
      ? excerptFromQuote(quote, a.query.folded, a.query.inOrder)
      : excerptFor(db, h.candidate, a.query.folded, a.filter, blocks, a.query.inOrder);
    h.excerpt = e.text;
    h.clipped = { start: e.cutStart, end: e.cutEnd };
  }
}

export interface SearchAnswer {
  hits: Hit[];
  /** Sessions found by their title; empty unless asked for (`titles`). */
  titles: TitleHit[];
  /** Why there is nothing to show, or null. */
  reason: string | null;
  /** Why answers beyond the spec's own were added (hits whose `match` is not all_words_turn). */
  further: string | null;
}

export const NO_TURN_REASON = "no turn matched every word";
export const NO_WORD_REASON = "no turn matched any of the words";
export const NO_FILTERED_REASON = "no turn matched the filters";

/**
 * The turn hits, ranked and titled, their excerpts still empty: the spec's answer (turns
 * holding every word) first, then, unless `strict`, the further answers it calls for
 * (docs/design/search.md, "Further answers"), and why they were added.
 */
export function answerHits(db: Db, a: Args & FurtherArgs): { hits: Hit[]; further: string | null } {
  const first = rank(db, a);
  let hits = first;
  let further: string | null = null;
  const below = a.sessionBelow ?? TIER_SESSION_BELOW;
  if (!a.strict && a.query.match && first.length < Math.max(1, below) && first.length < a.limit) {
    const reads = readWords(db, a);
    if (reads) {
      const shown = new Set(first.map((h) => Math.floor(h.turn_id / TURN_SEQ_SPAN)));
      const sessions = sessionHits(db, a, reads, shown, a.limit - first.length);
      hits = [...first, ...sessions];
      // no turn holds every word: turns holding some of them fill what the sessions left
      if (first.length === 0 && hits.length < a.limit) {
        const had = new Set(hits.map((h) => h.turn_id));
        const any = anyWordHits(db, a, reads, a.limit).filter((h) => !had.has(h.turn_id));
        hits.push(...any.slice(0, a.limit - hits.length));
      }
      const kinds = new Set(hits.map((h) => h.match));
      if (kinds.has("all_words_session") && first.length) {
        further =
          `only ${first.length} turn(s) hold every word; then sessions that hold every word across their turns (match: all_words_session)`;
      } else if (kinds.has("all_words_session") && kinds.has("any_word")) {
        further =
          "no turn holds every word; first the sessions holding them across their turns (match: all_words_session), then turns holding some of them, rarer words weighing more (match: any_word)";
      } else if (kinds.has("all_words_session")) {
        further =
          "no turn holds every word; these sessions hold them across their turns (match: all_words_session)";
      } else if (kinds.has("any_word")) {
        further =
          "nothing holds every word; these turns hold some of them, rarer words weighing more (match: any_word)";
      }
    }
  }
  annotateTitles(db, hits, a.filter);
  return { hits, further };
}

/** What the quality benches vary; each one left out is the build's. */
export type SearchTuning =
  & FurtherArgs
  & Pick<
    SearchArgs,
    "weights" | "phraseBonus" | "common" | "reads" | "definitionBonus" | "excuseShare"
  >;

/**
 * A query as typed, over every project, ranked as `terminus search` ranks it, no excerpts cut:
 * `strict`, the spec's answer alone; else with the further answers. The benches' search.
 */
export function queryHits(db: Db, text: string, limit: number, tuning: SearchTuning = {}): Hit[] {
  const a = {
    query: parseQuery(text),
    vis: { project: null, exclude: [] },
    filters: {},
    limit,
    filter: (s: string) => s,
    ...tuning,
  };
  return tuning.strict ? rank(db, a) : answerHits(db, a).hits;
}

/**
 * A whole search as `terminus search` and MCP's recall_search both run it: turn hits with their
 * excerpts (zstd loaded only once a hit needs a block read) and, when asked, title hits.
 */
export async function runSearch(
  db: Db,
  a: Args & FurtherArgs & { titles: boolean },
): Promise<SearchAnswer> {
  // compiled off the main thread while the query runs (validated and set up: V8 compiles
  // each function at its first call); a search with no hit wastes only that
  startReader();
  const { hits, further } = answerHits(db, a);
  const titles = a.titles ? searchTitles(db, a) : [];
  const quotes = hitQuotes(db, hits, a.filter);
  if (readsBlocks(hits, quotes)) await initReader();
  cutExcerpts(db, hits, a, quotes);
  const reason = hits.length || titles.length
    ? null
    : !a.query.match
    ? NO_FILTERED_REASON
    : a.strict
    ? NO_TURN_REASON
    : NO_WORD_REASON;
  return { hits, titles, reason, further };
}

/**
 * Whether any turn in the scope called the tool `name` (exactly as Claude Code wrote it): an
 * empty `--tool` answer says the tool is unknown only when it is.
 */
export function toolCalled(db: Db, vis: Visibility, name: string): boolean {
  return anyTurnPasses(db, vis, { tool: name });
}
