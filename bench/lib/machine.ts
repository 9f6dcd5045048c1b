/** The machine and checkout a result was measured on. */
import { capture } from "./proc.ts";

export interface Machine {
  nproc: number;
  cpu: string | null;
  memTotalMiB: number | null;
  os: string;
  kernel: string;
  deno: string;
  loadavgAtStart: number[];
  commit: string | null;
  /** Uncommitted changes under core/, commands/, mod.ts or io.ts when the run started. */
  dirty: string[];
}

async function tryCapture(cmd: string, args: string[], cwd?: string): Promise<string | null> {
  try {
    return await capture(cmd, args, cwd);
  } catch {
    return null;
  }
}

/**
 * 1/5/15-minute load averages. The task grants no --allow-sys and Deno wants --allow-all for
 * /proc/loadavg, so a child process reads it.
 */
export async function loadavg(): Promise<number[]> {
  const text = await tryCapture("cat", ["/proc/loadavg"]);
  return text ? text.split(" ").slice(0, 3).map(Number) : [];
}

/**
 * `kernel.sched_autogroup_enabled` (null where the kernel has no such knob). With it on, every
 * session (setsid) is its own scheduling group at nice 0, and a niceness orders threads only
 * within their own group: the backfill's worker, in a session of its own, then takes a full
 * share against the hooks whatever niceness it sets (the hook's pass stays in the hook's).
 */
export async function autogroup(): Promise<boolean | null> {
  const text = await tryCapture("cat", ["/proc/sys/kernel/sched_autogroup_enabled"]);
  return text === null || text.trim() === "" ? null : text.trim() === "1";
}

export async function machine(repo: string): Promise<Machine> {
  let cpu: string | null = null;
  let mem: number | null = null;
  try {
    const info = Deno.readTextFileSync("/proc/cpuinfo");
    cpu = /model name\s*:\s*(.*)/.exec(info)?.[1]?.trim() ?? null;
    const m = /MemTotal:\s*(\d+) kB/.exec(Deno.readTextFileSync("/proc/meminfo"));
    if (m) mem = Math.round(Number(m[1]) / 1024);
  } catch { /* not Linux */ }
  const nproc = Number(await tryCapture("nproc", [])) || navigator.hardwareConcurrency;
  const deno = (await tryCapture(Deno.execPath(), ["--version"])) ?? Deno.version.deno;
  const commit = await tryCapture("git", ["rev-parse", "--short", "HEAD"], repo);
  const status = await tryCapture("git", [
    "status",
    "--porcelain",
    "--",
    "core",
    "commands",
    "mod.ts",
    "io.ts",
  ], repo);
  return {
    nproc,
    cpu,
    memTotalMiB: mem,
    os: `${Deno.build.os} ${Deno.build.arch}`,
    kernel: (await tryCapture("uname", ["-r"])) ?? "?",
    deno: deno.replace(/\n/g, "; "),
    loadavgAtStart: await loadavg(),
    commit,
    dirty: status ? status.split("\n").filter((l) => l.trim() !== "") : [],
  };
}
