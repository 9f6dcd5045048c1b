/**
 * The one search: ranked hits (rank.ts) and sessions whose title holds every word
 * (titles.ts), then excerpts cut from the archived blocks for the hits that survive the limit.
 * The two steps are apart so a process can load zstd only once a hit needs a block read.
 */
import type { Db } from "../store/db.ts";
import { compareHits, type Hit, rank, type SearchArgs } from "./rank.ts";
import { excerptFor } from "./excerpt.ts";
import { annotateTitles, titleHits } from "./titles.ts";

export { type Hit, hitDoc } from "./rank.ts";

type Args = SearchArgs & { filter: (s: string) => string };

export function search(db: Db, a: Args): Hit[] {
  const top = searchHits(db, a);
  cutExcerpts(db, top, a);
  return top;
}

/** The hits, ranked, limited and titled; their excerpts still empty. */
export function searchHits(db: Db, a: Args): Hit[] {
  const turns = rank(db, a);
  // with no words (filters alone, newest first) there is no title to match
  const titled = a.query.match ? titleHits(db, a, turns[0]?.relevance ?? 0) : [];
  const anchors = new Map(titled.map((h) => [h.turn_id, h]));
  for (const h of turns) {
    // the anchor turn matched in its own text too: one hit, naming both
    const t = anchors.get(h.turn_id);
    if (t) {
      t.matched_on = [...t.matched_on, ...h.matched_on].sort((x, y) =>
        x.kind === y.kind ? (x.value < y.value ? -1 : 1) : x.kind < y.kind ? -1 : 1
      );
    }
  }
  const merged = [...titled, ...turns.filter((h) => !anchors.has(h.turn_id))];
  const top = (a.query.match ? merged.sort(compareHits) : merged).slice(0, a.limit);
  annotateTitles(db, top, a.filter);
  return top;
}

/** A hit found by its session's title: its excerpt is the title. */
function titledHit(h: Hit): boolean {
  return h.matched_on.some((m) => m.kind === "title") && h.title !== null;
}

/** Whether cutting the hits' excerpts reads any block (and so needs zstd loaded). */
export function readsBlocks(hits: Hit[]): boolean {
  return hits.some((h) => !titledHit(h) && !h.candidate.evicted);
}

/** Fills each hit's excerpt: its title, or text cut from the archived blocks. */
export function cutExcerpts(db: Db, hits: Hit[], a: Args): void {
  const blocks = new Map<string, Uint8Array>();
  for (const h of hits) {
    if (titledHit(h)) {
      h.excerpt = h.title!;
      continue;
    }
    const e = excerptFor(db, h.candidate, a.query.folded, a.filter, blocks);
    h.excerpt = e.text;
    h.clipped = { start: e.cutStart, end: e.cutEnd };
  }
}
