/**
 * Terminal columns: how wide text is on screen (wide characters take two, combining marks
 * none) and a table that fits a width by cutting the columns that may be cut, in order, and
 * never the ones that may not (a session's number and date).
 */
import { escapeControls } from "./output.ts";

/** Wide (CJK, Hangul, fullwidth, most emoji): two columns in a terminal. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
/** Drawn on the character before: combining marks, zero-width spaces and joiners, selectors. */
const ZERO = /[\p{M}\u200b-\u200f\u2060\ufe00-\ufe0f]/u;

export function cells(ch: string): number {
  return ZERO.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
}

const ASCII = /^[\x20-\x7e]*$/;

/** Columns `s` takes on screen. */
export function width(s: string): number {
  if (ASCII.test(s)) return s.length; // the usual cell: one column a character
  let n = 0;
  for (const ch of s) n += cells(ch);
  return n;
}

/**
 * Cuts to `w` terminal columns, ending in "…" when cut. A line wider than the terminal would
 * wrap and scroll the whole screen up, so wide characters count two.
 */
export function fit(s: string, w: number): string {
  const plain = escapeControls(s).replace(/\t/g, " ").replace(/\n/g, " ");
  if (ASCII.test(plain)) {
    return plain.length <= w ? plain : plain.slice(0, Math.max(0, w - 1)) + "…";
  }
  const chars = [...plain];
  let used = 0;
  let cut = -1; // where the text stops when it needs the "…"
  for (let i = 0; i < chars.length; i++) {
    const c = cells(chars[i]);
    if (cut < 0 && used + c > w - 1) cut = i;
    used += c;
    if (used > w) return chars.slice(0, Math.max(0, cut)).join("") + "…";
  }
  return chars.join("");
}

/** Pads to `w` columns. */
function pad(s: string, w: number): string {
  return s + " ".repeat(Math.max(0, w - width(s)));
}

export interface Column {
  /** Cut first (lowest first) when the row is too wide; absent: never cut. */
  cut?: number;
  /** A cut column keeps at least this many columns. */
  min?: number;
}

/**
 * Rows of cells as aligned lines two spaces apart, the last column unpadded. With `max`
 * (the terminal's width), columns that may be cut are narrowed, lowest `cut` first, until
 * every line fits or each is at its `min`; the others are never touched.
 */
export function table(rows: string[][], cols: Column[], max: number | null): string[] {
  if (rows.length === 0) return [];
  const n = cols.length;
  const widths = cols.map((_, i) =>
    Math.max(0, ...rows.map((r) => width(escapeControls(r[i] ?? ""))))
  );
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (n - 1);
  if (max !== null) {
    const order = cols.map((c, i) => ({ c, i })).filter((x) => x.c.cut !== undefined)
      .sort((a, b) => a.c.cut! - b.c.cut!);
    for (const { c, i } of order) {
      const over = total() - max;
      if (over <= 0) break;
      widths[i] = Math.max(c.min ?? 1, widths[i] - over);
    }
  }
  return rows.map((r) =>
    r.map((cell, i) => {
      const text = fit(cell ?? "", widths[i]);
      return i === n - 1 ? text : pad(text, widths[i]);
    }).join("  ").trimEnd()
  );
}
