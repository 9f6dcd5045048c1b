/**
 * Structured matches: the paths, commands, errors, symbols and tools a turn's tool fields
 * name. Only tool_use / tool_result blocks and top-level toolUseResult count; never prose
 * or attachments. Deduplicated on (kind, value), at most 48 per turn in walk order.
 */
import { ENTITIES_PER_TURN, ENTITY_ACT as ACT, ERROR_ENTITY_MAX_BYTES } from "../constants.ts";

export { ACT };
import { contentBlocks, type Json, type Rec } from "../transcript/records.ts";
import { cutUtf8 } from "./fts.ts";
import { normalisePath } from "../posix.ts";

export type EntityKind = "path" | "command" | "error" | "symbol" | "tool";
export interface Entity {
  kind: EntityKind;
  value: string;
  /** How the turn touched it (ACT); absent is a mention. Prompt recall reads in this order. */
  act?: number;
}

/** The tools whose path field is the file they act on. */
const ACTING_TOOLS = new Set(["Read", "Edit", "MultiEdit", "Write", "NotebookEdit"]);
/** git subcommands that list or show files rather than act on what they name. */
const GIT_LISTING = new Set(["add", "commit", "diff", "status", "show", "log", "rm", "mv"]);

/** A Bash line that is `git <listing subcommand> ...` (after any `NAME=value` and `-C dir`). */
export function isGitListing(line: string): boolean {
  const words = line.trim().split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w));
  if ((words[0] ?? "").split("/").pop() !== "git") return false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w === "-C" || w === "-c") {
      i++;
      continue;
    }
    if (w.startsWith("-")) continue;
    return GIT_LISTING.has(w);
  }
  return false;
}

/** Error text with volatile parts replaced so the same failure matches across runs. */
export function normaliseError(text: string): string {
  let s = text;
  s = s.replace(/\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g, "<ts>");
  s = s.replace(
    /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g,
    "<uuid>",
  );
  s = s.replace(/\b0x[0-9a-fA-F]+\b/g, "<addr>");
  s = s.replace(/([A-Za-z0-9]):\d+(?::\d+)?/g, "$1:<line>");
  s = s.replace(/\s+/g, " ").trim();
  return cutUtf8(s, ERROR_ENTITY_MAX_BYTES);
}

const IDENT = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** Identifier-shaped tokens: an internal case boundary, or `_` with content on both sides. */
export function symbolsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IDENT)) {
    const t = m[0].replace(/\$/g, "");
    if (t.length < 3) continue;
    const caseBoundary = /[a-z0-9][A-Z]/.test(t);
    const underscore = /[A-Za-z0-9]_+[A-Za-z0-9]/.test(t);
    if (caseBoundary || underscore) out.push(t);
  }
  return out;
}

/**
 * A line that defines a name, in the languages transcripts hold: Python (`def`, `class`),
 * TypeScript and JavaScript (`function`, `class`, `interface`, `type X =`, `enum`), Go (`func`,
 * `func (r T) X`, `type X struct`), Rust (`fn`, `struct`, `enum`, `trait`, `mod`), Java, Kotlin,
 * Swift, Ruby and shell (`function x`). Modifiers may come first (`export default async`,
 * `pub(crate)`, `public static`). Only at the start of a line, so prose in a Markdown file ("the
 * class of problems") defines nothing.
 */
const DEFINITION = new RegExp(
  String
    .raw`^[ \t]*(?:(?:export|default|declare|pub(?:\([a-z:]*\))?|async|abstract|public|private|protected|internal|static|final|sealed|open|override|unsafe|extern|inline|data|partial)[ \t]+)*` +
    String
      .raw`(?:def|class|function\*?|func(?:[ \t]*\([^)\n]*\))?|fn|interface|struct|enum|trait|mod|module|protocol|fun|type)` +
    String.raw`[ \t]+([A-Za-z_$][A-Za-z0-9_$]*)`,
  "gm",
);
/**
 * A line at the top level (no indentation) that binds a name: `const X =`, `let X =`,
 * `var X =`, `static X:` (JavaScript, TypeScript, Go, Rust), with `export` or `pub` first. Only
 * unindented, so a function's locals (`let result = ...`) are left out.
 */
const BINDING = new RegExp(
  String
    .raw`^(?:(?:export|pub(?:\([a-z:]*\))?|declare)[ \t]+)*(?:const|let|var|static)[ \t]+(?:mut[ \t]+)?([A-Za-z_$][A-Za-z0-9_$]*)[ \t]*(?::[^=\n]*)?=`,
  "gm",
);
/** Words a definition line can carry where the name would be (`type` in `type Foo`, `fn mut`). */
const NOT_NAMES = new Set([
  "if",
  "for",
  "while",
  "return",
  "new",
  "class",
  "function",
  "struct",
  "enum",
  "interface",
  "type",
  "const",
  "let",
  "var",
  "mut",
  "self",
  "this",
  "the",
  "and",
  "that",
  "with",
]);
/** The shortest name a definition is stored for. */
const DEFINED_MIN_CHARS = 3;

/**
 * The names `text` (a Write's content, an Edit's new string) defines, in the order written:
 * `class SearchManager`, `def load_plan`, `func (s *Store) Close`, `export const retryBudget =`.
 */
