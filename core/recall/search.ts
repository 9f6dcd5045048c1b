/**
 * The one search: ranked turn hits (rank.ts) and, apart from them, sessions whose title holds
 * every word (titles.ts); then excerpts cut from the archived blocks for the hits that survive
 * the limit. The steps are apart so a process can load zstd only once a hit needs a block read.
 */
import type { Db } from "../store/db.ts";
import { initReader } from "../store/codec.ts";
import { startReader } from "../store/reader.ts";
import { type Hit, rank, type SearchArgs } from "./rank.ts";
import { excerptFor } from "./excerpt.ts";
import { annotateTitles, type TitleHit, titleHits } from "./titles.ts";

export { type Hit, hitDoc } from "./rank.ts";
export { type TitleHit } from "./titles.ts";

type Args = SearchArgs & { filter: (s: string) => string };

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
export function readsBlocks(hits: Hit[]): boolean {
  return hits.some((h) => !h.candidate.evicted);
}

/** Fills each hit's excerpt with text cut from the archived blocks. */
export function cutExcerpts(db: Db, hits: Hit[], a: Args): void {
  const blocks = new Map<string, Uint8Array>();
  for (const h of hits) {
    const e = excerptFor(db, h.candidate, a.query.folded, a.filter, blocks, a.query.inOrder);
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
}

/**
 * A whole search as `terminus search` and MCP's recall_search both run it: turn hits with their
 * excerpts (zstd loaded only once a hit needs a block read) and, when asked, title hits.
 */
export async function runSearch(
  db: Db,
  a: Args & { titles: boolean },
): Promise<SearchAnswer> {
  // compiled off the main thread while the query runs (validated and set up: V8 compiles
  // each function at its first call); a search with no hit wastes only that
  startReader();
  const hits = searchHits(db, a);
  const titles = a.titles ? searchTitles(db, a) : [];
  if (readsBlocks(hits)) await initReader();
  cutExcerpts(db, hits, a);
  const reason = hits.length || titles.length
    ? null
    : a.query.match
    ? "no turn matched every word"
    : "no turn matched the filters";
  return { hits, titles, reason };
}
