/**
 * Excerpts are cut from the archived blocks, never from FTS5: the turn's searchable text
 * with whitespace folded, at most 240 characters, around the first matching word.
 */
import type { Db } from "../store/db.ts";
import { readStream } from "../store/archive.ts";
import { parseLine } from "../transcript/records.ts";
import { textParts } from "../index/fts.ts";
import { EXCERPT_CHARS } from "../constants.ts";
import { isRedacting, redactValues } from "../egress.ts";

export function turnBytes(
  db: Db,
  sessionNo: number,
  offset: number,
  len: number,
): Uint8Array | null {
  try {
    return readStream(db, sessionNo, offset, len);
  } catch {
    return null; // evicted or damaged: the archive will not give the bytes up
  }
}

/** The turn's text, folded; with `redacting`, values under secret-named keys are taken out first. */
export function turnText(line: Uint8Array, redacting = false): string {
  return fold(rawTurnText(line, redacting));
}

function rawTurnText(line: Uint8Array, redacting: boolean): string {
  const rec = parseLine(line);
  return rec
    ? textParts(redacting ? redactValues(rec) : rec).join(" ")
    : new TextDecoder().decode(line);
}

export function fold(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** Room kept either side of the first match before folding, far more than one excerpt needs. */
const WINDOW_MARGIN = 4 * EXCERPT_CHARS;

/**
 * A stretch of a long text around the first match, so folding and cutting work on a few
 * hundred characters instead of a whole file a tool read.
 */
function around(text: string, folded: string[]): string {
  if (text.length <= 4 * WINDOW_MARGIN) return text;
  const lower = text.toLowerCase();
  let at = -1;
  for (const t of folded) {
    const i = lower.indexOf(t);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  const from = Math.max(0, at - WINDOW_MARGIN);
  return text.slice(from, from + 2 * WINDOW_MARGIN);
}

/** Up to 240 characters around the first of `terms` found, or from the start without terms. */
export function cutExcerpt(text: string, folded: string[]): string {
  const chars = [...text];
  if (chars.length <= EXCERPT_CHARS) return text;
  let at = -1;
  if (folded.length) {
    const lower = text.toLowerCase();
    for (const t of folded) {
      const i = lower.indexOf(t);
      if (i >= 0 && (at < 0 || i < at)) at = i;
    }
  }
  let start = 0;
  if (at > 0) {
    const charAt = [...text.slice(0, at)].length;
    start = Math.max(
      0,
      Math.min(charAt - Math.floor(EXCERPT_CHARS / 3), chars.length - EXCERPT_CHARS),
    );
  }
  return chars.slice(start, start + EXCERPT_CHARS).join("");
}

export function excerptFor(
  db: Db,
  t: { sessionNo: number; streamOffset: number; byteLen: number; evicted: boolean },
  folded: string[],
  filter: (s: string) => string,
): string {
  if (t.evicted) return "";
  const bytes = turnBytes(db, t.sessionNo, t.streamOffset, t.byteLen);
  if (!bytes) return "";
  const redacting = isRedacting(filter);
  const raw = rawTurnText(bytes, redacting);
  // Redaction sees the whole text (a window could start inside a key block and hide its
  // marker); without it, only a window around the match is folded and cut.
  return cutExcerpt(redacting ? fold(filter(raw)) : fold(around(raw, folded)), folded);
}
