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
import { normalisePath } from "../index/entities.ts";
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

export function observe(stream: Uint8Array, branch: string | null): Mechanical {
  const lists = {
    files_read: [] as string[],
    files_modified: [] as string[],
    tools: [] as string[],
    commands: [] as string[],
    errors: [] as string[],
    commits: [] as string[],
  };
  const truncated = new Set<string>();
  const add = (k: keyof typeof lists, v: string | null) => {
    if (!v || lists[k].includes(v)) return;
    if (lists[k].length >= OBSERVATION_LIST_MAX) {
      truncated.add(k);
      return;
    }
    lists[k].push(v);
  };
  let turns = 0;
  let first: string | null = null;
  let last: string | null = null;
  let compactions = 0;
  let start = 0;
  while (start < stream.length) {
    let nl = stream.indexOf(0x0a, start);
    if (nl < 0) nl = stream.length;
    const rec: Rec | null = parseLine(stream.subarray(start, nl));
    start = nl + 1;
    if (!rec || !isTurn(rec)) continue;
    turns++;
    const ts = str(rec.timestamp);
    if (ts && (!first || ts < first)) first = ts;
    if (ts && (!last || ts > last)) last = ts;
    if (isCompactBoundary(rec)) compactions++;
    for (const b of contentBlocks(rec)) {
      if (b.type === "tool_use" && typeof b.name === "string") {
        add("tools", b.name);
        const input = (b.input && typeof b.input === "object" && !Array.isArray(b.input))
          ? b.input as Rec
          : {};
        const file = str(input.file_path) ?? str(input.notebook_path);
        if (file && READ_TOOLS.has(b.name)) add("files_read", normalisePath(file));
        if (file && WRITE_TOOLS.has(b.name)) add("files_modified", normalisePath(file));
        const cmd = str(input.command);
        if (b.name === "Bash" && cmd) {
          add("commands", cmd.trim());
          add("commits", commitMessage(cmd));
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
        add("errors", firstLine(text));
      }
    }
  }
  const duration = first && last ? Math.round((Date.parse(last) - Date.parse(first)) / 1000) : null;
  return {
    ...lists,
    branch,
    turns,
    first_turn_at: first,
    last_turn_at: last,
    duration_seconds: Number.isFinite(duration) ? duration : null,
    compactions,
    truncated: [...truncated].sort(),
  };
}
