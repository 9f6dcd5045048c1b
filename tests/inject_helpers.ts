/**
 * Helpers for the injection tests (hooks, MCP, stats and replay): transcripts in Claude Code's
 * record shapes, the hook run as a real child process with a real payload on stdin, and the
 * decision queue read back. Built on tests/helpers.ts; nothing here mocks anything.
 */
import { join } from "node:path";
import { missedDeadline, retryPastDeadline } from "./deadline.ts";
import {
  cliArgs,
  cliOk,
  type CliResult,
  jsonl,
  parseEnvelope,
  query,
  type Sandbox,
  sandbox,
  writeTranscript,
} from "./helpers.ts";

export type Rec = Record<string, unknown>;

/** Projects that exist nowhere on disk, so the pass files them by their cwd (no git). */
export const ROOT = "/nonexistent/terminus-inject";
export const ALPHA = `${ROOT}/alpha`;
export const BETA = `${ROOT}/beta`;
export const SECRET = `${ROOT}/secret`;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

let uuidSeq = 0;

/** A transcript under construction; each record is one second after the one before. */
export class Session {
  readonly records: Rec[] = [];
  #t: number;
  #last: string | null = null;
  #tool = 0;

  constructor(
    readonly sessionId: string,
    readonly cwd: string,
    start: string,
    readonly branch: string | null = "main",
  ) {
    this.#t = Date.parse(start);
  }

  /** The next record's time; records after it step on by a second. */
  at(ts: string): this {
    this.#t = Date.parse(ts) - 1000;
    return this;
  }

  /** Appends a turn record and returns its uuid. */
  turn(type: string, extra: Rec): string {
    this.#t += 1000;
    uuidSeq++;
    const uuid = `00000000-0000-4000-8000-${uuidSeq.toString(16).padStart(12, "0")}`;
    this.records.push({
      parentUuid: this.#last,
      isSidechain: false,
      userType: "external",
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: "2.1.328",
      ...(this.branch === null ? {} : { gitBranch: this.branch }),
      type,
      uuid,
      timestamp: new Date(this.#t).toISOString(),
      ...extra,
    });
    this.#last = uuid;
    return uuid;
  }

  user(text: string): string {
    return this.turn("user", { message: { role: "user", content: text } });
  }

  assistant(text: string): string {
    return this.turn("assistant", {
      message: { role: "assistant", content: [{ type: "text", text }] },
    });
  }

  /** An assistant turn calling a tool (with an optional line of text before the call). */
  tool(name: string, input: Rec, text?: string): string {
    this.#tool++;
    const content: Rec[] = [];
    if (text) content.push({ type: "text", text });
    content.push({ type: "tool_use", id: `toolu_${this.#tool}`, name, input });
    return this.turn("assistant", { message: { role: "assistant", content } });
  }

  /** The user record carrying the last call's result. */
  result(content: string, toolUseResult: Rec | string = content, isError = false): string {
    return this.turn("user", {
      message: {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: `toolu_${this.#tool}`,
          content,
          ...(isError ? { is_error: true } : {}),
        }],
      },
      toolUseResult,
    });
  }

  /** A Read of `path` and its result. Returns [call uuid, result uuid]. */
  read(path: string, fileText: string): [string, string] {
    const call = this.tool("Read", { file_path: path });
    const res = this.result(fileText, {
      type: "text",
      file: { filePath: path, content: fileText, numLines: 1, startLine: 1, totalLines: 1 },
    });
    return [call, res];
  }

  text(): string {
    return jsonl(this.records);
  }

  /** Writes the transcript under the sandbox's Claude root; returns its path. */
  write(sb: Sandbox): Promise<string> {
    return writeTranscript(sb.claude, this.cwd, `${this.sessionId}.jsonl`, this.text());
  }
}

/** A fixed, valid session id (Claude Code's are uuids). */
export function sid(n: number): string {
  return `${n.toString(16).padStart(8, "0")}-1111-4111-8111-111111111111`;
}

