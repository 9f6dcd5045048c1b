/**
 * How wide text is on screen (wide characters take two columns, combining marks none, styling
 * codes none), and prose wrapped to a terminal's width. It imports only a module that imports
 * nothing: the renderer (core/output.ts) and the tables (core/table.ts) both use it.
 */
import { lazyRegExp } from "./lazy_regexp.ts";

/** Wide (CJK, Hangul, fullwidth, most emoji): two columns in a terminal. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
/** Drawn on the character before: combining marks, zero-width spaces and joiners, selectors. */
const ZERO = lazyRegExp(String.raw`[\p{M}\u200b-\u200f\u2060\ufe00-\ufe0f]`, "u");

export function cells(ch: string): number {
  return ZERO().test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
}

export const ASCII = /^[\x20-\x7e]*$/;

/** Columns `s` takes on screen. */
export function width(s: string): number {
  if (ASCII.test(s)) return s.length; // the usual cell: one column a character
  let n = 0;
  for (const ch of s) n += cells(ch);
  return n;
}

// deno-lint-ignore no-control-regex
const SGR_ALL = /\x1b\[[0-9;]*m/g;

const RESET = "\x1b[0m";

/** The text without its styling codes. */
function unstyled(s: string): string {
  return s.replace(SGR_ALL, "");
}

/** The styling in force after `s`, given what was in force before it. */
function styleAfter(open: string, s: string): string {
  for (const m of s.matchAll(SGR_ALL)) {
    open = m[0] === RESET || m[0] === "\x1b[m" ? "" : open + m[0];
  }
  return open;
}

/**
 * Where a long line's next lines start: under a usage line's arguments; under the last cell
 * that starts in its first half (after a gap of two or more spaces: doctor's finding, status's
 * value); else under its own indent.
 */
function hangOf(plain: string, max: number): number {
  const indent = /^ */.exec(plain)![0].length;
  // a command's usage line continues under its arguments
  const usage = /^ *(?:usage: )?terminus [a-z-]+ /.exec(plain);
  if (usage && usage[0].length <= max / 2) return usage[0].length;
  let hang = indent;
  const limit = Math.min(Math.floor(max / 2), 40);
  for (const m of plain.matchAll(/ {2,}(?=\S)/g)) {
    if (m.index! < indent) continue;
    const at = width(plain.slice(0, m.index! + m[0].length));
    if (at > limit) break;
    hang = at;
  }
  return hang;
}

/** A word wider than `w` columns, in pieces of at most `w` (styling codes kept in place). */
function pieces(word: string, w: number): string[] {
  const out: string[] = [];
  let cur = "";
  let used = 0;
  // deno-lint-ignore no-control-regex
  for (const part of word.split(/(\x1b\[[0-9;]*m)/)) {
    if (part.startsWith("\x1b[")) {
      cur += part;
      continue;
    }
    for (const ch of part) {
      const c = cells(ch);
      if (used + c > w && used > 0) {
        out.push(cur);
        cur = "";
        used = 0;
      }
      cur += ch;
      used += c;
    }
  }
  out.push(cur);
  return out;
}

/**
 * One line wrapped to `max` columns at spaces (a word longer than a line is broken), the
 * next lines indented under where its text starts (`hangOf`). Styling codes take no column;
 * one in force at a break is closed there and opened again on the next line, so the colour
 * of a diff line or a state word stays on its own text.
 */
export function wrapLine(line: string, max: number): string[] {
  const plain = unstyled(line);
  if (width(plain) <= max) return [line];
  const hang = hangOf(plain, max);
  const room = max - hang;
  if (room < 8) return [line];
  const indent = /^ */.exec(line)![0];
  // a usage line keeps each bracketed option whole: `[--until <time>]` is one word
  const words = line.slice(indent.length).split(
    /^ *(?:usage: )?terminus [a-z-]+ /.test(plain) ? /( +)(?![^[]*\])/ : /( +)/,
  );
  const out: string[] = [];
  let cur = indent;
  let used = indent.length;
  let open = "";
  const breakLine = () => {
    out.push(open ? cur.trimEnd() + RESET : cur.trimEnd());
    cur = " ".repeat(hang) + open;
    used = hang;
  };
  for (let k = 0; k < words.length; k += 2) {
    const word = words[k];
    const gap = k > 0 ? words[k - 1] : "";
    const w = width(unstyled(word));
    if (used > hang && used + gap.length + w > max) breakLine();
    else if (used > hang || out.length === 0) {
      // a line's first word after a break takes no gap before it
      cur += gap;
      used += gap.length;
    }
    for (const [n, p] of (w > max - used ? pieces(word, Math.max(1, room)) : [word]).entries()) {
      if (n > 0) breakLine();
      cur += p;
      used += width(unstyled(p));
      open = styleAfter(open, p);
    }
  }
  if (unstyled(cur).trim() !== "") out.push(cur.trimEnd());
  return out;
}

/** Every line of `text` wrapped to `max` columns (`wrapLine`); null leaves it as it is. */
export function wrapText(text: string, max: number | null): string {
  if (max === null) return text;
  return text.split("\n").map((l) => wrapLine(l, max).join("\n")).join("\n");
}
