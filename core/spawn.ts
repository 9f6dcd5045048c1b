/** Starting a process that outlives this one, and lowering this one's priority. */
import { HOOK_EXIT_WAIT_MAX_MS } from "./constants.ts";

/**
 * Lowers this process's scheduling priority to `niceness`. On Linux a niceness belongs to a
 * thread: the calling thread and the threads (workers) it starts afterwards get it. `node:os`
 * is loaded here, when it is wanted: it costs a start 3-13 ms even after `node:sqlite`, and a
 * hook never needs it.
 */
export async function lowerOwnPriority(niceness: number): Promise<void> {
  try {
    (await import("node:os")).setPriority(niceness);
  } catch { /* at normal priority it still runs */ }
}

export interface DetachedOptions {
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Run it at this niceness (the hook's pass yields the CPU to the person's own work). */
  niceness?: number;
  /**
   * Leave only the caller's process group and stay in its session: enough to outlive a kill
   * of the caller's group, and under Linux autogroups the session is the CPU scheduling group,
   * so the niceness then yields to the caller's own threads. For a caller with no terminal
   * (the hook); a process started from a terminal needs a session of its own.
   */
  sameSession?: boolean;
  /**
   * Start the process now but its program this much later, where the route can (bash's: a
   * `sleep` in the job before the exec), so not even the program's runtime starts in the
   * meantime; the other routes start it at once.
   */
  delayMs?: number;
  /**
   * Start the program only once this process has exited, where the route can wait on it
   * (bash's, with GNU tail's `--pid`), and at most HOOK_EXIT_WAIT_MAX_MS; where it cannot,
   * after `delayMs` as above. A hook's pass then never starts its runtime beside the hook.
   */
  afterExit?: boolean;
}

/** bash, whose job control gives a background job a process group of its own. */
export const BASH = "bash";

/** util-linux's setsid, found on PATH (the permission flags name it the same way). */
export const SETSID = "setsid";

/** The POSIX shell setsid's route runs (by path: setsid's own exec needs no PATH for it). */
const SH = "/bin/sh";

/**
 * The end of both routes' shell scripts: become the program ("$@"), under `nice -n $n` when a
 * niceness is asked and nice is on PATH, so a missing nice only skips the niceness.
 */
const BECOME_PROGRAM = 'if [ -n "$n" ] && command -v nice >/dev/null 2>&1; then ' +
  'exec nice -n "$n" "$@"; fi; exec "$@"';

/**
 * Starts `argv` with no stdio outside the caller's process group, so it survives the command
 * (or hook) that started it, and returns without waiting: in a session of its own, or with
 * `sameSession` in a process group of its own inside the caller's session.
 *
 * It goes through bash's job control (`sameSession`), or setsid(1) on Linux, and nice(1). The
 * runtime's own `detached` start forks this whole process to call setsid() before the exec:
 * 2-3 ms, more with a large heap, where a plain start is a posix_spawn of about 0.3 ms. bash
 * forks once more, in its own small process, and exits; setsid execs in place; nice sets the
 * niceness before the program's first thread exists. Without either it falls back to the
 * runtime's start (a session of its own), and sets the niceness just after it.
 */
export function spawnDetached(
  argv: string[],
  o: DetachedOptions = {},
  via: { bash?: string | null; setsid?: string | null } = {},
): void {
  const bash = via.bash === undefined ? BASH : via.bash;
  const setsid = via.setsid === undefined
    ? (Deno.build.os === "linux" ? SETSID : null)
    : via.setsid;
  if (o.sameSession && bash !== null && spawnThroughBash(bash, argv, o)) return;
  if (setsid !== null && spawnThroughSetsid(setsid, argv, o)) return;
  const [cmd, ...args] = argv;
  const child = start(cmd, args, o, true);
  const niceness = o.niceness;
  if (niceness !== undefined) {
    import("node:os").then((os) => os.setPriority(child.pid, niceness)).catch(() => {
      /* at normal priority it still runs */
    });
  }
}

