/**
 * The shapes a command hands back, and the one renderer that turns them into bytes.
 * Commands never print; `mod.ts` writes what `render` returns and exits with its code.
 */
import type { Context } from "./context.ts";
import { wrapText } from "./width.ts";

/** A piece of human stdout: text is escaped, bytes (a `show` record) are written as they are. */
export type Chunk = string | Uint8Array;

export interface Outcome {
  /** The command's name as the envelope carries it, e.g. "observations regenerate". */
  command: string;
  ok: boolean;
  /** Prose: why the answer is empty or failed. Null when there is nothing to say. */
  reason: string | null;
  /** The --json document's data. */
  data: unknown;
  /**
   * 0 success (empty answers included), 1 operational failure; 130 only for an interactive
   * command the person left (`sessions browse`, as fzf). Misuse never gets here.
   */
  exitCode: 0 | 1 | 130;
  /** Human stdout. */
  human: Chunk[];
  /** Counts and routine commentary: stderr in human mode, dropped under --json. */
  counts: string[];
  /** Warnings and irregularities: stderr in both modes. */
  warnings: string[];
  /** Human stdout may go through the pager when it is a terminal and the text is taller. */
  page: boolean;
  /**
   * On a terminal, long human lines are wrapped to its width at spaces, each one's next lines
   * indented under its text (core/width.ts): prose such as findings, excerpts and diffs (a
   * table cuts its own cells to fit, core/table.ts). False keeps the lines as they are: bytes
   * a person copies or a program reads (`show`'s record, an export, a `claude --resume` line).
   */
  wrap: boolean;
  /**
   * Run once stdout was written (the hook records what it handed over only then); gets whether
   * the write succeeded and returns more stderr lines.
   */
  after?: (written: boolean) => string[];
}

export function outcome(command: string, data: unknown, init: Partial<Outcome> = {}): Outcome {
  return {
    command,
    ok: init.ok ?? true,
    reason: init.reason ?? null,
    data,
    exitCode: init.exitCode ?? (init.ok === false ? 1 : 0),
    human: init.human ?? [],
    counts: init.counts ?? [],
    warnings: init.warnings ?? [],
    page: init.page ?? false,
    wrap: init.wrap ?? true,
    after: init.after,
  };
}

/** Whether stdout is a terminal, as the Context's streams say (none: not one). */
export function stdoutIsTerminal(ctx: Context): boolean {
  return ctx.streams?.isTerminal("stdout") ?? false;
}

/**
 * Whether human output may carry ANSI styling: stdout is a terminal and NO_COLOR is unset
 * (an empty NO_COLOR counts as unset, as the environment's other empty values do).
 */
export function terminalStyle(ctx: Context): boolean {
  return ctx.env("NO_COLOR") === undefined && stdoutIsTerminal(ctx);
}

/**
 * The terminal's width when stdout is one; null for a pipe or a file (nothing is cut), and for
 * a terminal that reports no width (a pseudo-terminal nobody sized says 0).
 */
export function terminalColumns(ctx: Context): number | null {
  if (!stdoutIsTerminal(ctx)) return null;
  const columns = ctx.streams?.size()?.columns ?? 0;
  return columns > 0 ? columns : null;
}

const CONTROLS =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Tab and newline pass; every other C0 control, DEL and the C1 controls (U+0080–U+009F, which
 * some terminals obey too: U+009B is a one-character CSI) print as a \u00XX escape. So do the
 * bidirectional controls (U+061C, U+200E/F, U+202A–E, U+2066–9): a right-to-left override in
 * a title would reorder the rest of the line, making the text read as something it is not.
 */
export function escapeControls(s: string): string {
  return s.replace(
    CONTROLS,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === "object" && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as Record<string, unknown>).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/** JSON with keys sorted at every depth, on one line, built by the serializer. */
export function canonicalJson(v: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(v), null, indent);
}

export interface Rendered {
  stdout: Chunk[];
  stderr: string[];
  exitCode: number;
  /** The stdout may go through the pager (human output of a command that asks for it). */
  page: boolean;
}

/**
 * The bytes of an outcome: its JSON document, or its human lines escaped (and, given the
 * terminal's `columns`, wrapped to them unless the outcome keeps its lines).
 */
