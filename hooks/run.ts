/**
 * `terminus hook <event>`: start a detached archive pass, read the event from stdin, then
 * maybe hand Claude Code some text. Once the event is known this always exits 0; anything
 * wrong is one line on stderr.
 */
import { type Context, HOOK_PASS_VAR } from "../core/context.ts";
import {
  HOOK_DEADLINE_MS,
  HOOK_PASS_WAIT_MS,
  HOOK_STDIN_MAX_BYTES,
  HOOK_STDIN_WAIT_MS,
  PASS_NICENESS,
} from "../core/constants.ts";
import { loadConfig } from "../core/config.ts";
import { ConfigError } from "../core/errors.ts";
import { configMessage, stallMessage } from "../core/setup/warnings.ts";
import { notePassWanted, stalledArchiving } from "../core/ingest/stall.ts";
import { dataDir as resolveDataDir, storePath } from "../core/paths.ts";
import { openRead } from "../core/store/db.ts";
import { canonicalJson } from "../core/output.ts";
import { answerHook, type HookContext } from "../core/inject/hook.ts";
import { queueDecision } from "../core/inject/queue.ts";
import { readState, writeState } from "../core/inject/state.ts";
import { StdinWait, tick } from "../core/inject/stdin_wait.ts";
import { claimPassStart } from "../core/ingest/gate.ts";
import { LAUNCHER_PASS_VAR, PASS_ALWAYS_EVENTS } from "../core/setup/locations.ts";
import { concat } from "../core/bytes.ts";
import { type DetachedOptions, spawnDetached } from "../core/spawn.ts";

export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "SessionEnd",
  "PostCompact",
] as const;
export type HookEvent = typeof HOOK_EVENTS[number];

export interface HookResult {
  stdout: string | null;
  stderr: string[];
  /**
   * Records the decision once the answer was written (or could not be), returning the writes
   * that failed as stderr lines.
   */
  after: (written: boolean) => string[];
}

/**
 * Starts `terminus ingest` in a process group of its own, so it outlives the hook (Claude Code
 * kills a hook's whole group when it times out), at the lowest scheduling priority: on a busy
 * machine the pass must not take the cores from the lookup of this hook or the next one. It
 * stays in the hook's session, which under Linux autogroups is the hook's scheduling group, so
 * the niceness yields to the hook there; a session of its own would be a group of its own,
 * where it does not. It also waits out the hook's deadline before it loads (mod.ts).
 */
export function spawnIngest(ctx: Context): void {
  const [argv, o] = ingestSpawn(ctx);
  spawnDetached(argv, o);
}

/** The pass a hook starts: `terminus ingest`, at PASS_NICENESS, marked to wait out the hook. */
export function ingestSpawn(
  ctx: Pick<Context, "self">,
  now = Date.now(),
): [string[], DetachedOptions] {
  return [[...ctx.self, "ingest"], {
    niceness: PASS_NICENESS,
    env: { [HOOK_PASS_VAR]: String(now) },
    sameSession: true,
    delayMs: HOOK_PASS_WAIT_MS,
    afterExit: true,
  }];
}

/**
 * Reads at most 1 MiB, waiting at most 500 ms for a writer that never finishes. The wait counts
 * only time this process could run (core/inject/stdin_wait.ts): a hook scheduled late on a
 * busy machine still reads the event already in the pipe.
 */
async function readStdin(
  read: (buf: Uint8Array) => Promise<number | null>,
): Promise<{ text: string | null; problem: string | null }> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const wait = new StdinWait(() => performance.now());
  const buf = new Uint8Array(64 * 1024);
  const timedOut = {
    text: null,
    problem: `no complete event on stdin within ${HOOK_STDIN_WAIT_MS} ms`,
  };
  while (true) {
    const pending = read(buf);
    let n: number | null | "tick";
    while (true) {
      n = await Promise.race([pending, tick(wait.tickMs)]);
      if (n !== "tick") break;
      if (wait.tick()) return timedOut;
    }
    if (n === null) break;
    total += n;
    if (total > HOOK_STDIN_MAX_BYTES) {
      return { text: null, problem: `the event on stdin is over ${HOOK_STDIN_MAX_BYTES} bytes` };
    }
    chunks.push(buf.slice(0, n));
    // A caller that leaves stdin open still gets an answer as soon as the object is whole.
    if (buf[n - 1] === 0x7d /* } */ || buf[n - 1] === 0x0a) {
      const text = new TextDecoder().decode(concat(chunks));
      try {
        JSON.parse(text);
        return { text, problem: null };
      } catch { /* not whole yet */ }
    }
  }
  return { text: new TextDecoder().decode(concat(chunks)), problem: null };
}

