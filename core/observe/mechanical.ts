/**
 * The mechanical facts of a closed session, read off its own records with no model: files
 * read and modified, tools, whole command lines, errors, commit messages, counts and times.
 */
import {
  contentBlocks,
  isCompactBoundary,
  isTurn,
  parseLine,
  type Rec,
  str,
} from "../transcript/records.ts";
import { normalisePath } from "../posix.ts";
import { OBSERVATION_LIST_MAX } from "../constants.ts";

export interface Mechanical {
  files_read: string[];
  files_modified: string[];
  tools: string[];
  commands: string[];
  errors: string[];
  commits: string[];
  branch: string | null;
  turns: number;
  first_turn_at: string | null;
  last_turn_at: string | null;
  duration_seconds: number | null;
  compactions: number;
  truncated: string[];
}

const READ_TOOLS = new Set(["Read", "NotebookRead"]);
const WRITE_TOOLS = new Set(["Edit", "MultiEdit", "Write", "NotebookEdit"]);
const ERROR_LINE_MAX = 200;

/**
 * `git commit -m "msg"` / `-m 'msg'` / `-m msg` / `-m"msg"` / `--message=msg`, and `-m` last in
 * a cluster of short flags (`-am`, `-sm`): the first message line.
 */
export function commitMessage(command: string): string | null {
  if (!/\bgit\b[^\n;&|]*\bcommit\b/.test(command)) return null;
  const m =
    /(?:^|\s)(?:-[A-Za-z]*m|--message)(?:\s+|=|(?=["']))(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))/
      .exec(command);
  if (!m) return null;
  let msg = m[1] ?? m[2] ?? m[3] ?? "";
  // a heredoc message: take its first non-empty line
  const heredoc = /\$\(cat <<'?(\w+)'?\n([\s\S]*?)\n\s*\1/.exec(msg);
  if (heredoc) msg = heredoc[2];
  msg = msg.replace(/\\"/g, '"').split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  return msg === "" ? null : msg;
}

function firstLine(s: string): string {
  const line = s.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  return line.length > ERROR_LINE_MAX ? line.slice(0, ERROR_LINE_MAX) : line;
}

/** Observes a session from its lines, given one at a time so no whole stream is held. */
export function observe(lines: Iterable<Uint8Array>, branch: string | null): Mechanical {
  const o = new Observer();
  for (const line of lines) {
    const rec: Rec | null = parseLine(line);
    if (rec) o.add(rec);
  }
  return o.result(branch);
}

type ListKey = "files_read" | "files_modified" | "tools" | "commands" | "errors" | "commits";

/**
 * The facts so far of a session's records, fed in stream order. The pass feeds the records it
 * has just parsed to archive them, so a session archived whole in one pass is observed without
 * reading its blocks back; `observe` feeds the archived lines.
 */
export class Observer {
  lists: Record<ListKey, string[]> = {
    files_read: [],
    files_modified: [],
    tools: [],
    commands: [],
    errors: [],
    commits: [],
  };
  truncated = new Set<string>();
  turns = 0;
  first: string | null = null;
  last: string | null = null;
  compactions = 0;

  #put(k: ListKey, v: string | null): void {
    const list = this.lists[k];
    if (!v || list.includes(v)) return;
    if (list.length >= OBSERVATION_LIST_MAX) {
      this.truncated.add(k);
      return;
    }
    list.push(v);
  }

  add(rec: Rec): void {
    if (!isTurn(rec)) return;
    this.turns++;
    const ts = str(rec.timestamp);
    if (ts && (!this.first || ts < this.first)) this.first = ts;
    if (ts && (!this.last || ts > this.last)) this.last = ts;
    if (isCompactBoundary(rec)) this.compactions++;
    for (const b of contentBlocks(rec)) {
      if (b.type === "tool_use" && typeof b.name === "string") {
        this.#put("tools", b.name);
        const input = (b.input && typeof b.input === "object" && !Array.isArray(b.input))
          ? b.input as Rec
          : {};
        const file = str(input.file_path) ?? str(input.notebook_path);
        if (file && READ_TOOLS.has(b.name)) this.#put("files_read", normalisePath(file));
        if (file && WRITE_TOOLS.has(b.name)) this.#put("files_modified", normalisePath(file));
        const cmd = str(input.command);
        if (b.name === "Bash" && cmd) {
          this.#put("commands", cmd.trim());
          this.#put("commits", commitMessage(cmd));
        }
      } else if (b.type === "tool_result" && b.is_error === true) {
        const c = b.content;
        const text = typeof c === "string" ? c : Array.isArray(c)
          ? c.map((
            x,
          ) => (x && typeof x === "object" && !Array.isArray(x) && typeof x.text === "string"
            ? x.text
            : "")
          ).join("\n")
          : "";
        this.#put("errors", firstLine(text));
      }
    }
  }

  result(branch: string | null): Mechanical {
    const { first, last } = this;
    const duration = first && last
      ? Math.round((Date.parse(last) - Date.parse(first)) / 1000)
      : null;
    return {
      ...this.lists,
      branch,
      turns: this.turns,
      first_turn_at: first,
      last_turn_at: last,
      duration_seconds: Number.isFinite(duration) ? duration : null,
      compactions: this.compactions,
      truncated: [...this.truncated].sort(),
    };
  }
}
