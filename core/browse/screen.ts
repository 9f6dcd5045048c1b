/**
 * The session browser's screen: a small module over raw mode and ANSI (no TUI library loads
 * under the start-up budget and runs on Deno's terminal API as well). It reads keys from the
 * terminal, keeps the state, and redraws the whole screen on every change and on resize.
 *
 * Keys follow fzf and atuin: typing always filters (the search line is the only place text
 * goes), arrows and Ctrl-P/Ctrl-N always move, and every action is on a key typing cannot
 * produce: Enter resumes, Tab opens the preview, Ctrl-R restores, Ctrl-E exports, Ctrl-T
 * tags, Ctrl-A switches between this project and all, Ctrl-U clears the line. Esc and
 * Ctrl-C leave with exit code 130, as fzf does.
 */
import { fit } from "../table.ts";
import { TerminusError } from "../errors.ts";
import type { SessionView } from "../sessions/list.ts";
import { day } from "../time.ts";
import type { BrowseSource } from "./source.ts";
import type { Streams, Terminal } from "../streams.ts";

export type Key =
  | { k: "char"; c: string }
  | {
    k:
      | "up"
      | "down"
      | "pgup"
      | "pgdn"
      | "enter"
      | "esc"
      | "tab"
      | "backspace"
      | "ctrl-c"
      | "ctrl-r"
      | "ctrl-e"
      | "ctrl-t"
      | "ctrl-a"
      | "ctrl-u";
  };

/** Splits raw terminal input into keys. Unknown escape sequences are dropped whole. */
export function parseKeys(s: string): Key[] {
  const out: Key[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "\x1b") {
      const rest = s.slice(i + 1);
      const m = /^(\[|O)([0-9;]*)([A-Za-z~])/.exec(rest);
      if (!m) {
        out.push({ k: "esc" });
        continue;
      }
      i += m[0].length;
      const code = m[2] + m[3];
      const named: Record<string, Key["k"]> = {
        A: "up",
        B: "down",
        "5~": "pgup",
        "6~": "pgdn",
        Z: "up", // shift-tab
      };
      const k = named[code] ?? named[m[3]];
      if (k) out.push({ k } as Key);
      continue;
    }
    if (c === "\r") out.push({ k: "enter" });
    else if (c === "\t") out.push({ k: "tab" });
    else if (c === "\x7f" || c === "\b") out.push({ k: "backspace" });
    else if (c === "\x03") out.push({ k: "ctrl-c" });
    else if (c === "\x12") out.push({ k: "ctrl-r" });
    else if (c === "\x05") out.push({ k: "ctrl-e" });
    else if (c === "\x14") out.push({ k: "ctrl-t" });
    else if (c === "\x01") out.push({ k: "ctrl-a" });
    else if (c === "\x15") out.push({ k: "ctrl-u" });
    else if (c === "\x10" || c === "\x0b") out.push({ k: "up" }); // Ctrl-P, Ctrl-K
    else if (c === "\x0e" || c === "\x0a") out.push({ k: "down" }); // Ctrl-N, Ctrl-J
    else if (c >= " ") out.push({ k: "char", c });
  }
  return out;
}

export interface State {
  text: string;
  /** "tag" while Ctrl-T's prompt takes the tag; otherwise typing goes to the search line. */
  focus: "search" | "tag";
  tagText: string;
  all: boolean;
  sessions: SessionView[];
  selected: number;
  top: number;
  preview: boolean;
  previewTop: number;
  previewLines: string[];
  previewOf: number | null;
  message: string;
  /**
   * Set when the browser is done: the line to print on stdout (or null), and whether the
   * person left without choosing (Esc, Ctrl-C: exit code 130).
   */
  done: { print: string | null; cancelled: boolean } | null;
  /** Bold, dim and reverse video; off under NO_COLOR, where `>` alone marks the choice. */
  styled: boolean;
}

export function initialState(styled = true): State {
  return {
    styled,
    text: "",
    focus: "search",
    tagText: "",
    all: false,
    sessions: [],
    selected: 0,
    top: 0,
    preview: false,
    previewTop: 0,
    previewLines: [],
    previewOf: null,
    message: "",
    done: null,
  };
}

/** Searches again; `keep` holds on to the chosen session when it is still found. */
function refresh(s: State, src: BrowseSource, keep = false): void {
  const was = keep ? current(s)?.session_no : undefined;
  const r = src.find(s.text, s.all);
  s.sessions = r.sessions;
  s.selected = Math.max(0, s.sessions.findIndex((v) => v.session_no === was));
  s.top = 0;
  s.message = r.problem ?? "";
}

