/** Starting a process that outlives this one. */

/**
 * The niceness a detached child is to take, passed in its environment: the child lowers its own
 * priority as its first act (mod.ts), so the parent (a hook) never loads node:os to do it.
 */
export const NICENESS_VAR = "TERMINUS_NICENESS";

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
  const env = o.niceness === undefined ? o.env : { ...o.env, [NICENESS_VAR]: String(o.niceness) };
  const child = new Deno.Command(cmd, {
    args,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
}
