/**
 * The in-process measurements' children: a section module re-run as
 * `deno run <PERMISSION_FLAGS> <module> --inproc <args...>`, which imports core, times it
 * against the store read-only, and prints one JSON document.
 */
import { PERMISSION_FLAGS } from "../../core/context.ts";
import { runTimed } from "./proc.ts";

/** Runs `module` as such a child `n` times, one after another; returns what each printed. */
export async function inprocChildren<T>(
  module: string,
  args: string[],
  opt: { cwd: string; env: Record<string, string>; n: number; name: string },
): Promise<T[]> {
  const outs: T[] = [];
  for (let i = 0; i < opt.n; i++) {
    const child = await runTimed(
      Deno.execPath(),
      ["run", ...PERMISSION_FLAGS, new URL(module).pathname, "--inproc", ...args],
      { cwd: opt.cwd, env: opt.env },
    );
    if (child.code !== 0) {
      throw new Error(`${opt.name} child exited ${child.code}:\n${child.stderr}`);
    }
    outs.push(JSON.parse(child.stdout) as T);
  }
  return outs;
}