/** Days before now, as an ISO instant. */
export function daysAgo(days: number, plusMs = 0): string {
  return new Date(Date.now() - days * 86_400_000 + plusMs).toISOString();
}

/** The turn id archived for a record uuid. */
export function turnIdOf(sb: Sandbox, uuid: string): number {
  const rows = query<{ id: number }>(sb.store, "SELECT id FROM turns WHERE uuid = ?", uuid);
  if (rows.length !== 1) throw new Error(`uuid ${uuid}: ${rows.length} turn(s) archived`);
  return rows[0].id;
}

/** One `terminus ingest` that really ran (a hook's detached pass may hold the lock briefly). */
export async function ingestSettled(sb: Sandbox): Promise<CliResult> {
  for (let i = 0; i < 200; i++) {
    const r = await cliOk(sb, ["ingest"]);
    if (!r.err.includes("holds the ingest lock")) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error("the ingest lock stayed held");
}

/** `terminus <args> --json`, exit 0, parsed. */
export async function jsonData(sb: Sandbox, args: string[]): Promise<Rec> {
  const r = await cliOk(sb, [...args, "--json"]);
  const env = parseEnvelope(r.out);
  if (!env.ok) throw new Error(`${args.join(" ")}: ok false: ${env.reason}`);
  return env.data;
}

/* ---------- the hook as Claude Code runs it ---------- */

export interface HookRun {
  code: number;
  out: string;
  err: string;
  /** stderr split into lines, without the empty last one. */
  errLines: string[];
}

export interface HookOptions {
  /** The payload (an object is serialised), or raw bytes. */
  stdin?: Rec | string | Uint8Array;
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Wraps the command line, e.g. to run it under setpriv. */
  argv?: (argv: string[]) => string[];
}

/** A Claude Code payload for `event`, with the fields every payload carries. */
export function payload(event: string, sessionId: string, cwd: string, extra: Rec = {}): Rec {
  return {
    session_id: sessionId,
    transcript_path: `/nonexistent/claude/projects/x/${sessionId}.jsonl`,
    cwd,
    hook_event_name: event,
    ...extra,
  };
}

export function promptPayload(sessionId: string, cwd: string, prompt: string): Rec {
  return payload("UserPromptSubmit", sessionId, cwd, {
    prompt,
    prompt_id: crypto.randomUUID(),
    permission_mode: "default",
  });
}

export function startPayload(sessionId: string, cwd: string, source = "startup"): Rec {
  return payload("SessionStart", sessionId, cwd, { source, model: "claude-opus-5-5" });
}

function hookEnv(sb: Sandbox, extra: HookOptions["env"]): Record<string, string> {
  const env = { ...sb.env };
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** `terminus hook <args>` with the payload written to stdin and stdin closed. */
export async function hook(sb: Sandbox, args: string[], o: HookOptions = {}): Promise<HookRun> {
  const [cmd, ...argv] = (o.argv ?? ((x) => x))([Deno.execPath(), ...cliArgs(["hook", ...args])]);
  const child = new Deno.Command(cmd, {
    args: argv,
    cwd: o.cwd ?? sb.dir,
    env: hookEnv(sb, o.env),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const data = o.stdin === undefined
    ? new Uint8Array()
    : o.stdin instanceof Uint8Array
    ? o.stdin
    : encoder.encode(typeof o.stdin === "string" ? o.stdin : JSON.stringify(o.stdin));
  const w = child.stdin.getWriter();
  // A hook may stop reading (over 1 MiB) and exit: a broken pipe then is its answer, not ours.
  await w.write(data).catch(() => {});
  await w.close().catch(() => {});
  const out = await child.output();
  const err = decoder.decode(out.stderr);
  return {
    code: out.code,
    out: decoder.decode(out.stdout),
    err,
    errLines: err.split("\n").filter((l, i, a) => !(l === "" && i === a.length - 1)),
  };
}

/** The additionalContext of a hook's answer, checking the answer's shape on the way. */
export function additionalContext(r: HookRun, event: string): string | null {
  if (r.out === "") return null;
  if (!r.out.endsWith("\n") || r.out.slice(0, -1).includes("\n")) {
    throw new Error(`hook stdout is not one line: ${JSON.stringify(r.out)}`);
  }
  const doc = JSON.parse(r.out);
  const keys = Object.keys(doc).join(",");
  if (keys !== "hookSpecificOutput") throw new Error(`hook answer keys: ${keys}`);
  const inner = doc.hookSpecificOutput;
  if (Object.keys(inner).sort().join(",") !== "additionalContext,hookEventName") {
    throw new Error(`hookSpecificOutput keys: ${Object.keys(inner).join(",")}`);
  }
  if (inner.hookEventName !== event) throw new Error(`hookEventName ${inner.hookEventName}`);
  if (typeof inner.additionalContext !== "string") throw new Error("additionalContext");
  return inner.additionalContext;
}

/** A process's environment names the data folder, or reads empty for a moment inside execve. */
interface Scan {
  mine: number[];
  between: number[];
}

const PF_KTHREAD = 0x00200000;
/** A process with an empty environment older than this is not a pass between programs. */
const BETWEEN_AGE_S = 60;

/**
 * The look, in sh: grep lists the environments holding the variable and those with no variable
 * at all, and each of the latter prints its state. A child process, because the runtime reads
 * /proc only under --allow-all; with a bare environment itself, so it never matches.
 */
const SCAN_SCRIPT = 'echo "now $(cut -d " " -f 1 /proc/uptime) $(getconf CLK_TCK)"; ' +
  'grep -lsz -x -F "TERMINUS_DATA_DIR=$1" /proc/[0-9]*/environ | ' +
  "sed 's,^/proc/\\([0-9]*\\)/.*,mine \\1,'; " +
  "for f in $(grep -Lsz . /proc/[0-9]*/environ); do p=${f#/proc/}; p=${p%/environ}; " +
  's=$(cat "/proc/$p/stat" 2>/dev/null) && echo "empty $p ${s##*) }"; done; true';

/**
 * Which processes have `TERMINUS_DATA_DIR=<dataDir>` in their environment, and which are
 * between two programs. While execve swaps a process's memory its environment reads empty; a
 * detached pass at nice 19 on a loaded host can sit there long enough for a single look to
 * miss it (a CI run did), so such a process is reported apart rather than passed over.
 */
async function scanProcesses(dataDir: string): Promise<Scan> {
  const out = await new Deno.Command("sh", {
    args: ["-c", SCAN_SCRIPT, "scan", dataDir],
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    stdout: "piped",
    stderr: "null",
  }).output();
  const scan: Scan = { mine: [], between: [] };
  let uptime = 0;
  let hz = 100;
  for (const line of decoder.decode(out.stdout).split("\n")) {
    const [kind, pid, ...stat] = line.split(" ");
    if (kind === "now") {
      uptime = Number(pid);
      hz = Number(stat[0]) || 100;
    } else if (kind === "mine") {
      if (Number(pid) !== Deno.pid) scan.mine.push(Number(pid));
    } else if (kind === "empty" && betweenPrograms(stat, uptime, hz)) {
      scan.between.push(Number(pid));
    }
  }
  return scan;
}

/**
 * Whether a process with an empty environment (its stat's fields from the state on) is one
 * between two programs: a zombie and a kernel thread read empty for good, and a pass caught
 * inside execve was started moments ago, so an older process is some other program.
 */
function betweenPrograms(stat: string[], uptime: number, hz: number): boolean {
  return !/[ZX]/.test(stat[0]) && (Number(stat[6]) & PF_KTHREAD) === 0 &&
    uptime - Number(stat[19]) / hz < BETWEEN_AGE_S;
}

/** The processes (other than this one) whose environment names `dataDir` as the data folder. */
export async function processesOf(dataDir: string): Promise<number[]> {
  return (await scanProcesses(dataDir)).mine;
}

/**
 * True once no process of `dataDir` is seen in two looks 100 ms apart. A process between two
 * programs counts as one of them for at most `betweenMs` in all, so a process that emptied its
 * own environment cannot hold a test forever.
 */
export async function detachedGone(dataDir: string, timeoutMs = 60_000, betweenMs = 3_000) {
  const until = Date.now() + timeoutMs;
  let unsureSince: number | null = null;
  let clean = 0;
  while (Date.now() <= until) {
    const look = await scanProcesses(dataDir);
    if (look.between.length) unsureSince ??= Date.now();
    const unsure = look.between.length > 0 && Date.now() - unsureSince! < betweenMs;
    if (look.mine.length === 0 && !unsure) {
      if (++clean >= 2) return true;
    } else clean = 0;
    await new Promise((r) => setTimeout(r, clean > 0 ? 100 : 50));
  }
  return false;
}

/**
 * Waits until no detached pass a hook started for this sandbox is still running, so a test
 * never removes a folder a pass is about to write (and a pass never outlives its test).
 */
export async function settleDetached(sb: Sandbox, timeoutMs = 60_000): Promise<void> {
  if (await detachedGone(sb.data, timeoutMs)) return;
  const pids = await processesOf(sb.data);
  throw new Error(`detached passes still running: ${pids.join(", ")}`);
}

/**
 * Holds the ingest lock as another process would (an OS lock on `<data>/LOCK`), so a hook's
 * detached pass finds it held and does nothing while a test looks at the queue.
 */
export async function holdLock(sb: Sandbox): Promise<{ release(): void }> {
  Deno.mkdirSync(sb.data, { recursive: true, mode: 0o700 });
  const f = Deno.openSync(join(sb.data, "LOCK"), { read: true, write: true, create: true });
  for (let i = 0; !f.tryLockSync(true); i++) {
    if (i > 600) {
      f.close();
      throw new Error("the ingest lock stayed held by someone else");
    }
    await new Promise((r) => setTimeout(r, 50)); // a pass started earlier is finishing
  }
  return {
    release() {
      try {
        f.unlockSync();
      } finally {
        f.close();
      }
    },
  };
}

/* ---------- the decision queue ---------- */

export function queueDir(sb: Sandbox): string {
  return join(sb.data, "queue");
}

/** The queued decision documents, oldest first. */
export function queued(sb: Sandbox): Rec[] {
  let names: string[];
  try {
    names = [...Deno.readDirSync(queueDir(sb))].filter((e) => e.isFile && e.name.endsWith(".json"))
      .map((e) => e.name).sort();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  return names.map((n) => JSON.parse(Deno.readTextFileSync(join(queueDir(sb), n))));
}

/** Turn ids named by an injection, in order. */
export function turnIdsIn(text: string): number[] {
  return [...text.matchAll(/^- turn (\d+) \(/gm)].map((m) => Number(m[1]));
}

/* ---------- a sandbox whose hooks' detached passes are waited for ---------- */

/** A sandbox that, on disposal, first waits for the passes its hooks started. */
export async function hookSandbox(): Promise<Sandbox> {
  const sb = await sandbox();
  const dispose = sb[Symbol.asyncDispose].bind(sb);
  sb[Symbol.asyncDispose] = async () => {
    await settleDetached(sb).catch(() => {});
    await dispose();
  };
  return sb;
}

/**
 * Runs a hook that is expected to answer, again (a bounded number of times) when a loaded
 * machine pushed it past its 50 ms deadline: that silence is the contract working, not what
 * is under test. Any other answer is returned at once; every attempt late throws saying so.
 */
export function hookOnTime(
  sb: Sandbox,
  args: string[],
  o: HookOptions = {},
): Promise<HookRun & { attempts: number }> {
  return retryPastDeadline(
    `hook ${args.join(" ")}`,
    () => hook(sb, args, o),
    (r) => r.out === "" && r.errLines.some(missedDeadline),
  );
}
