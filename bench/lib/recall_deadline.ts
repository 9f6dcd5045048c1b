/**
 * Deadline misses: the real `terminus hook UserPromptSubmit` process, spawned as Claude Code
 * spawns it, on prompts that name archived things, idle and while a backfill of another store
 * (`backfill --work`) runs on both cores. A prompt whose hook found turns either hands them over (stdout) or says
 * it ran past the deadline (stderr); the miss share is the second over both.
 */
import { join } from "node:path";
import { permissionFlags } from "../../core/context.ts";
import { type Scenario, scenarioEnv } from "./terminus.ts";
import { settle, timedSpawn } from "../sections/hooks.ts";
import { hookTimes } from "./decision_log.ts";
import { loadavg } from "./machine.ts";

const DEADLINE = /past the 50 ms deadline/;

export interface DeadlineRun {
  prompts: number;
  /** Hooks that found something: handed over or late. */
  found: number;
  answered: number;
  late: number;
  /** Spawn -> exit of every hook. */
  wallMs: number[];
  /** Spawn -> exit of an empty module run the same way, between the hooks (the floor). */
  floorMs: number[];
  /** The backfill was still running when the last hook ended. */
  backfillRunning: boolean | null;
  /** Each late hook: its wall, its own clock from the decision log, and the load as it ran. */
  lateHooks: LateHook[];
  errors: string[];
}

export interface LateHook {
  wallMs: number;
  /** The deadline clock (`elapsed_ms`). */
  elapsedMs: number;
  /** The process's life before that clock started (`before_ms`). */
  beforeMs: number;
  load1: number;
}

/** One line for a run's late hooks, so a miss says where its time went. */
export function lateText(d: DeadlineRun): string {
  const f = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "?");
  return d.lateHooks.map((h) =>
    `wall ${f(h.wallMs)} ms, deadline clock ${f(h.elapsedMs)} ms, before it ${
      f(h.beforeMs)
    } ms, load ${f(h.load1)}`
  ).join("; ");
}

/**
 * Runs each prompt once through the hook against `scn`'s store, a person's pause apart. With
 * `backfill`, a `terminus backfill --work` of that scenario runs the whole time (started first, stopped
 * by its pid at the end if it has not finished).
 */
export async function deadlineRun(
  repo: string,
  scn: Scenario,
  prompts: { prompt: string; cwd: string }[],
  backfill: Scenario | null,
  pauseMs = 150,
): Promise<DeadlineRun> {
  const res: DeadlineRun = {
    prompts: 0,
    found: 0,
    answered: 0,
    late: 0,
    wallMs: [],
    floorMs: [],
    backfillRunning: null,
    lateHooks: [],
    errors: [],
  };
  const late: { session: string; wallMs: number; load1: number }[] = [];
  let bf: Deno.ChildProcess | null = null;
  let bfDone = false;
  if (backfill) {
    bf = new Deno.Command(Deno.execPath(), {
      // the backfill's own worker, at the priority it gives itself
      args: [
        "run",
        ...permissionFlags(Deno.execPath()),
        join(repo, "mod.ts"),
        "backfill",
        "--work",
      ],
      cwd: repo,
      env: scenarioEnv(backfill),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    bf.status.then(() => (bfDone = true));
    // let it reach the cores before the first prompt
    await new Promise((r) => setTimeout(r, 1500));
  }
  const env = scenarioEnv(scn);
  const run = crypto.randomUUID().slice(0, 8);
  const flags = ["run", "--cached-only", ...permissionFlags(Deno.execPath())];
  const hookArgs = [...flags, join(repo, "mod.ts"), "hook", "UserPromptSubmit"];
  const empty = join(scn.dir, "empty.ts");
  Deno.writeTextFileSync(empty, "");
  try {
    for (let i = 0; i < prompts.length; i++) {
      const p = prompts[i];
      const session = `bench-recall-${run}-${i.toString(16).padStart(6, "0")}`;
      const load1 = (await loadavg())[0] ?? NaN;
      const payload = JSON.stringify({
        // a session of its own per hook and run: no turn is suppressed as handed over before
        session_id: session,
        transcript_path: `/nonexistent/claude/projects/bench/${i}.jsonl`,
        cwd: p.cwd,
        hook_event_name: "UserPromptSubmit",
        prompt: p.prompt,
      });
      const r = await timedSpawn(hookArgs, payload, repo, env);
      res.prompts++;
      res.wallMs.push(r.wallMs);
      if (r.code !== 0) res.errors.push(`exit ${r.code}: ${r.stderr.trim()}`);
      const isLate = DEADLINE.test(r.stderr);
      if (r.stdout !== "") res.answered++;
      if (isLate) {
        res.late++;
        late.push({ session, wallMs: r.wallMs, load1 });
      }
      if (r.stdout !== "" || isLate) res.found++;
      const other = r.stderr.split("\n").filter((l) => l.trim() !== "" && !DEADLINE.test(l));
      if (other.length) res.errors.push(other[0]);
      // every third hook, the floor under the same load
      if (i % 3 === 0) {
        res.floorMs.push((await timedSpawn([...flags, empty], "", repo, env)).wallMs);
      }
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  } finally {
    if (bf) {
      res.backfillRunning = !bfDone;
      if (!bfDone) {
        try {
          bf.kill("SIGTERM");
        } catch { /* already gone */ }
      }
      await bf.status;
    }
  }
  if (late.length) {
    await settle(scn.dataDir);
    const times = hookTimes(scn.store, scn.dataDir, `bench-recall-${run}-`);
    for (const l of late) {
      const t = times.get(l.session);
      res.lateHooks.push({
        wallMs: l.wallMs,
        elapsedMs: t?.elapsed ?? NaN,
        beforeMs: t?.before ?? NaN,
        load1: l.load1,
      });
    }
  }
  return res;
}
