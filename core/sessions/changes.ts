/**
 * What a session did to files, read off its own tool calls with no model involved: Edit and
 * MultiEdit as unified diffs of their old and new strings, Write as the new content, NotebookEdit
 * cells, and the files a Bash `mv`/`git mv`/`rm`/`git rm` moved or deleted (shown, never
 * reconstructed). Pure: the caller hands in parsed records and the turn ids by uuid.
 *
 * Where the transcript proves a file's whole content before a change (a full Read of it, the
 * `originalFile` Claude Code records with an Edit, an earlier Write, or earlier changes applied
 * to one of those), the diff is taken over the whole file, so its line numbers are the file's
 * and it applies as a patch. Otherwise it is the diff of the strings alone, and says so.
 */
import { structuredPatch } from "diff";
import { contentBlocks, type Json, type Rec, str } from "../transcript/records.ts";
import { CHANGES_CONTEXT_LINES } from "../constants.ts";

export type ChangeTool = "Edit" | "MultiEdit" | "Write" | "NotebookEdit" | "Bash";

export interface Hunk {
  old_start: number;
  old_lines: number;
  new_start: number;
  new_lines: number;
  /** Each line with its mark: ' ' context, '-' removed, '+' added. */
  lines: string[];
}

export interface Change {
  /** The assistant turn that made the call (`terminus show` takes it); null if not archived as a turn. */
  turn_id: number | null;
  tool_use_id: string | null;
  ts: string | null;
  tool: ChangeTool;
  path: string;
  /** applied: the tool result says it worked; failed: an error result; unknown: no result archived. */
  status: "applied" | "failed" | "unknown";
  /** Write only: created or overwritten when the transcript shows which. */
  write: "created" | "overwritten" | null;
  /** Whether the hunks' line numbers are the file's (its content before was known). */
  whole_file: boolean;
  hunks: Hunk[];
  /** Write: the new content, when no earlier content was known to diff against. */
  content: string | null;
  /** NotebookEdit: the cell and what was done to it. */
  cell: { id: string | null; type: string | null; mode: string } | null;
  /** Bash: the command segment that moved or deleted the file. */
  command: string | null;
  /** Bash: what the shell did to this path, in words. */
  shell: string | null;
  added: number;
  removed: number;
}

export interface FileChanges {
  path: string;
  changes: Change[];
  added: number;
  removed: number;
}

export interface SessionChanges {
  files: FileChanges[];
  total: { files: number; changes: number; added: number; removed: number; failed: number };
}

type Obj = { [k: string]: Json };
const obj = (v: Json | undefined): Obj | null =>
  v && typeof v === "object" && !Array.isArray(v) ? v as Obj : null;

/** A tool result: whether it was an error, its text, and the record's structured result. */
interface Result {
  isError: boolean;
  text: string;
  structured: Obj | null;
}

function resultText(block: Rec): string {
  const c = block.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c.map((p) => (obj(p)?.type === "text" ? str(obj(p)!.text) ?? "" : "")).join("\n");
}

/** Every tool result of the session, by tool_use id. */
function resultsOf(records: Rec[]): Map<string, Result> {
  const out = new Map<string, Result>();
  for (const rec of records) {
    if (rec.type !== "user") continue;
    for (const b of contentBlocks(rec)) {
      if (b.type !== "tool_result") continue;
      const id = str(b.tool_use_id);
      if (!id) continue;
      out.set(id, {
        isError: b.is_error === true,
        text: resultText(b),
        structured: obj(rec.toolUseResult),
      });
    }
  }
  return out;
}

/** Lines of a text as a diff counts them: a last line without newline is still a line. */
function lineCount(s: string): number {
  if (s === "") return 0;
  return s.split("\n").length - (s.endsWith("\n") ? 1 : 0);
}

function hunksOf(before: string, after: string, path: string): Hunk[] {
  const p = structuredPatch(path, path, before, after, "", "", { context: CHANGES_CONTEXT_LINES });
  return p.hunks.map((h) => ({
    old_start: h.oldStart,
    old_lines: h.oldLines,
    new_start: h.newStart,
    new_lines: h.newLines,
    lines: h.lines,
  }));
}

