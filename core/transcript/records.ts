/**
 * Reading transcript records: which lines are turns, and the few fields the archive keeps
 * beside the blocks. Every field is optional and the set of record types is open.
 */

export const TURN_TYPES = new Set(["user", "assistant", "system", "attachment"]);

/** Text a harness writes into a user record that no person typed. */
const HARNESS_PREFIXES = [
  "<command-message>",
  "<command-name>",
  "<local-command-caveat>",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "<task-notification>",
  "<bash-stdout>",
  "<bash-stderr>",
  "<bash-input>",
  "[Request interrupted by user",
];

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Rec = { [k: string]: Json };

export interface ParsedLine {
  /** The parsed record, or null for a line that is not a JSON object. */
  rec: Rec | null;
}

const decoder = new TextDecoder("utf-8", { fatal: false });

export function parseLine(bytes: Uint8Array): Rec | null {
  try {
    const v = JSON.parse(decoder.decode(bytes));
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Rec) : null;
  } catch {
    return null;
  }
}

/** One record of a line: the object and where its bytes lie in the line. */
export interface LineRecord {
  rec: Rec;
  start: number;
  end: number;
}

const OPEN = 0x7b; // {
const CLOSE = 0x7d; // }
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The records a line holds: one JSON object, or several glued together with nothing between
 * them (`{...}{...}`, which Claude Code writes now and then when a record lands on a line left
 * without its newline). Null when the line is neither: not JSON, or a piece of it is not an
 * object. The split is found by bracket depth outside strings, and each piece is parsed alone.
 */
export function lineRecords(bytes: Uint8Array): LineRecord[] | null {
  const one = parseLine(bytes);
  if (one) return [{ rec: one, start: 0, end: bytes.length }];
  if (bytes[0] !== OPEN) return null;
  const out: LineRecord[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN || c === 0x5b) {
      if (depth === 0 && c === OPEN && i !== start) return null;
      depth++;
    } else if (c === CLOSE || c === 0x5d) {
      depth--;
      if (depth < 0) return null;
      if (depth === 0) {
        const rec = parseLine(bytes.subarray(start, i + 1));
        if (!rec) return null;
        out.push({ rec, start, end: i + 1 });
        start = i + 1;
      }
    } else if (depth === 0) return null; // bytes between the records
  }
  return depth === 0 && start === bytes.length && out.length > 1 ? out : null;
}

export function str(v: Json | undefined): string | null {
  return typeof v === "string" ? v : null;
}

export function isTurn(rec: Rec): boolean {
  return typeof rec.type === "string" && TURN_TYPES.has(rec.type) &&
    typeof rec.uuid === "string" && typeof rec.timestamp === "string";
}

export function contentBlocks(rec: Rec): Rec[] {
  const msg = rec.message;
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return [];
  const c = (msg as Rec).content;
  if (!Array.isArray(c)) return [];
  return c.filter((b): b is Rec => !!b && typeof b === "object" && !Array.isArray(b));
}

export function messageText(rec: Rec): string | null {
  const msg = rec.message;
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) return null;
  const c = (msg as Rec).content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return null;
  const parts: string[] = [];
  for (const b of c) {
    if (
      b && typeof b === "object" && !Array.isArray(b) && b.type === "text" &&
      typeof b.text === "string"
    ) {
      parts.push(b.text);
    }
  }
  return parts.length ? parts.join("\n") : null;
}

/** The first tool_use block's name. */
export function firstToolName(rec: Rec): string | null {
  for (const b of contentBlocks(rec)) {
    if (b.type === "tool_use" && typeof b.name === "string") return b.name;
  }
  return null;
}

export function hasToolResult(rec: Rec): boolean {
  return contentBlocks(rec).some((b) => b.type === "tool_result");
}

/**
 * A user turn a person typed, not one the harness wrote: never a subagent's prompt (a sidechain
 * record is the Task prompt the parent wrote), and a slash command counts, as typed.
 */
export function isTyped(rec: Rec): boolean {
  if (rec.type !== "user" || rec.isMeta === true || rec.isCompactSummary === true) return false;
  if (rec.isSidechain === true || hasToolResult(rec)) return false;
  const text = messageText(rec);
  if (text === null) return false;
  const t = text.trimStart();
  if (t === "") return false;
  if (slashCommand(rec) !== null) return true;
  return !HARNESS_PREFIXES.some((p) => t.startsWith(p));
}

const COMMAND_NAME = /<command-name>\s*(\/[^<\s]+)\s*<\/command-name>/;
const COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;

/** A slash command as the person typed it (`/erk:plan-implement 8511`), from Claude Code's tags. */
export function slashCommand(rec: Rec): string | null {
  if (rec.type !== "user" || rec.isMeta === true) return null;
  const text = messageText(rec);
  if (text === null) return null;
  const t = text.trimStart();
  if (!t.startsWith("<command-name>") && !t.startsWith("<command-message>")) return null;
  const name = COMMAND_NAME.exec(t);
  if (!name) return null;
  const args = COMMAND_ARGS.exec(t)?.[1].trim() ?? "";
  return args === "" ? name[1] : `${name[1]} ${args}`;
}

export function isCompactBoundary(rec: Rec): boolean {
  return rec.type === "system" && rec.subtype === "compact_boundary";
}