/**
 * `set -m` makes the `&` job a process group of its own (its pid), in bash's session. The job
 * waits first when asked, then becomes the program under nice; a missing `tail`, `timeout` or
 * `sleep` only shortens the wait and a missing `nice` only skips the niceness, never the program.
 */
function spawnThroughBash(bash: string, argv: string[], o: DetachedOptions): boolean {
  const pid = o.afterExit ? String(Deno.pid) : "";
  return spawnPlain(bash, ["-c", BASH_JOB, "terminus", ...bashJobArgs(o), pid, ...argv], o);
}

/**
 * The job's wait for process `$p` to exit: GNU tail polls it every 10 ms, and gives up after
 * HOOK_EXIT_WAIT_MAX_MS. False at once where there is no such tail (BSD's, busybox's), and
 * when no process is named; the job then sleeps its delay instead.
 */
const WAIT_FOR_EXIT = `{ [ -n "$p" ] && timeout ${
  (HOOK_EXIT_WAIT_MAX_MS / 1000).toFixed(3)
} tail --pid="$p" -s 0.01 -f /dev/null 2>/dev/null; }`;

/**
 * The script of bash's route: `bash -c BASH_JOB terminus <delay> <niceness> <pid> <argv...>`,
 * where an empty `<pid>` waits for no process (the delay alone) and an empty `<niceness>` keeps
 * the caller's.
 */
export const BASH_JOB = "set -m; d=$1; n=$2; p=$3; shift 3; { " + WAIT_FOR_EXIT +
  ' || { [ "$d" = 0 ] || sleep "$d" 2>/dev/null; }; ' + `${BECOME_PROGRAM}; } &`;

/** BASH_JOB's delay (seconds, or 0) and niceness (or empty) for `o`. */
export function bashJobArgs(o: DetachedOptions): [string, string] {
  const delay = o.delayMs && o.delayMs > 0 ? (o.delayMs / 1000).toFixed(3) : "0";
  return [delay, o.niceness === undefined ? "" : String(o.niceness)];
}

/**
 * No `-f`: a child of ours leads no process group, so setsid(1) (util-linux's and busybox's
 * alike, and busybox's has no `-f`) calls setsid() itself and execs, without a fork.
 *
 * With a niceness, a POSIX shell then gives it to the new session's Linux autogroup too, before
 * it becomes the program under nice. Under `kernel.sched_autogroup_enabled=1` each session is a
 * CPU scheduling group of its own and a process's niceness counts only inside its group: the
 * backfill's worker at nice 19 alone in its session still took half the cores from the hooks.
 * Raising a group's niceness needs no privilege. Where the file is not there (no autogroups, or
 * not Linux) the write fails quietly, and a missing `nice` only skips the niceness.
 */
function spawnThroughSetsid(setsid: string, argv: string[], o: DetachedOptions): boolean {
  return spawnPlain(setsid, ownSessionArgv(argv, o.niceness), o);
}

/** What setsid(1) runs for `argv`: it, or with a niceness the shell that gives it (above). */
export function ownSessionArgv(argv: string[], niceness?: number): string[] {
  if (niceness === undefined) return argv;
  const script = 'n=$1; shift; { echo "$n" > /proc/self/autogroup; } 2>/dev/null; ' +
    BECOME_PROGRAM;
  return [SH, "-c", script, "terminus", String(niceness), ...argv];
}

/** A plain start (posix_spawn), or false when `cmd` is not there. */
function spawnPlain(cmd: string, args: string[], o: DetachedOptions): boolean {
  try {
    start(cmd, args, o, false);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** `cmd` with no stdio and `o.env` added, not waited for. */
function start(
  cmd: string,
  args: string[],
  o: DetachedOptions,
  detached: boolean,
): Deno.ChildProcess {
  const child = new Deno.Command(cmd, {
    args,
    env: o.env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached,
  }).spawn();
  child.unref();
  return child;
}
