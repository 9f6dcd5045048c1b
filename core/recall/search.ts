/**
 * The one search: ranked hits (rank.ts), then excerpts cut from the archived blocks for the
 * hits that survive the limit.
 */
import type { Db } from "../store/db.ts";
import { type Hit, rank, type SearchArgs } from "./rank.ts";
import { excerptFor } from "./excerpt.ts";

export { type Hit, hitDoc } from "./rank.ts";

export function search(db: Db, a: SearchArgs & { filter: (s: string) => string }): Hit[] {
  const top = rank(db, a);
  for (const h of top) {
    const e = excerptFor(db, h.candidate, a.query.folded, a.filter);
    h.excerpt = e.text;
    h.clipped = { start: e.cutStart, end: e.cutEnd };
  }
  return top;
}
