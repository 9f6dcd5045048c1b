/**
 * The injection thresholds, compiled in. Only `terminus replay` varies them, on a copy.
 */
export interface Thresholds {
  ranked: number;
  compacted_ranked: number;
  entity_rank: number;
  co_occurring: number;
  max_turns: number;
  max_candidates: number;
}

export const THRESHOLDS: Readonly<Thresholds> = Object.freeze({
  ranked: 10,
  compacted_ranked: 50,
  entity_rank: 3,
  co_occurring: 2,
  max_turns: 3,
  max_candidates: 8,
});

/** Eligible: a structural match within `entity_rank`, or `co_occurring` distinct ones at any rank. */
export function eligible(rank1: number, matched: number, t: Thresholds): boolean {
  if (matched === 0) return false; // free text alone never
  return rank1 <= t.entity_rank || matched >= t.co_occurring;
}
