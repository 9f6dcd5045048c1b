/**
 * Running child processes with wall-clock timing, optionally under `/usr/bin/time -v` for the
 * peak resident set size.
 */
import { join } from "node:path";

export const TIME_BIN = "/usr/bin/time";

export function hasGnuTime(): boolean {
  try {
    return Deno.statSync(TIME_BIN).isFile;
  } catch {
    return false;
  }
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Wrap the command in `/usr/bin/time -v`, writing its report to a file in this folder. */
  timeDir?: string;
}

export interface RunResult {
  code: number;
  wallMs: number;
  stdout: string;
  stderr: string;
  /** "Maximum resident set size" in bytes, when run under /usr/bin/time. */
  maxRssBytes: number | null;
  /** user + system CPU seconds, when run under /usr/bin/time. */
  cpuSeconds: number | null;
}

const decoder = new TextDecoder();
let timeSeq = 0;

/** Spawns `cmd args`, waits for it, and returns its exit code, output and wall time. */
export async function runTimed(
  cmd: string,
  args: string[],
  opt: RunOptions = {},
): Promise<RunResult> {
  let file = cmd;
  let argv = args;
  let timeOut: string | null = null;
  if (opt.timeDir) {
    timeOut = join(opt.timeDir, `time-${Deno.pid}-${timeSeq++}.txt`);
    file = TIME_BIN;
    argv = ["-v", "-o", timeOut, cmd, ...args];
  }
  const command = new Deno.Command(file, {
    args: argv,
    cwd: opt.cwd,
    env: opt.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const t0 = performance.now();
  const out = await command.output();
  const wallMs = performance.now() - t0;
  let maxRssBytes: number | null = null;
  let cpuSeconds: number | null = null;
  if (timeOut) {
    const text = Deno.readTextFileSync(timeOut);
    Deno.removeSync(timeOut);
    const rss = /Maximum resident set size \(kbytes\):\s*(\d+)/.exec(text);
    if (rss) maxRssBytes = Number(rss[1]) * 1024;
    const user = /User time \(seconds\):\s*([\d.]+)/.exec(text);
    const sys = /System time \(seconds\):\s*([\d.]+)/.exec(text);
    if (user && sys) cpuSeconds = Number(user[1]) + Number(sys[1]);
  }
  return {
    code: out.code,
    wallMs,
    stdout: decoder.decode(out.stdout),
    stderr: decoder.decode(out.stderr),
    maxRssBytes,
    cpuSeconds,
  };
}

/** Runs a command for its output only; throws when it fails. */
export async function capture(cmd: string, args: string[], cwd?: string): Promise<string> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${decoder.decode(out.stderr).trim()}`);
  }
  return decoder.decode(out.stdout).trim();
}