export function definedNames(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const push = (raw: string) => {
    const n = raw.replace(/\$/g, "");
    if (n.length < DEFINED_MIN_CHARS || NOT_NAMES.has(n) || seen.has(n)) return;
    seen.add(n);
    out.push(n);
  };
  const found: { at: number; name: string }[] = [];
  for (const m of text.matchAll(DEFINITION)) found.push({ at: m.index!, name: m[1] });
  for (const m of text.matchAll(BINDING)) found.push({ at: m.index!, name: m[1] });
  found.sort((a, b) => a.at - b.at);
  for (const f of found) push(f.name);
  return out;
}

/** Path-shaped words of a command line or query. */
export function pathWords(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[\s;&|<>()]+/)) {
    const w = raw.replace(/^["'`]+|["'`]+$/g, "");
    if (w === "" || w.startsWith("-")) continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) continue;
    if (!w.includes("/") && !w.includes("\\")) continue;
    if (/[$`*?{}]/.test(w)) continue;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(w)) continue;
    const n = normalisePath(w);
    if (n !== "") out.push(n);
  }
  return out;
}

/** The command a Bash line runs: the first word that is not `NAME=value`, as a basename. */
export function commandName(line: string): string | null {
  for (const raw of line.trim().split(/\s+/)) {
    const w = raw.replace(/^["'`]+|["'`]+$/g, "");
    if (w === "" || /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) continue;
    const base = w.split("/").pop() ?? w;
    return base === "" ? null : base;
  }
  return null;
}

function obj(v: Json | undefined): Rec | null {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Rec) : null;
}

function resultText(content: Json | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((
      c,
    ) => (obj(c) && obj(c)!.type === "text" && typeof obj(c)!.text === "string"
      ? obj(c)!.text as string
      : "")
    )
    .filter((s) => s !== "")
    .join("\n");
}

/** The text a Write, Edit, MultiEdit or NotebookEdit call puts into its file. */
function writtenTexts(tool: string, input: Rec): string[] {
  const out: string[] = [];
  const take = (v: Json | undefined) => {
    if (typeof v === "string" && v !== "") out.push(v);
  };
  if (tool === "Write") take(input.content);
  else if (tool === "Edit") take(input.new_string);
  else if (tool === "NotebookEdit") take(input.new_source);
  else if (tool === "MultiEdit" && Array.isArray(input.edits)) {
    for (const e of input.edits) take(obj(e)?.new_string);
  }
  return out;
}

export function extractEntities(rec: Rec): Entity[] {
  const out: Entity[] = [];
  const seen = new Map<string, Entity>();
  const add = (kind: EntityKind, value: string | null | undefined, act: number = ACT.mention) => {
    if (!value) return;
    const k = kind + "\u0000" + value;
    const had = seen.get(k);
    // the same thing named twice keeps the strongest way it was touched
    if (had) {
      if (act < (had.act ?? ACT.mention)) had.act = act;
      return;
    }
    if (out.length >= ENTITIES_PER_TURN) return;
    const e: Entity = act === ACT.mention ? { kind, value } : { kind, value, act };
    seen.set(k, e);
    out.push(e);
  };
  for (const b of contentBlocks(rec)) {
    if (b.type === "tool_use" && typeof b.name === "string") {
      const name = b.name;
      add("tool", name);
      const input = obj(b.input) ?? {};
      const pathAct = ACTING_TOOLS.has(name) ? ACT.direct : ACT.mention;
      for (const f of ["file_path", "path", "notebook_path"]) {
        if (typeof input[f] === "string") add("path", normalisePath(input[f] as string), pathAct);
      }
      if (name === "Bash" && typeof input.command === "string") {
        const act = isGitListing(input.command) ? ACT.listing : ACT.mention;
        add("command", commandName(input.command));
        for (const p of pathWords(input.command)) add("path", p, act);
        // The identifiers the whole invocation names: prompt recall matches a command by them.
        for (const s of symbolsIn(input.command)) add("symbol", s, act);
      }
      if (name === "Grep" && typeof input.pattern === "string") {
        for (const s of symbolsIn(input.pattern)) add("symbol", s, ACT.direct);
      }
      // what a Write or an Edit defines is a direct act on that name, as a Grep of it is
      for (const text of writtenTexts(name, input)) {
        for (const s of definedNames(text)) add("symbol", s, ACT.direct);
      }
      if ((name === "Edit" || name === "MultiEdit")) {
        for (const f of ["old_string", "new_string"]) {
          if (typeof input[f] === "string") {
            for (const s of symbolsIn(input[f] as string)) add("symbol", s);
          }
        }
      }
      if (name.endsWith("recall_search")) {
        if (typeof input.query === "string") {
          for (const s of symbolsIn(input.query)) add("symbol", s);
          for (const p of pathWords(input.query)) add("path", p);
        }
        if (Array.isArray(input.paths)) {
          for (const p of input.paths) if (typeof p === "string") add("path", normalisePath(p));
        }
      }
    } else if (b.type === "tool_result" && b.is_error === true) {
      const t = resultText(b.content);
      if (t.trim() !== "") add("error", normaliseError(t));
    }
  }
  const tur = obj(rec.toolUseResult);
  if (tur) {
    if (typeof tur.filePath === "string") add("path", normalisePath(tur.filePath));
    const file = obj(tur.file);
    if (file && typeof file.filePath === "string") add("path", normalisePath(file.filePath));
    if (typeof tur.stderr === "string" && tur.stderr.trim() !== "") {
      add("error", normaliseError(tur.stderr));
    }
  }
  return out;
}