function counts(hunks: Hunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    for (const l of h.lines) {
      if (l.startsWith("+")) added++;
      else if (l.startsWith("-")) removed++;
    }
  }
  return { added, removed };
}

/** Replaces `oldS` by `newS` once (or everywhere); null when `oldS` is not in the text. */
function replaced(text: string, oldS: string, newS: string, all: boolean): string | null {
  if (oldS === "") return text === "" ? newS : null;
  const i = text.indexOf(oldS);
  if (i < 0) return null;
  if (all) return text.split(oldS).join(newS);
  return text.slice(0, i) + newS + text.slice(i + oldS.length);
}

/** The content a full Read returned, or null for a partial one (offset/limit, or a cut result). */
function readContent(r: Result | undefined): string | null {
  if (!r || r.isError) return null;
  const file = obj(r.structured?.file);
  if (!file || typeof file.content !== "string") return null;
  const start = typeof file.startLine === "number" ? file.startLine : 1;
  const num = typeof file.numLines === "number" ? file.numLines : null;
  const total = typeof file.totalLines === "number" ? file.totalLines : null;
  if (start !== 1 || num === null || total === null || num !== total) return null;
  // a Read hands back the lines without their last newline, which nearly every text file has:
  // it is put back, so a diff over the file does not claim the file ended without one
  const c = file.content;
  return c === "" || c.endsWith("\n") ? c : c + "\n";
}

/**
 * Whether two texts hold the same lines as a Read shows them. A Read's content does not say
 * whether the file ended with a newline, nor how many empty lines closed it, so those are the
 * one thing a Read cannot prove.
 */
export function sameLines(a: string, b: string): boolean {
  return a.replace(/\n+$/, "") === b.replace(/\n+$/, "");
}

/** A shell command split into simple commands, each into words (quotes honoured, no expansion). */
export function shellCommands(command: string): string[][] {
  const out: string[][] = [];
  let words: string[] = [];
  let word = "";
  let inWord = false;
  let quote: "'" | '"' | null = null;
  const endWord = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length) out.push(words);
    words = [];
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === "\\" && quote === '"' && i + 1 < command.length) word += command[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (c === " " || c === "\t") endWord();
    else if (c === "\n" || c === ";" || c === "|" || c === "&" || c === "(" || c === ")") {
      endCommand();
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return out;
}

/** What one simple command moved or deleted: (path, what happened) pairs; empty for anything else. */
export function shellFileOps(words: string[]): { path: string; shell: string }[] {
  let w = words;
  while (w.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0])) w = w.slice(1);
  if (w[0] === "sudo" || w[0] === "command") w = w.slice(1);
  let verb: "mv" | "rm" | null = null;
  let prefix = "";
  if (w[0] === "mv" || w[0] === "rm") {
    verb = w[0];
    w = w.slice(1);
  } else if (w[0] === "git") {
    let i = 1;
    while (i < w.length && w[i].startsWith("-")) i += w[i] === "-C" || w[i] === "-c" ? 2 : 1;
    if (w[i] === "mv" || w[i] === "rm") {
      verb = w[i] as "mv" | "rm";
      prefix = "git ";
      w = w.slice(i + 1);
    }
  }
  if (!verb) return [];
  const operands: string[] = [];
  let options = true;
  for (const a of w) {
    if (options && a === "--") {
      options = false;
      continue;
    }
    if (options && a.startsWith("-") && a !== "-") continue;
    operands.push(a);
  }
  if (verb === "rm") {
    return operands.map((p) => ({ path: p, shell: `deleted by ${prefix}rm` }));
  }
  if (operands.length < 2) return [];
  const dest = operands[operands.length - 1];
  const out = operands.slice(0, -1).map((p) => ({
    path: p,
    shell: `moved to ${dest} by ${prefix}mv`,
  }));
  out.push({
    path: dest,
    shell: `${prefix}mv moved ${operands.slice(0, -1).join(", ")} here`,
  });
  return out;
}

