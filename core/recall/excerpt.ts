/**
 * Excerpts are cut from the archived blocks, never from FTS5: the turn's searchable text
 * with whitespace folded, at most 240 characters, around the query's words where they stand
 * together in order, else around the first matching word.
 */
import type { Db } from "../store/db.ts";
import { type BlockCache, readStream } from "../store/blocks.ts";
import { parseLine, slashCommand } from "../transcript/records.ts";
import { textParts } from "../index/fts.ts";
import { EXCERPT_CHARS, QUOTE_FOLD_CHARS } from "../constants.ts";
import { isRedacting, redactValues } from "../egress.ts";

export function turnBytes(
  db: Db,
  sessionNo: number,
  offset: number,
  len: number,
  blocks?: BlockCache,
): Uint8Array | null {
  try {
    return readStream(db, sessionNo, offset, len, blocks);
  } catch {
    return null; // evicted or damaged: the archive will not give the bytes up
  }
}

/** The turn's text, folded; with `redacting`, values under secret-named keys are taken out first. */
export function turnText(line: Uint8Array, redacting = false): string {
  return fold(asSeen(rawTurnText(line, redacting)));
}

/**
 * The turn's text as the person saw it: a slash command as it was typed (`/erk:plan-save`),
 * not Claude Code's `<command-message>`/`<command-name>` wrapping of it.
 */
function rawTurnText(line: Uint8Array, redacting: boolean): string {
  const rec = parseLine(line);
  if (!rec) return new TextDecoder().decode(line);
  return slashCommand(rec) ?? textParts(redacting ? redactValues(rec) : rec).join(" ");
}

// a UTF-16 pair written out as two escapes, and one escape of a character past ASCII
const ESCAPED_PAIR = /\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})/gi;
const ESCAPED_CHAR = /\\u([0-9a-f]{4})/gi;

/**
 * Escape debris decoded: a tool that printed JSON (`gh api`, a Python dump) leaves `\ud83d\ude80`
 * in its output where the person's screen showed 🚀. A surrogate pair becomes its character,
 * and a lone escape of a printable character past ASCII (`\u2699`) becomes that character;
 * ASCII and control escapes (`\n`, `\u001b`) stay as written, and a lone surrogate escape too.
 */
export function asSeen(text: string): string {
  if (!text.includes("\\u")) return text;
  return text
    .replace(ESCAPED_PAIR, (_, hi, lo) => String.fromCharCode(parseInt(hi, 16), parseInt(lo, 16)))
    .replace(ESCAPED_CHAR, (m, hex) => {
      const cp = parseInt(hex, 16);
      const printable = cp >= 0xa0 && (cp < 0xd800 || cp > 0xdfff) &&
        !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(String.fromCharCode(cp));
      return printable ? String.fromCharCode(cp) : m;
    });
}

