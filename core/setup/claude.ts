/**
 * Claude Code's `claude` command, as setup runs it: found on PATH, run by its full path with
 * no shell, with CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, and stopped after 30 seconds.
 * Also the MCP entry: reading `.claude.json` (never writing it) and deciding what to run.
 */
import type { Env } from "../paths.ts";
import { CLAUDE_TIMEOUT_MS } from "../constants.ts";
import { findOnPath, MCP_NAME, shellLine } from "./locations.ts";
import { jsonErrorWhere } from "./settings.ts";
import { concat } from "../bytes.ts";

export interface ClaudeRun {
  /** The full path run. */
  path: string;
  args: string[];
  /** null when it could not be started or was stopped. */
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the run did not finish with exit 0: why, in one line. */
  failure: string | null;
}

const decoder = new TextDecoder();

/** Reads a pipe to its end, or until `cut` aborts (a grandchild may hold it open forever). */
async function drain(stream: ReadableStream<Uint8Array>, cut: AbortSignal): Promise<string> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  cut.addEventListener("abort", stop, { once: true });
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  } catch {
    /* cut off */
  } finally {
    cut.removeEventListener("abort", stop);
  }
  return decoder.decode(concat(chunks));
}

/**
 * Calls `onTimeout` once `ms` pass, until the returned function is called. A listener left
 * on an AbortSignal.timeout keeps the process alive, so it is always taken off.
 */
function after(ms: number, onTimeout: () => void): { timedOut: () => boolean; clear: () => void } {
  const signal = AbortSignal.timeout(ms);
  signal.addEventListener("abort", onTimeout, { once: true });
  return {
    timedOut: () => signal.aborted,
    clear: () => signal.removeEventListener("abort", onTimeout),
  };
}

function firstLine(s: string): string {
  const l = s.split("\n").map((x) => x.trim()).find((x) => x !== "");
  return l ?? "";
}

/**
 * Runs `<path> <args>` with the process environment plus CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1.
 * A child that outlives the timeout is killed and its pipes are abandoned (a grandchild may
 * still hold them open).
 */
export async function runClaude(path: string, args: string[]): Promise<ClaudeRun> {
  const what = shellLine(["claude", ...args.slice(0, 2)]);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(path, {
      args,
      env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (e) {
    return {
      path,
      args,
      code: null,
      stdout: "",
      stderr: "",
      failure: `${path} could not be started: ${(e as Error).message}`,
    };
  }
  const cut = new AbortController();
  const out = drain(child.stdout, cut.signal);
  const err = drain(child.stderr, cut.signal);
  const limit = after(CLAUDE_TIMEOUT_MS, () => {
    try {
      child.kill("SIGKILL");
    } catch { /* already gone */ }
  });
  const status = await child.status;
  limit.clear();
  if (limit.timedOut()) {
    cut.abort();
    return {
      path,
      args,
      code: null,
      stdout: "",
      stderr: "",
      failure: `${what} took longer than ${CLAUDE_TIMEOUT_MS / 1000} seconds and was stopped`,
    };
  }
  // The child has exited; a grandchild holding the pipes open gets a moment, then is left.
  const late = after(2_000, () => cut.abort());
  const [stdout, stderr] = await Promise.all([out, err]);
  late.clear();
  const failure = status.success
    ? null
    : `${what} exited ${status.code}${
      firstLine(stderr) || firstLine(stdout) ? ": " + (firstLine(stderr) || firstLine(stdout)) : ""
    }`;
  return { path, args, code: status.code, stdout, stderr, failure };
}

/* ---------- the MCP entry ---------- */

export type McpEntry = Record<string, unknown>;

export type McpState =
  | { kind: "current"; entry: McpEntry }
  | { kind: "absent"; fileMissing: boolean }
  | { kind: "other"; entry: unknown }
  | { kind: "unreadable"; reason: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The entry install registers: exec form, the link by its full path. */
export function wantedEntry(link: string, keep: unknown = undefined): McpEntry {
  const entry: McpEntry = { type: "stdio", command: link, args: ["mcp"] };
  if (isObject(keep)) {
    for (const [k, v] of Object.entries(keep)) {
      if (k !== "type" && k !== "command" && k !== "args") entry[k] = v;
    }
  }
  return entry;
}

export function isCurrentEntry(v: unknown, link: string): boolean {
  return isObject(v) && v.type === "stdio" && v.command === link && Array.isArray(v.args) &&
    v.args.length === 1 && v.args[0] === "mcp";
}

/** Reads `mcpServers.terminus` from `.claude.json`. */
export function readMcpState(claudeJson: string, link: string): McpState {
  let text: string;
  try {
    text = Deno.readTextFileSync(claudeJson);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { kind: "absent", fileMissing: true };
    return { kind: "unreadable", reason: `${claudeJson} cannot be read: ${(e as Error).message}` };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { kind: "unreadable", reason: `${claudeJson} is not JSON${jsonErrorWhere(e)}` };
  }
  if (!isObject(doc)) return { kind: "unreadable", reason: `${claudeJson} is not a JSON object` };
  const servers = doc.mcpServers;
  if (servers === undefined) return { kind: "absent", fileMissing: false };
  if (!isObject(servers)) {
    return { kind: "unreadable", reason: `${claudeJson} has an mcpServers that is not an object` };
  }
  if (!(MCP_NAME in servers)) return { kind: "absent", fileMissing: false };
  const entry = servers[MCP_NAME];
  if (isCurrentEntry(entry, link)) return { kind: "current", entry: entry as McpEntry };
  return { kind: "other", entry };
}

export function addArgs(entry: McpEntry): string[] {
  return ["mcp", "add-json", "--scope", "user", MCP_NAME, JSON.stringify(entry)];
}

export const REMOVE_ARGS = ["mcp", "remove", "--scope", "user", MCP_NAME];

/** The command a person types to finish a registration, `claude` by name. */
export function typed(args: string[]): string {
  return shellLine(["claude", ...args]);
}

export function claudeOnPath(env: Env): string | null {
  return findOnPath("claude", env);
}