function absolute(p: string, cwd: string | null): string {
  if (p.length > 1) p = p.replace(/\/+$/, ""); // `rm -r dir/` names the directory
  if (p.startsWith("/") || cwd === null) return p;
  const parts = (cwd.replace(/\/+$/, "") + "/" + p).split("/");
  const out: string[] = [];
  for (const s of parts) {
    if (s === "" || s === ".") continue;
    if (s === "..") out.pop();
    else out.push(s);
  }
  return "/" + out.join("/");
}

function statusOf(r: Result | undefined): Change["status"] {
  if (!r) return "unknown";
  return r.isError ? "failed" : "applied";
}

function base(
  tool: ChangeTool,
  path: string,
  turnId: number | null,
  toolUseId: string | null,
  ts: string | null,
  r: Result | undefined,
): Change {
  return {
    turn_id: turnId,
    tool_use_id: toolUseId,
    ts,
    tool,
    path,
    status: statusOf(r),
    write: null,
    whole_file: false,
    hunks: [],
    content: null,
    cell: null,
    command: null,
    shell: null,
    added: 0,
    removed: 0,
  };
}

/** How a Write's result says it went: created or overwritten, or null when it does not say. */
function writeKind(r: Result | undefined, knownBefore: boolean): Change["write"] {
  const t = str(r?.structured?.type);
  if (t === "create") return "created";
  if (t === "update") return "overwritten";
  if (r && /created successfully/i.test(r.text)) return "created";
  if (r && /has been (updated|overwritten)/i.test(r.text)) return "overwritten";
  return knownBefore ? "overwritten" : null;
}

/** One tool call as the change builders see it. */
interface Call {
  input: Obj;
  result: Result | undefined;
  cwd: string | null;
  /** What the transcript proves each file holds now (its lines), when it proves it. */
  known: Map<string, string>;
  /** A change of this call to the file its input names under `key`; null when it names none. */
  start(tool: ChangeTool, key: string): Change | null;
}

/** The content a successful call's result recorded the file had before it, if it did. */
function recordedBefore(c: Call): string | null {
  return c.result && !c.result.isError ? str(c.result.structured?.originalFile) : null;
}

function editChange(call: Call, tool: "Edit" | "MultiEdit"): Change | null {
  const c = call.start(tool, "file_path");
  if (!c) return null;
  const edits = tool === "Edit"
    ? [call.input]
    : (Array.isArray(call.input.edits) ? call.input.edits : []).map((e) => obj(e) ?? {});
  const before = recordedBefore(call) ?? call.known.get(c.path) ?? null;
  let after: string | null = before;
  for (const e of edits) {
    if (after === null) break;
    after = replaced(
      after,
      str(e.old_string) ?? "",
      str(e.new_string) ?? "",
      e.replace_all === true,
    );
  }
  if (before !== null && after !== null) {
    c.whole_file = true;
    c.hunks = hunksOf(before, after, c.path);
    if (c.status === "applied") call.known.set(c.path, after);
  } else {
    // the file's content is not proven here: each edit is its strings' own diff
    for (const e of edits) {
      c.hunks.push(
        ...hunksOf(
          withNewline(str(e.old_string) ?? ""),
          withNewline(str(e.new_string) ?? ""),
          c.path,
        ),
      );
    }
    if (c.status === "applied") call.known.delete(c.path);
  }
  return Object.assign(c, counts(c.hunks));
}

function writeChange(call: Call): Change | null {
  const c = call.start("Write", "file_path");
  if (!c) return null;
  const content = str(call.input.content) ?? "";
  const before = recordedBefore(call) ?? call.known.get(c.path) ?? null;
  c.write = writeKind(call.result, before !== null);
  if (c.write === "created" || before !== null) {
    c.whole_file = true;
    c.hunks = hunksOf(c.write === "created" ? "" : before!, content, c.path);
  } else {
    c.content = content;
  }
  const n = counts(c.hunks);
  c.added = c.content !== null ? lineCount(content) : n.added;
  c.removed = n.removed;
  if (c.status === "applied") call.known.set(c.path, content);
  return c;
}

