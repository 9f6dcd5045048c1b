/** The word a person probably meant: `did you mean` after a typo, near-miss config keys. */

/** Edits between two words: insertions, deletions, substitutions and swaps of neighbours. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate `word` is most likely a slip for: the nearest within two edits (and fewer
 * edits than half the word, so a short word does not match everything), else the only
 * candidate it begins. Null when nothing is that close.
 */
export function closest(word: string, candidates: readonly string[]): string | null {
  const w = word.toLowerCase();
  let best: string | null = null;
  let bestD = Infinity;
  let bestLen = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, c);
    // between equally near words, one of the typed length (two letters swapped) is likelier
    const len = Math.abs(c.length - w.length);
    if (d < bestD || (d === bestD && len < bestLen)) [best, bestD, bestLen] = [c, d, len];
  }
  if (best !== null && best !== word && bestD <= 2 && bestD < w.length / 2) return best;
  const begun = w.length >= 2 ? candidates.filter((c) => c.startsWith(w) && c !== w) : [];
  return begun.length === 1 ? begun[0] : null;
}
