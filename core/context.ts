/**
 * What every command is handed: the environment (empty values count as unset) and the
 * directory the person typed the command in.
 */
import { type Env, processEnv } from "./paths.ts";

export interface Context {
  env: Env;
  /** Where the command was typed; `deno task` runs in the checkout and passes this as INIT_CWD. */
  cwd: string;
  /** The path of the program's entry (for starting itself detached). */
  self: string[];
}

export function processContext(): Context {
  let cwd: string;
  try {
    cwd = processEnv("INIT_CWD") ?? Deno.cwd();
  } catch {
    cwd = processEnv("PWD") ?? "/";
  }
  return { env: processEnv, cwd, self: selfCommand() };
}

/**
 * How to run this same program again: the compiled binary itself, or the runtime with the
 * entry module and the program's own permission flags.
 */
export function selfCommand(): string[] {
  const main = Deno.mainModule;
  if (!main.startsWith("file:") || Deno.execPath().endsWith("/terminus")) return [Deno.execPath()];
  return [Deno.execPath(), "run", ...PERMISSION_FLAGS, new URL(main).pathname];
}

/** The one definition of the program's permissions: no net, no ffi, never -A. */
export const PERMISSION_FLAGS = [
  "--quiet",
  "--no-prompt",
  "--allow-read",
  "--allow-write",
  "--allow-env",
  "--allow-run=git,claude,deno",
];
