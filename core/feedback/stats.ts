/** `terminus stats`: the decision log's counts, and precision over the labelled injections. */
import type { Db } from "../store/db.ts";
import { type StatsCounts, statsCounts, unlabelledCount } from "../store/decisions.ts";
import { CLOSE_AFTER_MS } from "../constants.ts";

export interface Stats extends StatsCounts {
  /** Hits over labelled injections, to two places; null before any is labelled. */
  precision: number | null;
}

/**
 * The line saying why some logged prompts have no label yet, or null when none waits: labels
 * (and so replay) wait for a session to close, CLOSE_AFTER_MS after its last turn.
 */
export function waitingNote(db: Db): string | null {
  const waiting = unlabelledCount(db);
  if (waiting === 0) return null;
  return `${waiting} logged prompt(s) wait for a label: a label is written once the session has been idle ${
    CLOSE_AFTER_MS / 3_600_000
  } hours, and replay re-scores only labelled prompts`;
}

export function stats(db: Db): Stats {
  const c = statsCounts(db);
  const labelled = c.hits + c.false_positives;
  const precision = labelled === 0 ? null : Math.round((c.hits / labelled) * 100) / 100;
  return { ...c, precision };
}
