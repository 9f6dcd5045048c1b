/** Starting a process that outlives this one, and lowering this one's priority. */

/**
 * Lowers this process's scheduling priority to `niceness`. On Linux a niceness belongs to a
 * thread: the calling thread and the threads (workers) it starts afterwards get it. `node:os`
 * is loaded here, when it is wanted: the first `node:` polyfill costs a start about 3 ms, and a
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
}

/** util-linux's setsid, found on PATH (the permission flags name it the same way). */
export const SETSID = "setsid";

/**
 * Starts `argv` in its own session and process group with no stdio, so it survives the
 * command (or hook) that started it, and returns without waiting.
 *
 * On Linux it goes through setsid(1) and nice(1). The runtime's own `detached` start forks
 * this whole process to call setsid() before the exec: 2-3 ms, more with a large heap, where
 * a plain start is a posix_spawn of about 0.3 ms. setsid forks once more, in its own small
 * process, and exits; nice sets the niceness before the program's first thread exists.
 * Without setsid (macOS, or not on PATH) it falls back to the runtime's start, and sets the
 * niceness just after it.
 */
export function spawnDetached(
  argv: string[],
  o: DetachedOptions = {},
  setsid: string | null = Deno.build.os === "linux" ? SETSID : null,
): void {
  if (setsid !== null && spawnThroughSetsid(setsid, argv, o)) return;
  const [cmd, ...args] = argv;
  const child = new Deno.Command(cmd, {
    args,
    env: o.env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
  const niceness = o.niceness;
  if (niceness !== undefined) {
    import("node:os").then((os) => os.setPriority(child.pid, niceness)).catch(() => {
      /* at normal priority it still runs */
    });
  }
}

function spawnThroughSetsid(setsid: string, argv: string[], o: DetachedOptions): boolean {
  const nice = o.niceness === undefined ? [] : ["nice", "-n", String(o.niceness)];
  try {
    new Deno.Command(setsid, {
      args: ["-f", ...nice, ...argv],
      env: o.env,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn().unref();
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}
