/**
 * The search text of a turn: string leaves only (never keys, numbers or booleans), thinking
 * and images left out, 256 KiB at most, then the camelCase/PascalCase parts of identifiers
 * appended so `manager` finds `SearchManager` while FTS5 stays plain unicode61.
 */
import {
  ENTITY_DEPTH_LIMIT,
  FTS_BODY_MAX_BYTES,
  FTS_EXPANSION_MAX_BYTES,
  FTS_RESULT_COPY_MAX_CHARS,
} from "../constants.ts";
import type { Json, Rec } from "../transcript/records.ts";
import { lazyRegExp } from "../lazy_regexp.ts";

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

/**
 * Attachment types that carry only Claude Code's own instructions, tool and agent listings or
 * boilerplate, never the session's history: archived byte for byte, left out of the index
 * (docs/design/search.md lists why each is here).
 */
export const BOILERPLATE_ATTACHMENTS: ReadonlySet<string> = new Set([
  "prompt_snapshot",
  "skill_listing",
  "agent_listing_delta",
  "deferred_tools_delta",
  "model",
  "remote_session_change",
]);

/** How Terminus's own hand-overs begin (core/inject/frame.ts): a copy of archived turns. */
const OWN_ECHO = /^\s*Terminus (resume brief|recall) - /;

/**
 * Whether a record is Claude Code's boilerplate rather than history, or the context a hook
 * added that is Terminus's own brief or recall: quotes of turns the index already holds, which
 * would otherwise come back beside (or ahead of) the turns they quote.
 */
export function isBoilerplate(rec: Rec): boolean {
  const a = rec.attachment;
  if (rec.type !== "attachment" || !a || typeof a !== "object" || Array.isArray(a)) return false;
  if (typeof a.type !== "string") return false;
  if (BOILERPLATE_ATTACHMENTS.has(a.type)) return true;
  if (a.type !== "hook_additional_context") return false;
  const texts: string[] = [];
  leaves(a.content, texts, 1);
  return texts.length > 0 && texts.every((t) => OWN_ECHO.test(t));
}

/**
 * `toolUseResult` fields that only repeat what the turn or its tool call already holds: the
 * whole file as it was before an Edit, the patch of the Edit's own strings, the to-do list as it
 * was before.
 */
const RESULT_COPIES = new Set(["originalFile", "structuredPatch", "oldTodos"]);

/** Whether the message carries a tool result's own text (what Claude read). */
function hasResultText(c: Json): boolean {
  if (!Array.isArray(c)) return false;
  return c.some((b) => {
    if (!b || typeof b !== "object" || Array.isArray(b) || b.type !== "tool_result") return false;
    const t = b.content;
    return (typeof t === "string" && t !== "") || (Array.isArray(t) && t.length > 0);
  });
}

/** The string leaves of a record that search reads, in record order. */
export function textParts(rec: Rec): string[] {
  const out: string[] = [];
  if (isBoilerplate(rec)) return out;
  const msg = rec.message;
  let resultText = false;
  if (msg && typeof msg === "object" && !Array.isArray(msg)) {
    const c = (msg as Rec).content;
    if (typeof c === "string") out.push(c);
    else if (Array.isArray(c)) {
      for (const b of c) blockText(b, out);
      resultText = hasResultText(c);
    }
  }
  if (typeof rec.content === "string") out.push(rec.content);
  // Claude Code's structured copy of a result: when the message holds the result's text (a
  // Read's file, a Bash's output), only the copy's short strings (paths, names) are read
  const r = rec.toolUseResult;
  const copy: string[] = [];
  if (r && typeof r === "object" && !Array.isArray(r)) {
    for (const [k, v] of Object.entries(r)) if (!RESULT_COPIES.has(k)) leaves(v, copy, 2);
  } else leaves(r, copy, 1);
  for (const x of copy) if (!resultText || x.length <= FTS_RESULT_COPY_MAX_CHARS) out.push(x);
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

/** Where a case boundary sits: lower/digit then upper, or an acronym's last capital. */
const BOUNDARY = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/g;
const WORD_CHAR = lazyRegExp(String.raw`[\p{L}\p{N}]`, "u");

function wordChar(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return WORD_CHAR().test(s[i]);
}

/**
 * The case parts of the body's identifiers, once each (case-folded), capped. Only words around
 * a case boundary are looked at (a cheap regex finds them). A part the body already holds as a
 * word is appended anyway: looking each part up in the body cost a third of deriving, and a
 * part once more per turn adds one position to the index.
 */
export function expansion(body: string): string {
  const words = new Set<string>();
  BOUNDARY.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = BOUNDARY.exec(body)) !== null) {
    let s = m.index;
    while (s > 0 && wordChar(body, s - 1)) s--;
    let e = m.index + m[0].length;
    while (e < body.length && wordChar(body, e)) e++;
    words.add(body.slice(s, e));
    BOUNDARY.lastIndex = e;
  }
  if (words.size === 0) return "";
  const parts: string[] = [];
  const folded = new Set<string>();
  for (const w of words) {
    for (const p of caseParts(w)) {
      const k = p.toLowerCase();
      if (!folded.has(k)) {
        folded.add(k);
        parts.push(p);
      }
    }
  }
  const extra: string[] = [];
  let bytes = 0;
  for (const p of parts) {
    bytes += p.length + 1;
    if (bytes > FTS_EXPANSION_MAX_BYTES) break;
    extra.push(p);
  }
  return extra.join(" ");
}

export function ftsBody(rec: Rec, parts: string[] = textParts(rec)): string {
  const body = cutUtf8(parts.join("\n"), FTS_BODY_MAX_BYTES);
  const extra = expansion(body);
  return extra ? body + "\n" + extra : body;
}