function notebookChange(call: Call): Change | null {
  const c = call.start("NotebookEdit", "notebook_path");
  if (!c) return null;
  const mode = str(call.input.edit_mode) ?? "replace";
  c.cell = { id: str(call.input.cell_id), type: str(call.input.cell_type), mode };
  const source = str(call.input.new_source) ?? "";
  if (mode !== "delete") c.hunks = hunksOf("", withNewline(source), c.path);
  // a notebook's file is JSON: its content is no longer what any Read showed
  if (c.status === "applied") call.known.delete(c.path);
  return Object.assign(c, counts(c.hunks));
}

function shellChanges(call: Call, make: (path: string) => Change): Change[] {
  const command = str(call.input.command);
  if (!command) return [];
  const out: Change[] = [];
  for (const words of shellCommands(command)) {
    for (const op of shellFileOps(words)) {
      const c = make(absolute(op.path, call.cwd));
      c.command = words.join(" ");
      c.shell = op.shell;
      if (c.status === "applied") call.known.delete(c.path);
      out.push(c);
    }
  }
  return out;
}

/**
 * Every file change the session's tool calls made, per file in order of first change, each
 * change in transcript order. `turnIds` maps a record uuid to its turn id.
 */
export function sessionChanges(records: Rec[], turnIds: Map<string, number>): SessionChanges {
  const results = resultsOf(records);
  const known = new Map<string, string>();
  const byFile = new Map<string, Change[]>();
  const push = (c: Change | null) => {
    if (!c) return;
    const list = byFile.get(c.path) ?? [];
    list.push(c);
    byFile.set(c.path, list);
  };
  for (const rec of records) {
    if (rec.type !== "assistant") continue;
    const uuid = str(rec.uuid);
    const turnId = uuid ? turnIds.get(uuid) ?? null : null;
    const ts = str(rec.timestamp);
    const cwd = str(rec.cwd);
    for (const b of contentBlocks(rec)) {
      if (b.type !== "tool_use") continue;
      const name = str(b.name);
      const input = obj(b.input) ?? {};
      const id = str(b.id);
      const result = id ? results.get(id) : undefined;
      const make = (tool: ChangeTool, path: string) => base(tool, path, turnId, id, ts, result);
      const call: Call = {
        input,
        result,
        cwd,
        known,
        start(tool, key) {
          const p = str(input[key]);
          return p ? make(tool, absolute(p, cwd)) : null;
        },
      };
      if (name === "Read") {
        const path = str(input.file_path);
        const content = path ? readContent(result) : null;
        if (path && content !== null) known.set(absolute(path, cwd), content);
      } else if (name === "Edit" || name === "MultiEdit") push(editChange(call, name));
      else if (name === "Write") push(writeChange(call));
      else if (name === "NotebookEdit") push(notebookChange(call));
      else if (name === "Bash") shellChanges(call, (p) => make("Bash", p)).forEach(push);
    }
  }
  return summarize([...byFile.entries()].map(([path, changes]) => ({
    path,
    changes,
    // a failed edit changed nothing: it is shown, and not counted
    added: changes.reduce((n, c) => n + (c.status === "failed" ? 0 : c.added), 0),
    removed: changes.reduce((n, c) => n + (c.status === "failed" ? 0 : c.removed), 0),
  })));
}

function summarize(files: FileChanges[]): SessionChanges {
  const all = files.flatMap((f) => f.changes);
  return {
    files,
    total: {
      files: files.length,
      changes: all.length,
      added: files.reduce((n, f) => n + f.added, 0),
      removed: files.reduce((n, f) => n + f.removed, 0),
      failed: all.filter((c) => c.status === "failed").length,
    },
  };
}

/** A string diffed alone is compared as whole lines. */
function withNewline(s: string): string {
  return s === "" || s.endsWith("\n") ? s : s + "\n";
}

/** Narrows to one file (given as typed: absolute, or relative to `cwd`). */
export function onlyFile(c: SessionChanges, path: string, cwd: string): SessionChanges {
  const want = absolute(path, cwd);
  return summarize(c.files.filter((f) => f.path === want || f.path === path));
}

/** A change's diff as unified-diff text lines (the `---`/`+++` header is the caller's). */
export function diffLines(c: Change): string[] {
  const out: string[] = [];
  for (const h of c.hunks) {
    out.push(`@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@`);
    out.push(...h.lines);
  }
  return out;
}