export function fold(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Where the excerpt is centred: where the words stand together in order (`inOrder`, words joined
 * by anything that is not a letter or digit), else the first of any of them.
 */
function firstMatch(lower: string, folded: string[], inOrder: string[]): number {
  if (inOrder.length > 1) {
    const at = inOrderAt(lower, inOrder);
    if (at >= 0) return at;
  }
  let at = -1;
  for (const t of folded) {
    const i = lower.indexOf(t);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  return at;
}

/** One letter or digit (one code point); compiled once, and only for a character beyond ASCII. */
let letterOrDigit: RegExp | null = null;

function isLetterOrDigit(cp: number): boolean {
  if (cp < 0x80) return (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
  letterOrDigit ??= /^[\p{L}\p{N}]$/u;
  return letterOrDigit.test(String.fromCodePoint(cp));
}

/**
 * Where `words` first stand in this order with only non-letters, non-digits between them (at
 * least one), or -1: what `w1[^\p{L}\p{N}]+w2...` finds, without the pattern. V8 builds each
 * Unicode class of such a pattern into thousands of ranges on its first run (a ten-word path
 * paid 6-12 ms for it on its first hit); this tests one character at a time instead.
 */
function inOrderAt(text: string, words: string[]): number {
  const first = words[0];
  for (let from = text.indexOf(first); from >= 0; from = text.indexOf(first, from + 1)) {
    let at = from + first.length;
    let i = 1;
    for (; i < words.length; i++) {
      let j = at;
      while (j < text.length) {
        const cp = text.codePointAt(j)!;
        if (isLetterOrDigit(cp)) break;
        j += cp > 0xffff ? 2 : 1;
      }
      if (j === at || !text.startsWith(words[i], j)) break;
      at = j + words[i].length;
    }
    if (i === words.length) return from;
  }
  return -1;
}

/** Room kept either side of the first match before folding, far more than one excerpt needs. */
const WINDOW_MARGIN = 4 * EXCERPT_CHARS;
/**
 * A tool result no longer than this is folded whole. Ingest keeps no quote of a tool result,
 * so no quote's excerpt has to agree with it, and folding a whole file a tool read (up to
 * QUOTE_FOLD_CHARS) cost a fresh search process a few ms a hit.
 */
const WINDOW_FROM = 4 * WINDOW_MARGIN;

/**
 * A stretch of a long text around the first match, so folding and cutting work on a few
 * hundred characters instead of a whole file a tool read. Says which ends it cut. A text no
 * longer than `whole` is folded whole: for a prompt or a reply that is a quote's length, since
 * the window counts characters before folding, so a run of whitespace near the match would move
 * the cut, and a quote (excerptFromQuote) must give the same excerpt as the blocks.
 */
function around(text: string, folded: string[], inOrder: string[], whole: number): Span {
  if (text.length <= whole) return { text, cutStart: false, cutEnd: false };
  const at = firstMatch(text.toLowerCase(), folded, inOrder);
  const from = Math.max(0, at - WINDOW_MARGIN);
  const to = from + 2 * WINDOW_MARGIN;
  return { text: text.slice(from, to), cutStart: from > 0, cutEnd: to < text.length };
}

/** A piece of a turn's text, and whether text was left out before and after it. */
export interface Span {
  text: string;
  cutStart: boolean;
  cutEnd: boolean;
}

/** Up to 240 characters around the first of `terms` found, or from the start without terms. */
export function cutExcerpt(text: string, folded: string[], inOrder: string[] = []): string {
  return cutSpan(text, folded, inOrder).text;
}

function cutSpan(text: string, folded: string[], inOrder: string[]): Span {
  // counted in characters; a text with no surrogate pair has one code unit each, and is cut
  // without an array of every character (a whole quote has up to 10,000)
  const wide = SURROGATE.test(text);
  const length = wide ? [...text].length : text.length;
  if (length <= EXCERPT_CHARS) return { text, cutStart: false, cutEnd: false };
  const at = folded.length ? firstMatch(text.toLowerCase(), folded, inOrder) : -1;
  let start = 0;
  if (at > 0) {
    const charAt = wide ? [...text.slice(0, at)].length : at;
    start = Math.max(
      0,
      Math.min(charAt - Math.floor(EXCERPT_CHARS / 3), length - EXCERPT_CHARS),
    );
  }
  return {
    text: wide
      ? [...text].slice(start, start + EXCERPT_CHARS).join("")
      : text.slice(start, start + EXCERPT_CHARS),
    cutStart: start > 0,
    cutEnd: start + EXCERPT_CHARS < length,
  };
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * The excerpt of a turn whose whole folded text ingest kept (its quote in turn_text, see
 * quotesFor with `under`): the same text excerptFor reads from the blocks, with no block
 * decompressed and no record parsed. Not for a search that redacts: redaction works on the
 * record.
 */
export function excerptFromQuote(quote: string, folded: string[], inOrder: string[] = []): Span {
  return cutSpan(fold(asSeen(quote)), folded, inOrder);
}

export function excerptFor(
  db: Db,
  t: {
    sessionNo: number;
    streamOffset: number;
    byteLen: number;
    evicted: boolean;
    isToolResult?: boolean;
  },
  folded: string[],
  filter: (s: string) => string,
  blocks?: BlockCache,
  inOrder: string[] = [],
): Span {
  const none = { text: "", cutStart: false, cutEnd: false };
  if (t.evicted) return none;
  const bytes = turnBytes(db, t.sessionNo, t.streamOffset, t.byteLen, blocks);
  if (!bytes) return none;
  const redacting = isRedacting(filter);
  const raw = rawTurnText(bytes, redacting);
  // Redaction sees the whole text (a window could start inside a key block and hide its
  // marker); without it, only a window around the match is folded and cut.
  if (redacting) return cutSpan(fold(asSeen(filter(raw))), folded, inOrder);
  const w = around(raw, folded, inOrder, t.isToolResult ? WINDOW_FROM : QUOTE_FOLD_CHARS);
  const c = cutSpan(fold(asSeen(w.text)), folded, inOrder);
  return { text: c.text, cutStart: c.cutStart || w.cutStart, cutEnd: c.cutEnd || w.cutEnd };
}