function current(s: State): SessionView | undefined {
  return s.sessions[s.selected];
}

function act(s: State, what: () => string): void {
  try {
    s.message = what();
  } catch (e) {
    s.message = (e as Error).message;
  }
}

/** Applies one key. */
export function press(s: State, key: Key, src: BrowseSource): void {
  const sel = current(s);
  if (s.focus === "tag") {
    if (key.k === "enter") {
      const tags = s.tagText.split(/[\s,]+/).filter((t) => t !== "");
      s.focus = "search";
      if (sel && tags.length) act(s, () => src.tag(sel.session_no, tags));
      s.tagText = "";
      const said = s.message;
      refresh(s, src, true);
      s.message ||= said;
    } else if (key.k === "esc" || key.k === "ctrl-c") {
      s.focus = "search";
      s.tagText = "";
      s.message = "";
    } else if (key.k === "backspace") s.tagText = s.tagText.slice(0, -1);
    else if (key.k === "char") s.tagText += key.c;
    return;
  }
  switch (key.k) {
    case "ctrl-c":
    case "esc":
      s.done = { print: null, cancelled: true };
      return;
    case "enter":
      if (!sel) return;
      if (sel.resume) s.done = { print: sel.resume, cancelled: false };
      else if (sel.sidecar) {
        s.message = `#${sel.session_no} cannot be resumed on its own (a subagent's transcript)`;
      } else if (!sel.transcript_present) {
        s.message =
          `#${sel.session_no}'s transcript was deleted by Claude Code: Ctrl-R restores it, then Enter resumes`;
      } else s.message = `#${sel.session_no} has no session id to resume it by`;
      return;
    case "up":
      if (s.selected > 0) s.selected--;
      return;
    case "down":
      if (s.selected < s.sessions.length - 1) s.selected++;
      return;
    case "pgup":
      if (s.preview) s.previewTop = Math.max(0, s.previewTop - 10);
      else s.selected = Math.max(0, s.selected - 10);
      return;
    case "pgdn":
      if (s.preview) s.previewTop += 10;
      else s.selected = Math.max(0, Math.min(s.sessions.length - 1, s.selected + 10));
      return;
    case "tab":
      s.preview = !s.preview;
      return;
    case "ctrl-r":
      if (sel) {
        act(s, () => src.restore(sel.session_no));
        const said = s.message;
        refresh(s, src, true); // the session's transcript is there again: its resume line too
        s.message ||= said;
      }
      return;
    case "ctrl-e":
      if (sel) act(s, () => src.exportMd(sel.session_no));
      return;
    case "ctrl-t":
      if (sel) s.focus = "tag";
      return;
    case "ctrl-a":
      s.all = !s.all;
      refresh(s, src, true);
      return;
    case "ctrl-u":
      if (s.text) {
        s.text = "";
        refresh(s, src);
      }
      return;
    case "backspace":
      if (s.text) {
        s.text = s.text.slice(0, -1);
        refresh(s, src);
      }
      return;
    case "char":
      s.text += key.c;
      refresh(s, src);
      return;
  }
}

const SGR = { rev: "\x1b[7m", bold: "\x1b[1m", dim: "\x1b[2m" };