function output(event: HookEvent, text: string | null, warning: string | null = null): string {
  return canonicalJson({
    ...(text === null
      ? {}
      : { hookSpecificOutput: { hookEventName: event, additionalContext: text } }),
    ...(warning === null ? {} : { systemMessage: warning }),
  }) + "\n";
}

/** The one stderr line of a hook that had something to hand over and ran out of time. */
export function deadlineLine(event: HookEvent): string {
  return `terminus hook ${event}: past the ${HOOK_DEADLINE_MS} ms deadline; nothing handed over`;
}

const nothing = () => [];

export async function runHook(event: HookEvent, ctx: Context): Promise<HookResult> {
  const res: HookResult = { stdout: null, stderr: [], after: nothing };
  // resolved once (it may read the recorded data location); an error is met again below
  let dataDir: string | null = null;
  try {
    dataDir = resolveDataDir(ctx.env);
    // A burst of prompts starts one pass, not one each; a session's start and end always do.
    const always = PASS_ALWAYS_EVENTS.includes(event);
    if (ctx.env(LAUNCHER_PASS_VAR) === "1") {
      // the installed launcher started the pass before the runtime; a prompt's takes the gate
      // itself, and notes it was wanted only once it has
      if (always) {
        claimPassStart(dataDir, true);
        notePassWanted(dataDir);
      }
    } else if (claimPassStart(dataDir, always)) {
      spawnIngest(ctx);
      notePassWanted(dataDir);
    }
  } catch (e) {
    res.stderr.push(
      `terminus hook: the archive pass could not be started: ${(e as Error).message}`,
    );
  }
  // no streams (a test in process): stdin is empty
  const input = await readStdin(ctx.streams?.read ?? (() => Promise.resolve(null)));
  if (input.problem) {
    res.stderr.push(`terminus hook ${event}: ${input.problem}`);
    return res;
  }
  let payload: Record<string, unknown> = {};
  if (input.text && input.text.trim() !== "") {
    try {
      const v = JSON.parse(input.text);
      if (v && typeof v === "object" && !Array.isArray(v)) payload = v as Record<string, unknown>;
      else throw new Error("not a JSON object");
    } catch (e) {
      res.stderr.push(
        // the parser quotes the input, newlines included: one line on stderr, always
        `terminus hook ${event}: the event on stdin is not a JSON object (${
          (e as Error).message.replace(/\s+/g, " ")
        })`,
      );
      return res;
    }
  }
  const startedAt = performance.now();
  // On SessionStart the person hears, in one line Claude Code shows them (not the model),
  // when archiving has stopped: a config that does not load, or a day of passes unfinished.
  let warning: string | null = null;
  try {
    const dir = dataDir ?? resolveDataDir(ctx.env);
    const cfg = loadConfig(ctx.env);
    if (event === "SessionStart" && dataDir) warning = stallMessage(stalledArchiving(dataDir));
    const hc: HookContext = {
      cfg,
      clock: () => performance.now(),
      startedAt,
      // performance.now() counts from the process's start: what came before the 50 ms
      beforeMs: startedAt,
      now: () => new Date(),
      openStore: () => openRead(storePath(dir))?.db ?? null,
      readState: (id) => readState(dir, id),
      writeState: (id, st) => writeState(dir, id, st),
      queueDecision: (doc) => queueDecision(dir, doc),
      home: ctx.env("HOME") ?? null,
    };
    const a = answerHook(event, payload, hc);
    for (const p of a.problems) res.stderr.push(`terminus hook ${event}: ${p}`);
    if (a.text !== null) res.stdout = output(event, a.text, warning);
    else if (a.late) res.stderr.push(deadlineLine(event));
    res.after = (written) => a.record(written).map((p) => `terminus hook ${event}: ${p}`);
  } catch (e) {
    if (e instanceof ConfigError && event === "SessionStart") warning = configMessage(e.message);
    res.stderr.push(`terminus hook ${event}: ${(e as Error).message.split("\n")[0]}`);
  }
  if (warning !== null && res.stdout === null) res.stdout = output(event, null, warning);
  return res;
}
