/** `terminus stats`: the decision log's counts, and precision over the labelled injections. */
import type { Db } from "../store/db.ts";
import { type StatsCounts, statsCounts } from "../store/decisions.ts";

export interface Stats extends StatsCounts {
  /** Hits over labelled injections, to two places; null before any is labelled. */
  precision: number | null;
}

export function stats(db: Db): Stats {
  const c = statsCounts(db);
  const labelled = c.hits + c.false_positives;
  const precision = labelled === 0 ? null : Math.round((c.hits / labelled) * 100) / 100;
  return { ...c, precision };
}
