/**
 * The one search: ranked hits (rank.ts) and sessions whose title holds every word
 * (titles.ts), then excerpts cut from the archived blocks for the hits that survive the limit.
 */
import type { Db } from "../store/db.ts";
import { compareHits, type Hit, rank, type SearchArgs } from "./rank.ts";
import { excerptFor } from "./excerpt.ts";
import { annotateTitles, titleHits } from "./titles.ts";

export { type Hit, hitDoc } from "./rank.ts";

export function search(db: Db, a: SearchArgs & { filter: (s: string) => string }): Hit[] {
  const turns = rank(db, a);
  const titled = titleHits(db, a, turns[0]?.relevance ?? 0);
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
  const top = [...titled, ...turns.filter((h) => !anchors.has(h.turn_id))]
    .sort(compareHits).slice(0, a.limit);
  annotateTitles(db, top, a.filter);
  for (const h of top) {
    h.excerpt = h.matched_on.some((m) => m.kind === "title") && h.title !== null
      ? h.title
      : excerptFor(db, h.candidate, a.query.folded, a.filter);
  }
  return top;
}
