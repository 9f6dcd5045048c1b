/**
 * What every command is handed: the environment (empty values count as unset) and the
 * directory the person typed the command in.
 */
import { type Env, processEnv } from "./paths.ts";
import { BACKFILL_SEMI_SPACE_MIB, SEMI_SPACE_MIB } from "./constants.ts";
import type { ProgressFactory } from "./progress.ts";
import type { Dialogue } from "./dialogue.ts";
import type { Streams } from "./streams.ts";

/** How far V8's old generation may grow past its live size before a collection. */
const HEAP_GROWING_PERCENT = 20;

export interface Context {
  env: Env;
  /** Where the command was typed (the current directory; see TASK_CWD_VAR for `deno task`). */
  cwd: string;
  /** The path of the program's entry (for starting itself detached). */
  self: string[];
  /** Progress for long work, when a person is watching a terminal; absent otherwise. */
  progress?: ProgressFactory;
  /** Where a command that talks as it goes (data move) says, warns and asks; mod.ts sets it. */
  io?: Dialogue;
  /**
   * The process's standard streams (terminal or not, size, stdin); mod.ts sets io.ts's. Absent
   * in process: no stream is a terminal and stdin is empty.
   */
  streams?: Streams;
  /** The clock: what a use case calls "now" (a test hands in a fixed one). */
  now: () => Date;
}

/**
 * The context of this process. `main` is the program's entry, which the commands that start
 * the program again run: the running module, unless an entry for one command (hook.ts) names
 * the program's own.
 */
export function processContext(main: string = Deno.mainModule): Context {
  let cwd: string;
  try {
    cwd = taskCwd() ?? Deno.cwd();
  } catch {
    cwd = processEnv("PWD") ?? "/";
  }
  let self: string[] | undefined;
  return {
    env: processEnv,
    cwd,
    now: () => new Date(),
    // worked out only by the commands that start the program again (about 0.7 ms of
    // permission queries and path lookups, which a search or a hook would pay for nothing)
    get self() {
      return self ??= selfCommand(main);
    },
  };
}

/**
 * `deno task terminus` runs in the checkout; its task line hands the directory it was typed in
 * over in this variable. Only that entry sets it, and it is taken out of the environment at
 * once so nothing this process starts inherits it. INIT_CWD is not read: every shell npm
 * started carries it, and an installed `terminus` must answer for the directory it runs in.
 */
export const TASK_CWD_VAR = "TERMINUS_TASK_CWD";
/**
 * Set by a hook on the `terminus ingest` it starts, to the time (ms since the epoch) it started
 * it; the pass then waits out what is left of the hook's deadline (passWaitLeft).
 */
export const HOOK_PASS_VAR = "TERMINUS_HOOK_PASS";

/**
 * How long a pass marked `mark` still waits at `now`: until `wait` ms after the hook started it,
 * never longer than `wait` (a clock stepped back), the whole wait for a mark that is no time.
 */
export function passWaitLeft(mark: string, now: number, wait: number): number {
  const started = /^[0-9]{1,15}$/.test(mark) ? Number(mark) : NaN;
  if (!(started > 0)) return wait;
  return Math.max(0, Math.min(wait, started + wait - now));
}

function taskCwd(): string | undefined {
  return takeEnv(TASK_CWD_VAR);
}

/** A variable meant for this process alone: read, then taken out so no child inherits it. */
export function takeEnv(name: string): string | undefined {
  const v = processEnv(name);
  if (v !== undefined) Deno.env.delete(name);
  return v;
}

/**
 * How to run this same program again: the compiled binary itself, or the runtime (by a full
 * path, never by name: it need not be on PATH) with the entry module and the program's flags.
 */
export function selfCommand(main: string = Deno.mainModule): string[] {
  const exec = Deno.execPath();
  if (!main.startsWith("file:") || main.endsWith("/terminus")) return [exec];
  const runtime = runtimePath();
  return [runtime, "run", ...permissionFlags(runtime), new URL(main).pathname];
}

const mayRun = (command: string) =>
  Deno.permissions.querySync({ name: "run", command }).state === "granted";

/**
 * The runtime by a full path this process may run. `--allow-run=deno` grants the PATH entry,
 * which is often a link to the real binary `Deno.execPath()` names; then that entry is used.
 * Ungranted either way, the real path is returned and the spawn's error names it.
 */
export function runtimePath(): string {
  const exec = Deno.execPath();
  if (mayRun(exec)) return exec;
  for (const dir of (processEnv("PATH") ?? "").split(":")) {
    if (!dir.startsWith("/")) continue;
    const entry = `${dir.replace(/\/+$/, "")}/deno`;
    try {
      if (mayRun(entry) && Deno.realPathSync(entry) === exec) return entry;
    } catch { /* not here */ }
  }
  return exec;
}

/**
 * `deno run` otherwise walks every command module the registry can import (the MCP SDK's
 * graph among them) before the first line runs: about 5 ms on every start, a hook's included.
 * With it, a command's modules are resolved when it is chosen. Run only: a compiled binary
 * carries its whole graph, and `deno compile` must still see every import.
 */
export const LAZY_IMPORTS_FLAG = "--unstable-lazy-dynamic-imports";

