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

/**
 * Whether the kernel pages out file pages nobody touched for a while (DAMON's `pageout`
 * action on physical memory, as some VMs run it), and after how long: where it runs, a store
 * idle that long is read from disk again by the next command, however much memory is free.
 * Null where no such scheme is on.
 */
export async function proactiveReclaim(): Promise<string | null> {
  // Deno wants --allow-all for /sys as for /proc: a child reads each file (see loadavg)
  const read = async (p: string) => (await tryCapture("cat", [p]))?.trim() ?? null;
  if ((await read("/sys/module/damon_reclaim/parameters/enabled")) === "Y") {
    const age = Number(await read("/sys/module/damon_reclaim/parameters/min_age"));
    return `DAMON_RECLAIM is on (pages idle ${age ? `${age / 1e6} s` : "a while"} are reclaimed)`;
  }
  const root = "/sys/kernel/mm/damon/admin/kdamonds";
  const n = Number((await read(`${root}/nr_kdamonds`)) ?? 0);
  for (let k = 0; k < n; k++) {
    if ((await read(`${root}/${k}/state`)) !== "on") continue;
    const ctx = `${root}/${k}/contexts/0`;
    if ((await read(`${ctx}/operations`)) !== "paddr") continue;
    const aggrUs = Number(await read(`${ctx}/monitoring_attrs/intervals/aggr_us`));
    const schemes = Number((await read(`${ctx}/schemes/nr_schemes`)) ?? 0);
    for (let i = 0; i < schemes; i++) {
      const sc = `${ctx}/schemes/${i}`;
      if ((await read(`${sc}/action`)) !== "pageout") continue;
      const minAge = Number(await read(`${sc}/access_pattern/age/min`));
      const secs = aggrUs > 0 && minAge > 0 ? (aggrUs * minAge) / 1e6 : null;
      const quota = Number(await read(`${sc}/quotas/bytes`));
      const per = await read(`${sc}/quotas/reset_interval_ms`);
      return `DAMON pageout is on: pages idle ${
        secs === null ? "a while" : `${secs} s`
      } or more are paged out${
        quota ? `, up to ${Math.round(quota / 2 ** 20)} MiB per ${per} ms` : ""
      }`;
    }
  }
  return null;
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
