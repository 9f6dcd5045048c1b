/** Starting a process that outlives this one. */
import { setPriority } from "node:os";

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