export function render(o: Outcome, json: boolean, columns: number | null = null): Rendered {
  if (json) {
    const doc = canonicalJson({ command: o.command, data: o.data, ok: o.ok, reason: o.reason });
    return {
      stdout: [doc + "\n"],
      stderr: o.warnings.map(escapeControls),
      exitCode: o.exitCode,
      page: false,
    };
  }
  const stderr = [...o.warnings, ...o.counts];
  if (!o.ok && o.reason) stderr.push(o.reason);
  else if (o.ok && o.reason && o.human.length === 0 && o.counts.length === 0) stderr.push(o.reason);
  const escaped = o.human.map((c) => (typeof c === "string" ? escapeControls(c) : c));
  return {
    stdout: columns === null || !o.wrap || escaped.length === 0
      ? escaped
      : [wrapped(escaped, columns)],
    stderr: stderr.map(escapeControls),
    exitCode: o.exitCode,
    page: o.page,
  };
}

/** Escaped human chunks as one text wrapped to `columns` (a long line may span chunks). */
function wrapped(chunks: Chunk[], columns: number): Uint8Array {
  const decoder = new TextDecoder();
  const text = chunks.map((c) => (typeof c === "string" ? c : decoder.decode(c))).join("");
  return encoder.encode(wrapText(text, columns));
}

/**
 * The pager command: $PAGER split into words, or `less -R` (which passes the styling through).
 * Null when paging is off ($PAGER set to `cat` or empty words).
 */
export function pagerCommand(env: (name: string) => string | undefined): string[] | null {
  const words = (env("PAGER") ?? "less -R").trim().split(/\s+/).filter((w) => w !== "");
  if (words.length === 0 || words[0] === "cat") return null;
  return words;
}

/** "200704 byte(s) (196.0 KiB)" */
export function humanBytes(n: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  if (n < 1024) return `${n} byte(s)`;
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${n} byte(s) (${v.toFixed(1)} ${units[i]})`;
}

/** Left-aligned label column, as the status and stats tables print. */
export function row(label: string, value: string | number, width = 15): string {
  return `${label.padEnd(width)}${value}`;
}

const BOLD = "\x1b[1m";
const NOT_BOLD = "\x1b[22m";
const encoder = new TextEncoder();

/** Whether a terminal may be sent bold: not when NO_COLOR is set to anything (no-color.org). */
export function boldWanted(env: (name: string) => string | undefined): boolean {
  return env("NO_COLOR") === undefined;
}

/**
 * Terminal text with `terms` in bold, wherever they occur, case aside. It is escaped like every
 * human line first, so the bold codes added after are the only controls it carries; it is
 * returned as bytes so the renderer writes it as it is.
 */
export function emphasized(text: string, terms: string[], bold: boolean): Uint8Array {
  let s = escapeControls(text);
  const words = terms.filter((t) => t.length > 0).sort((a, b) => b.length - a.length);
  if (bold && words.length) {
    const re = new RegExp(
      words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"),
      "giu",
    );
    s = s.replace(re, (m) => BOLD + m + NOT_BOLD);
  }
  return encoder.encode(s);
}

/**
 * Text that already carries its own styling codes (each piece of archived text in it escaped
 * by whoever styled it): bytes, so the renderer writes the codes as they are rather than
 * escaping them again into `\u001b[31m` on the screen. Unstyled text stays a string.
 */
export function styledChunk(text: string, styled: boolean): Chunk {
  return styled ? encoder.encode(text) : text;
}

/** The colour of each state word doctor and status print: green, yellow, red, dim. */
const STATE_SGR: Record<string, string> = {
  ok: "\x1b[32m",
  note: "\x1b[33m",
  problem: "\x1b[31m",
  unknown: "\x1b[2m",
};

/**
 * Human lines with some words in a state's colour, for a terminal (`terminalStyle`). Each
 * piece is escaped first, so the colour codes are the only controls; returned as bytes so
 * the renderer writes them as they are. `parts` alternate plain text and [state, text].
 */
export function painted(parts: (string | [string, string])[], styled: boolean): Chunk {
  const text = parts.map((p) => {
    if (typeof p === "string") return escapeControls(p);
    const [state, t] = p;
    const sgr = STATE_SGR[state];
    return styled && sgr ? `${sgr}${escapeControls(t)}\x1b[0m` : escapeControls(t);
  }).join("");
  return styled ? encoder.encode(text) : text;
}