/** One row: the number padded to the list's widest (so `#14` lines up under `#212`), day, title. */
function itemLine(v: SessionView, numberWidth: number): string {
  const tags = v.tags.length ? "  " + v.tags.map((t) => `+${t}`).join(" ") : "";
  const marks = (v.sidecar ? "  (subagent)" : "") + (v.evicted ? "  (evicted)" : "") +
    (v.transcript_present === false ? "  (deleted)" : "");
  return `${`#${v.session_no}`.padEnd(numberWidth)}  ${day(v.first_turn_at)}  ${
    v.title ?? "(untitled)"
  }${tags}${marks}`;
}

/**
 * Where the preview opens: at the first line holding one of the words typed (why the row
 * matched), a couple of lines of context above it; at the start with nothing typed.
 */
export function previewStart(lines: string[], text: string): number {
  const words = text.toLowerCase().split(/\s+/).filter((w) => w.length > 1 && !w.startsWith("+"));
  if (!words.length) return 0;
  const at = lines.findIndex((l) => {
    const lower = l.toLowerCase();
    return words.some((w) => lower.includes(w));
  });
  return at < 0 ? 0 : Math.max(0, at - 2);
}

/** The whole screen for `cols` x `rows`, as the bytes to write. */
export function render(s: State, src: BrowseSource, cols: number, rows: number): string {
  const st = (k: keyof typeof SGR) => (t: string) => s.styled ? SGR[k] + t + "\x1b[0m" : t;
  const [REV, BOLD, DIM] = [st("rev"), st("bold"), st("dim")];
  const w = Math.max(20, cols);
  const h = Math.max(6, rows);
  const lines: string[] = [];
  const scope = s.all || !src.project ? "all projects" : src.project;
  lines.push(BOLD(fit(`terminus sessions · ${scope} · ${s.sessions.length} found`, w)));
  const cursor = s.focus === "search" ? "█" : "";
  lines.push(fit(`search: ${s.text}${cursor}`, w));
  // with the preview open the list keeps a third of the screen, the conversation the rest
  const listRows = s.preview ? Math.max(3, Math.floor((h - 4) / 3)) : h - 3;
  if (s.selected < s.top) s.top = s.selected;
  if (s.selected >= s.top + listRows) s.top = s.selected - listRows + 1;
  const numberWidth = Math.max(
    0,
    ...s.sessions.slice(s.top, s.top + listRows).map((v) => `#${v.session_no}`.length),
  );
  for (let i = 0; i < listRows; i++) {
    const v = s.sessions[s.top + i];
    if (!v) {
      lines.push(i === 0 && s.sessions.length === 0 ? DIM("(no session matches)") : "");
      continue;
    }
    const on = s.top + i === s.selected;
    const text = fit((on ? "> " : "  ") + itemLine(v, numberWidth), w);
    lines.push(on ? REV(text) : text);
  }
  if (s.preview) {
    const sel = current(s);
    if (sel && s.previewOf !== sel.session_no) {
      s.previewLines = src.preview(sel.session_no);
      s.previewOf = sel.session_no;
      s.previewTop = previewStart(s.previewLines, s.text);
    }
    const room = h - 3 - listRows - 1;
    s.previewTop = Math.max(0, Math.min(s.previewTop, s.previewLines.length - room));
    lines.push(DIM("─".repeat(w)));
    for (let i = 0; i < room; i++) {
      lines.push(sel ? fit(s.previewLines[s.previewTop + i] ?? "", w) : "");
    }
  }
  const help = s.focus === "tag"
    ? `tag #${current(s)?.session_no}: ${s.tagText}█  (Enter adds, Esc cancels)`
    : s.message ||
      "type to filter (+tag too) · ↑↓ · Enter resume · Tab preview · ^R restore · ^E export · ^T tag · ^A all · Esc";
  lines.push(DIM(fit(help, w)));
  return "\x1b[H" + lines.map((l) => l + "\x1b[K").join("\r\n") + "\x1b[J";
}

/** Runs the browser until a key ends it; returns the line to print, and whether it was left. */
export async function runBrowser(
  term: Terminal,
  src: BrowseSource,
  styled: boolean,
): Promise<{ print: string | null; cancelled: boolean }> {
  const s = initialState(styled);
  refresh(s, src);
  const draw = () => {
    const { columns, rows } = term.size();
    term.write(render(s, src, columns, rows));
  };
  term.setRaw(true);
  term.write("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"); // the alternate screen, cursor hidden
  const stopResize = term.onResize(draw);
  const dec = new TextDecoder();
  try {
    draw();
    const buf = new Uint8Array(1024);
    while (!s.done) {
      const n = await term.read(buf);
      if (n === null) break;
      for (const key of parseKeys(dec.decode(buf.subarray(0, n), { stream: true }))) {
        press(s, key, src);
        if (s.done) break;
      }
      if (!s.done) draw();
    }
  } finally {
    stopResize();
    term.write("\x1b[?25h\x1b[?1049l");
    term.setRaw(false);
  }
  return s.done ?? { print: null, cancelled: true };
}

/**
 * The browser's terminal, from the Context's streams: keys from stdin, the screen on stderr,
 * so stdout stays free for the one line printed at the end (`$(terminus sessions browse)`
 * works). /dev/tty would be the usual way, but the runtime grants it only with every
 * permission, which Terminus never asks for.
 */
export function openTerminal(streams: Streams | undefined): Terminal {
  if (!streams?.isTerminal("stdin") || !streams.isTerminal("stderr")) {
    throw new TerminusError(
      "sessions browse needs a terminal on stdin and stderr; to list sessions in a script, use terminus sessions",
    );
  }
  return streams.screen();
}