/**
 * V8 compiles every function of a module when it compiles the module, not on its first call.
 * The runtime keeps a module's compiled code (its code cache) as compiled before it ran, so
 * lazily compiled functions were compiled again on every start: a hook, a search and a pass
 * each call hundreds of them. Eager, they come from the cache. Starts that share a module cache
 * must carry the same V8 flags, or each one rejects the others' cache
 * (docs/design/performance.md, "Eager compilation").
 */
export const EAGER_COMPILE_V8_FLAG = "--no-lazy";

/**
 * The runtime's V8 flags: the heap, with a young generation of `semiSpaceMib` per semi-space,
 * and eager compilation unless `eager` is false (a compiled binary, whose code has no cache to
 * come from).
 */
export function v8Flags(semiSpaceMib = SEMI_SPACE_MIB, eager = true): string {
  return `--v8-flags=--min-semi-space-size=${semiSpaceMib},--max-semi-space-size=${semiSpaceMib},--heap-growing-percent=${HEAP_GROWING_PERCENT}${
    eager ? `,${EAGER_COMPILE_V8_FLAG}` : ""
  }`;
}

/**
 * For `terminus search` alone: its WebAssembly (the zstd decoder) is compiled by V8's baseline
 * compiler only. A search decodes a few dozen blocks and exits, so the optimizing compile V8
 * starts for the decoder's hot functions lands too late to be used, yet it takes a second core
 * for several ms, which a busy machine does not have spare (docs/design/performance.md, "Short
 * processes skip V8's last tier").
 */
export const SEARCH_WASM_V8_FLAG = "--liftoff-only";

/**
 * For the pass's own file alone: V8 optimizes its JavaScript no further than Maglev. A pass with
 * nothing new exits some 40 ms after it starts, before TurboFan's code for its loops over the
 * transcripts is used; a pass that ingests spends its time in JSON.parse, zstd, BLAKE3 and
 * SQLite, which this flag leaves alone (its WebAssembly still reaches TurboFan).
 */
export const PASS_OPT_V8_FLAG = "--max-opt=2";

/** The flag each command with a file of its own adds (core/setup/bundle.ts, OWN_FILE_COMMANDS). */
const OWN_FILE_V8_FLAG = { search: SEARCH_WASM_V8_FLAG, ingest: PASS_OPT_V8_FLAG } as const;

/**
 * The V8 flags of a command's own file: every command's, and its own. The launcher runs that
 * file with a module cache of its own (core/setup/bundle.ts, ownDenoDir), so code compiled under
 * these flags never meets the other starts'.
 */
export function ownV8Flags(name: keyof typeof OWN_FILE_V8_FLAG): string {
  return `${v8Flags()},${OWN_FILE_V8_FLAG[name]}`;
}

/**
 * The one definition of the program's permissions: no net, no ffi, never -A. It may run git,
 * claude, less (the default pager of `sessions show`), the runtime itself, bash and setsid (to
 * start the archive pass a hook starts and the backfill's worker, detached), and lower a
 * process's scheduling priority. The heap sizing and lazy command loading ride along, so every
 * start of the program gets them.
 */
export function permissionFlags(
  runtime = "deno",
  semiSpaceMib = SEMI_SPACE_MIB,
  eager = true,
): string[] {
  return [
    v8Flags(semiSpaceMib, eager),
    LAZY_IMPORTS_FLAG,
    "--quiet",
    "--no-prompt",
    "--allow-read",
    "--allow-write",
    "--allow-env",
    `--allow-run=git,claude,less,bash,setsid,${runtime}`,
    // only to lower a priority: the hook's pass and the backfill's worker yield the cores
    "--allow-sys=setPriority",
  ];
}

/**
 * The backfill's worker, `backfill --work`, run as `argv` runs the program (Context.self, or an
 * installed copy's argv) but with the backfill's young generation in place of every command's.
 * A compiled binary's argv has no flag to swap: it was compiled with the backfill's. `first`
 * (install's) adds `--first`: the worker keeps the normal priority it was started at.
 */
export function backfillWorkArgv(argv: string[], first = false): string[] {
  const every = v8Flags();
  return [
    ...argv.map((a) => a === every ? v8Flags(BACKFILL_SEMI_SPACE_MIB) : a),
    "backfill",
    "--work",
    ...(first ? ["--first"] : []),
  ];
}

export const PERMISSION_FLAGS = permissionFlags();

/**
 * A compiled binary's permissions. It starts itself for the detached pass, from wherever it
 * was installed — a path not known when it is compiled, and an allow-list entry is fixed then
 * — so it may run programs without a list. Its heap flag is the backfill's: the one set of
 * flags serves every command it runs, its backfill's worker among them; it compiles lazily, as
 * its code has no cache to come from. Everything else is as above: still no network, no FFI,
 * never every permission.
 */
export const COMPILED_PERMISSION_FLAGS = permissionFlags("deno", BACKFILL_SEMI_SPACE_MIB, false)
  .filter((f) => f !== LAZY_IMPORTS_FLAG)
  .map((f) => f.startsWith("--allow-run=") ? "--allow-run" : f);
