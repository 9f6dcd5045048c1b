/** Small statistics helpers: every figure the report prints is a median. */

export function median(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export interface Summary {
  n: number;
  median: number;
  min: number;
  max: number;
  /** 90th percentile (nearest rank). */
  p90: number;
}

export function summarise(xs: number[]): Summary {
  const s = [...xs].sort((a, b) => a - b);
  const rank = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
  return { n: s.length, median: median(s), min: s[0], max: s[s.length - 1], p90: rank(0.9) };
}

export const MB = 1_000_000;
export const MiB = 1024 * 1024;

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function fmtBytes(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}
