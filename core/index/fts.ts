/**
 * The search text of a turn: string leaves only (never keys, numbers or booleans), thinking
 * and images left out, 256 KiB at most, then the camelCase/PascalCase parts of identifiers
 * appended so `manager` finds `SearchManager` while FTS5 stays plain unicode61.
 */
import { ENTITY_DEPTH_LIMIT, FTS_BODY_MAX_BYTES, FTS_EXPANSION_MAX_BYTES } from "../constants.ts";
import type { Json, Rec } from "../transcript/records.ts";

function leaves(v: Json | undefined, out: string[], depth: number): void {
  if (depth > ENTITY_DEPTH_LIMIT || v === undefined || v === null) return;
  if (typeof v === "string") {
    if (v !== "") out.push(v);
  } else if (Array.isArray(v)) {
    for (const x of v) leaves(x, out, depth + 1);
  } else if (typeof v === "object") {
    for (const x of Object.values(v)) leaves(x, out, depth + 1);
  }
}

function blockText(b: Json, out: string[]): void {
  if (typeof b === "string") {
    out.push(b);
    return;
  }
  if (!b || typeof b !== "object" || Array.isArray(b)) return;
  switch (b.type) {
    case "text":
      if (typeof b.text === "string") out.push(b.text);
      break;
    case "tool_use":
      if (typeof b.name === "string") out.push(b.name);
      leaves(b.input, out, 2);
      break;
    case "tool_result":
      if (typeof b.content === "string") out.push(b.content);
      else if (Array.isArray(b.content)) {
        for (const c of b.content) {
          if (
            c && typeof c === "object" && !Array.isArray(c) && c.type === "text" &&
            typeof c.text === "string"
          ) {
            out.push(c.text);
          }
        }
      }
      break;
    default:
      break; // thinking, redacted_thinking, image: not indexed
  }
}

/** The string leaves of a record that search reads, in record order. */
export function textParts(rec: Rec): string[] {
  const out: string[] = [];
  const msg = rec.message;
  if (msg && typeof msg === "object" && !Array.isArray(msg)) {
    const c = (msg as Rec).content;
    if (typeof c === "string") out.push(c);
    else if (Array.isArray(c)) { for (const b of c) blockText(b, out); }
  }
  if (typeof rec.content === "string") out.push(rec.content);
  leaves(rec.toolUseResult, out, 1);
  leaves(rec.attachment, out, 1);
  return out;
}

const encoder = new TextEncoder();

/** Cuts a string to at most `max` UTF-8 bytes without splitting a character. */
export function cutUtf8(s: string, max: number): string {
  if (s.length * 3 <= max) return s;
  const bytes = encoder.encode(s);
  if (bytes.length <= max) return s;
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(bytes.subarray(0, end));
}

const isUpper = (c: string) => c !== c.toLowerCase() && c === c.toUpperCase();
const isLower = (c: string) => c !== c.toUpperCase() && c === c.toLowerCase();
const isDigit = (c: string) => c >= "0" && c <= "9";

/** `searchManager` -> [search, Manager]; `HTTPServer` -> [HTTP, Server]; `S3Client` -> [S3, Client]. */
export function caseParts(word: string): string[] {
  const chars = [...word];
  const parts: string[] = [];
  let start = 0;
  for (let i = 1; i < chars.length; i++) {
    const c = chars[i];
    if (!isUpper(c)) continue;
    const prev = chars[i - 1];
    const next = chars[i + 1];
    if (isLower(prev) || isDigit(prev) || (isUpper(prev) && next !== undefined && isLower(next))) {
      parts.push(chars.slice(start, i).join(""));
      start = i;
    }
  }
  if (start === 0) return [];
  parts.push(chars.slice(start).join(""));
  return parts;
}

const RUN = /[\p{L}\p{N}]+/gu;
/** A run can only split when it has an upper-case letter after its first character. */
const ASCII_SPLITTABLE = /^[A-Za-z0-9]+$/;
const HAS_INNER_UPPER = /.[A-Z]/;
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The case parts of the body's identifiers not already in it, once each, capped. One pass:
 * a word's own tokens are known before any later word's parts are considered, and a part is
 * checked against the words seen so far and every word after it, by a set built up front.
 */
export function expansion(body: string): string {
  const words = body.match(RUN);
  if (!words) return "";
  const seen = new Set<string>();
  for (const w of words) seen.add(w.toLowerCase());
  const extra: string[] = [];
  let bytes = 0;
  for (const w of words) {
    // fast rejection: an ASCII word with no upper case after its first letter has no parts
    if (!NON_ASCII.test(w) && (!ASCII_SPLITTABLE.test(w) || !HAS_INNER_UPPER.test(w))) continue;
    for (const p of caseParts(w)) {
      const k = p.toLowerCase();
      if (seen.has(k)) continue;
      seen.add(k);
      bytes += p.length + 1;
      if (bytes > FTS_EXPANSION_MAX_BYTES) return extra.join(" ");
      extra.push(p);
    }
  }
  return extra.join(" ");
}

export function ftsBody(rec: Rec, parts: string[] = textParts(rec)): string {
  const body = cutUtf8(parts.join("\n"), FTS_BODY_MAX_BYTES);
  const extra = expansion(body);
  return extra ? body + "\n" + extra : body;
}
