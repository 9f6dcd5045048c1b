/** Starting a process that outlives this one, and lowering this one's priority. */
import { setPriority } from "node:os";

/**
 * Lowers this process's scheduling priority to `niceness`. On Linux a niceness belongs to a
 * thread: the calling thread and the threads (workers) it starts afterwards get it.
 */
export function lowerOwnPriority(niceness: number): void {
  try {
    setPriority(niceness);
  } catch { /* at normal priority it still runs */ }
}

export interface DetachedOptions {
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Run it at this niceness (the hook's pass yields the CPU to the person's own work). */
  niceness?: number;
}

/**
 * Starts `argv` in its own session and process group with no stdio, so it survives the
 * command (or hook) that started it, and returns without waiting.
 */
export function spawnDetached(argv: string[], o: DetachedOptions = {}): void {
  const [cmd, ...args] = argv;
  const child = new Deno.Command(cmd, {
    args,
    env: o.env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  if (o.niceness !== undefined) {
    try {
      setPriority(child.pid, o.niceness);
    } catch { /* at normal priority it still runs */ }
  }
  child.unref();
}
