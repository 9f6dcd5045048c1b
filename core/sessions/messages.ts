/**
 * A transcript as a conversation a person reads: their prompts, the assistant's text, each
 * tool call on one line with its result folded, compaction boundaries, and links to the
 * subagent sessions it started. Pure: the caller hands in parsed records.
 */
import {
  contentBlocks,
  isCompactBoundary,
  type Rec,
  slashCommand,
  str,
} from "../transcript/records.ts";
import { SHOW_ARG_CHARS } from "../constants.ts";
import { foldCut, promptText } from "../transcript/titles.ts";
import type { Change, SessionChanges } from "./changes.ts";

export interface ToolResult {
  /** The result text, folded to `max_lines` unless the whole was asked for. */
  text: string;
  /** How many lines the whole result has. */
  lines: number;
  folded: boolean;
  is_error: boolean;
}

export type Message =
  | { type: "prompt"; ts: string | null; text: string }
  | { type: "command"; ts: string | null; text: string }
  | { type: "text"; ts: string | null; text: string }
  | {
    type: "tool_call";
    ts: string | null;
    tool: string;
    argument: string;
    tool_use_id: string | null;
    result: ToolResult | null;
    /** The file changes this call made (`sessions changes`), when it made any. */
    changes?: Change[];
  }
  | { type: "compaction"; ts: string | null; trigger: string | null; pre_tokens: number | null }
  | {
    type: "subagent";
    ts: string | null;
    session_no: number;
    session_key: string;
    title: string | null;
  };

/** The input keys that name what a tool call is about, most telling first. */
const MAIN_KEYS = [
  "command",
  "file_path",
  "notebook_path",
  "path",
  "pattern",
  "url",
  "query",
  "description",
  "prompt",
  "skill",
];

/** The one argument that says what a tool call did, cut to one line. */
export function mainArgument(input: unknown): string {
  if (!input || typeof input !== "object" || Array.isArray(input)) return "";
  const o = input as Record<string, unknown>;
  for (const k of MAIN_KEYS) {
    if (typeof o[k] === "string" && o[k] !== "") return foldCut(o[k] as string, SHOW_ARG_CHARS);
  }
  for (const v of Object.values(o)) {
    if (typeof v === "string" && v !== "") return foldCut(v, SHOW_ARG_CHARS);
  }
  return "";
}

function resultText(block: Rec): string {
  const c = block.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  const parts: string[] = [];
  for (const p of c) {
    if (!p || typeof p !== "object" || Array.isArray(p)) continue;
    if (p.type === "text" && typeof p.text === "string") parts.push(p.text);
    else if (p.type === "image") parts.push("[image]");
  }
  return parts.join("\n");
}

/** Folds a result to its first `max` lines (null: the whole of it). */
export function foldResult(text: string, isError: boolean, max: number | null): ToolResult {
  const all = text.replace(/\n+$/, "").split("\n");
  const folded = max !== null && all.length > max;
  return {
    text: folded ? all.slice(0, max).join("\n") : all.join("\n"),
    lines: text === "" ? 0 : all.length,
    folded,
    is_error: isError,
  };
}

export interface SubagentLink {
  session_no: number;
  session_key: string;
  title: string | null;
  first_turn_at: string | null;
}

/**
 * The conversation of records in file order. `maxLines` folds tool results (null: whole).
 * Subagent links are placed before the first message that came after their first turn.
 */
export function conversation(
  records: Rec[],
  maxLines: number | null,
  subagents: SubagentLink[] = [],
): Message[] {
  const out: Message[] = [];
  const calls = new Map<string, Extract<Message, { type: "tool_call" }>>();
  for (const rec of records) {
    const ts = str(rec.timestamp);
    if (isCompactBoundary(rec)) {
      const meta = rec.compactMetadata && typeof rec.compactMetadata === "object" &&
          !Array.isArray(rec.compactMetadata)
        ? rec.compactMetadata as Rec
        : {};
      out.push({
        type: "compaction",
        ts,
        trigger: str(meta.trigger),
        pre_tokens: typeof meta.preTokens === "number" ? meta.preTokens : null,
      });
      continue;
    }
    if (rec.type === "user") {
      if (rec.isCompactSummary === true) continue; // the boundary stands for it
      for (const b of contentBlocks(rec)) {
        if (b.type !== "tool_result") continue;
        const call = calls.get(str(b.tool_use_id) ?? "");
        const r = foldResult(resultText(b), b.is_error === true, maxLines);
        if (call) call.result = r;
      }
      const cmd = slashCommand(rec);
      const said = cmd ?? promptText(rec);
      if (cmd) out.push({ type: "command", ts, text: cmd });
      else if (said) out.push({ type: "prompt", ts, text: said });
      continue;
    }
    if (rec.type !== "assistant") continue;
    const msg = rec.message;
    if (msg && typeof msg === "object" && !Array.isArray(msg) && typeof msg.content === "string") {
      if (msg.content.trim() !== "") out.push({ type: "text", ts, text: msg.content.trim() });
      continue;
    }
    for (const b of contentBlocks(rec)) {
      if (b.type === "text" && typeof b.text === "string" && b.text.trim() !== "") {
        out.push({ type: "text", ts, text: b.text.trim() });
      } else if (b.type === "tool_use") {
        const call: Extract<Message, { type: "tool_call" }> = {
          type: "tool_call",
          ts,
          tool: str(b.name) ?? "?",
          argument: mainArgument(b.input),
          tool_use_id: str(b.id),
          result: null,
        };
        if (call.tool_use_id) calls.set(call.tool_use_id, call);
        out.push(call);
      }
    }
  }
  return placeSubagents(out, subagents);
}

function placeSubagents(msgs: Message[], subs: SubagentLink[]): Message[] {
  if (subs.length === 0) return msgs;
  const links: Message[] = subs.map((s) => ({
    type: "subagent",
    ts: s.first_turn_at,
    session_no: s.session_no,
    session_key: s.session_key,
    title: s.title,
  }));
  const out: Message[] = [];
  let i = 0;
  for (const m of msgs) {
    while (i < links.length && links[i].ts !== null && m.ts !== null && m.ts > links[i].ts!) {
      out.push(links[i++]);
    }
    out.push(m);
  }
  while (i < links.length) out.push(links[i++]);
  return out;
}

/** Puts each call's changes on its message, to be shown inline where the edit happened. */
export function attachChanges(msgs: Message[], c: SessionChanges): Message[] {
  const byCall = new Map<string, Change[]>();
  for (const f of c.files) {
    for (const ch of f.changes) {
      if (!ch.tool_use_id) continue;
      const list = byCall.get(ch.tool_use_id) ?? [];
      list.push(ch);
      byCall.set(ch.tool_use_id, list);
    }
  }
  for (const m of msgs) {
    if (m.type !== "tool_call" || !m.tool_use_id) continue;
    const list = byCall.get(m.tool_use_id);
    if (list) m.changes = list;
  }
  return msgs;
}
