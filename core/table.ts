/**
 * Tables for a terminal: a cell cut to its columns, and rows that fit a width by letting the
 * columns that may give way do so, in order, and never the ones that may not (a session's
 * number and date). How wide text is: core/width.ts.
 */
import { escapeControls } from "./output.ts";
import { ASCII, cells, width } from "./width.ts";

export { width } from "./width.ts";

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

/**
 * One way a column gives way when a row is too wide, taken in the order of `at` across every
 * column (lowest first), only while the row is still too wide: `cut` narrows it to at least
 * that many columns, `short` swaps in each cell's short form, `drop` leaves it out altogether.
 */
export type Step =
  | { at: number; cut: number }
  | { at: number; short: true }
  | { at: number; drop: true };

export interface Column {
  /** Cut (lowest first, with every column's `steps`) when the row is too wide; absent: never cut. */
  cut?: number;
  /** A cut column keeps at least this many columns. */
  min?: number;
  /** More ways it gives way, besides `cut`/`min`. */
  steps?: Step[];
}

/** A cell: its text, or its text and a shorter form (a project's last folder for its path). */
export type Cell = string | readonly [string, string];

/**
 * Rows of cells as aligned lines two spaces apart, the last column unpadded. With `max`
 * (the terminal's width), the columns give way, step by step in the order of their `at`
 * (`cut` is a step at `cut` down to `min`), until every line fits; a column with no step is
 * never touched, so a session's number and date are printed whole.
 */
export function table(rows: Cell[][], cols: Column[], max: number | null): string[] {
  if (rows.length === 0) return [];
  const short = cols.map(() => false);
  const dropped = cols.map(() => false);
  const text = (r: Cell[], i: number): string => {
    const c = r[i] ?? "";
    return typeof c === "string" ? c : c[short[i] ? 1 : 0];
  };
  const natural = (i: number) => Math.max(0, ...rows.map((r) => width(escapeControls(text(r, i)))));
  const widths = cols.map((_, i) => natural(i));
  const shown = () => cols.map((_, i) => i).filter((i) => !dropped[i]);
  const total = () => {
    const on = shown();
    return on.reduce((a, i) => a + widths[i], 0) + 2 * (on.length - 1);
  };
  if (max !== null) {
    const steps = cols.flatMap((c, i) => [
      ...(c.cut !== undefined ? [{ i, step: { at: c.cut, cut: c.min ?? 1 } as Step }] : []),
      ...(c.steps ?? []).map((step) => ({ i, step })),
    ]).sort((a, b) => a.step.at - b.step.at);
    const taken: { i: number; step: Step; before: number }[] = [];
    for (const { i, step } of steps) {
      const over = total() - max;
      if (over <= 0) break;
      if (dropped[i]) continue;
      taken.push({ i, step, before: widths[i] });
      if ("drop" in step) dropped[i] = true;
      else if ("short" in step) {
        short[i] = true;
        widths[i] = Math.min(widths[i], natural(i));
      } else widths[i] = Math.max(Math.min(step.cut, widths[i]), widths[i] - over);
    }
    // a step may have given more than was needed: the room left goes back, the last step first
    for (const { i, step, before } of taken.reverse()) {
      const room = max - total();
      if (room <= 0) break;
      if ("drop" in step) {
        if (widths[i] + 2 <= room) dropped[i] = false;
      } else if ("short" in step) {
        short[i] = false;
        const full = natural(i);
        if (full - widths[i] <= room) widths[i] = full;
        else short[i] = true;
      } else widths[i] = Math.min(before, widths[i] + room);
    }
  }
  const on = shown();
  const last = on[on.length - 1];
  return rows.map((r) =>
    on.map((i) => {
      const t = fit(text(r, i), widths[i]);
      return i === last ? t : pad(t, widths[i]);
    }).join("  ").trimEnd()
  );
}
