/**
 * The hook's deadline, A/B (issue #22 item 1): the real `terminus hook UserPromptSubmit` through
 * the installed launcher on the ~500 MB scale store, idle and beside a `backfill --work` of the
 * 1.1 GB scale corpus, with its archive pass started four ways, interleaved prompt by prompt:
 *
 * - `hook`: as shipped: the hook starts the pass itself (before its lookup, at nice 19);
 * - `idle`: the pass started beside the hook under SCHED_IDLE (`chrt -i 0`);
 * - `after`: the pass started only once the hook has exited (at nice 19);
 * - `none`: no pass at all (what the lookup costs alone).
 *
 * For the three the bench starts, the hook's own start is held off by a fresh pass stamp (the
 * debounce every hook obeys). Each hook's decision log says how long its deadline clock ran
 * (`elapsed_ms`) and how long the process ran before that clock started (`before_ms`: runtime
 * start, module load, the pass's spawn, stdin). Opt-in: `deno task bench --only deadline`.
 */
import { join } from "node:path";
import { type BenchContext, type Metric, metric, type Section } from "../lib/context.ts";
import { installed } from "../lib/installed.ts";
import { autogroup, loadavg } from "../lib/machine.ts";
import { round } from "../lib/stats.ts";
import { copyStore } from "../lib/store.ts";
import { type Scenario, scenario, scenarioEnv } from "../lib/terminus.ts";
import { namedPrompts } from "../lib/recall_replay.ts";
import { hookTimes } from "../lib/decision_log.ts";
import { settle, timedSpawn } from "./hooks.ts";
import { permissionFlags } from "../../core/context.ts";
import { PASS_STAMP_FILE } from "../../core/paths.ts";
import { backfillSessionArgv } from "../../core/ingest/backfill.ts";
import { BACKFILL_NICENESS } from "../../core/constants.ts";

const SCALE = join(Deno.env.get("HOME") ?? "/root", ".cache/terminus-bench/scale");
const ROUNDS = Number(Deno.env.get("TERMINUS_BENCH_DEADLINE_ROUNDS") ?? 20);
const VARIANTS = ["hook", "idle", "after", "none"] as const;
type Variant = typeof VARIANTS[number];
const DEADLINE = /past the 50 ms deadline/;
/**
 * How the bench starts the backfill: as its own child (`normal`), in a session of its own as
 * `terminus backfill` starts its worker (`session`: its session's scheduling group at
 * BACKFILL_NICENESS too), in a session of its own alone (`session-plain`, as builds before
 * that did), or under `nice` or `chrt -i`.
 */
const BACKFILL_AT = Deno.env.get("TERMINUS_BENCH_DEADLINE_BACKFILL") ?? "normal";

interface Sample {
  variant: Variant;
  busy: boolean;
  session: string;
  wallMs: number;
  answered: boolean;
  late: boolean;
  load1: number;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] : NaN;
}

/** Keeps the hook from starting a pass of its own: a stamp just written, as a start writes it. */
function holdHookPass(dataDir: string, hold: boolean): void {
  const stamp = join(dataDir, PASS_STAMP_FILE);
  if (hold) {
    Deno.writeTextFileSync(stamp, "1");
    const now = new Date();
    Deno.utimeSync(stamp, now, now);
  } else {
    try {
      Deno.removeSync(stamp);
    } catch { /* none */ }
  }
}

function spawnPass(launcher: string, env: Record<string, string>, how: "idle" | "nice") {
  const [cmd, ...pre] = how === "idle" ? ["chrt", "-i", "0"] : ["nice", "-n", "19"];
  return new Deno.Command(cmd, {
    args: [...pre, launcher, "ingest"],
    env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
}

async function round_(
  launcher: string,
  scn: Scenario,
  prompts: { prompt: string; cwd: string }[],
  busy: boolean,
  tag: string,
  floor: () => Promise<number>,
  floors: number[],
): Promise<Sample[]> {
  const env = scenarioEnv(scn);
  const out: Sample[] = [];
  for (let i = 0; i < prompts.length; i++) {
    // the variants in a rotating order, so none always follows the same one
    for (let k = 0; k < VARIANTS.length; k++) {
      const variant = VARIANTS[(i + k) % VARIANTS.length];
      await settle(scn.dataDir);
      holdHookPass(scn.dataDir, variant !== "hook");
      const session = `dl-${tag}-${busy ? "b" : "i"}-${variant}-${i}`;
      const payload = JSON.stringify({
        session_id: session,
        transcript_path: `/nonexistent/claude/projects/bench/${session}.jsonl`,
        cwd: prompts[i].cwd,
        hook_event_name: "UserPromptSubmit",
        prompt: prompts[i].prompt,
      });
      const load1 = (await loadavg())[0] ?? NaN;
      const pass = variant === "idle" ? spawnPass(launcher, env, "idle") : null;
      const r = await timedSpawn(["hook", "UserPromptSubmit"], payload, scn.dir, env, launcher);
      const after = variant === "after" ? spawnPass(launcher, env, "nice") : null;
      await pass?.status;
      await after?.status;
      const late = DEADLINE.test(r.stderr);
      out.push({
        variant,
        busy,
        session,
        wallMs: r.wallMs,
        answered: r.stdout !== "",
        late,
        load1,
      });
      await new Promise((res) => setTimeout(res, 150));
    }
    floors.push(await floor());
  }
  return out;
}

export const section: Section = {
  name: "deadline",
  title: "Hook deadline A/B: when and at what priority the hook's pass starts",
  optIn: true,
  async run(ctx: BenchContext) {
    const metrics: Metric[] = [];
    const notes: string[] = [];
    const { launcher } = await installed(ctx);
    const src = join(SCALE, "store-1gb", "data", "terminus.db");
    const corpus = join(SCALE, "corpus-1gb");
    const emptyRoot = join(ctx.workDir, "deadline-empty");
    Deno.mkdirSync(join(emptyRoot, "projects"), { recursive: true });
    const scn = scenario(ctx.workDir, "deadline-hooks", [emptyRoot], true);
    copyStore(src, scn.dataDir);
    Deno.mkdirSync(scn.configDir, { recursive: true });
    Deno.writeTextFileSync(
      join(scn.configDir, "terminus.toml"),
      `roots = [${JSON.stringify(emptyRoot)}]\n[snapshot]\nenabled = false\n`,
    );
    // one pass to bring the copy to this build before anything is timed
    await new Deno.Command(launcher, { args: ["ingest"], env: scenarioEnv(scn) }).output();
    const prompts = namedPrompts(scn.store).slice(0, ROUNDS);
    const empty = join(scn.dir, "empty.ts");
    Deno.writeTextFileSync(empty, "");
    const floorArgs = ["run", "--cached-only", ...permissionFlags(Deno.execPath()), empty];
    const floor = async () => (await timedSpawn(floorArgs, "", scn.dir, {})).wallMs;
    const floors: number[] = [];
    const tag = crypto.randomUUID().slice(0, 6);

    ctx.log(`deadline: ${prompts.length} prompts x ${VARIANTS.length} variants, idle`);
    const idle = await round_(launcher, scn, prompts, false, tag, floor, floors);
    const floorIdle = pct(floors, 0.5);

    ctx.log("deadline: the same beside backfill --work of the 1.1 GB corpus");
    // a backfill the whole time: one that finishes is followed by another into a fresh store
    let stop = false;
    let current: Deno.ChildProcess | null = null;
    let backfills = 0;
    const keeper = (async () => {
      while (!stop) {
        const bfScn = scenario(ctx.workDir, "deadline-backfill", [corpus], true);
        Deno.mkdirSync(bfScn.configDir, { recursive: true });
        Deno.writeTextFileSync(
          join(bfScn.configDir, "terminus.toml"),
          `roots = [${JSON.stringify(corpus)}]\n[snapshot]\nenabled = false\n`,
        );
        // `session`: in a session of its own, where `terminus backfill` leaves its worker
        const work = [launcher, "backfill", "--work"];
        const [cmd, ...args] = BACKFILL_AT === "nice"
          ? ["nice", "-n", "19", ...work]
          : BACKFILL_AT === "idle"
          ? ["chrt", "-i", "0", ...work]
          : BACKFILL_AT === "session"
          ? ["setsid", "-w", ...backfillSessionArgv([launcher])]
          : BACKFILL_AT === "session-plain"
          ? ["setsid", "-w", ...work]
          : work;
        current = new Deno.Command(cmd, {
          args,
          env: scenarioEnv(bfScn),
          stdin: "null",
          stdout: "null",
          stderr: "null",
        }).spawn();
        backfills++;
        await current.status;
      }
    })();
    await new Promise((r) => setTimeout(r, 2000));
    const busyFloors: number[] = [];
    let busy: Sample[];
    try {
      busy = await round_(launcher, scn, prompts, true, tag, floor, busyFloors);
    } finally {
      stop = true;
      try {
        (current as Deno.ChildProcess | null)?.kill("SIGTERM");
      } catch { /* gone */ }
      await keeper;
    }
    notes.push(
      `backfill --work started ${
        BACKFILL_AT === "normal"
          ? "by the bench, in its session (the worker lowers its own priority)"
          : BACKFILL_AT === "session"
          ? `in a session of its own at nice ${BACKFILL_NICENESS}, that session's scheduling group too, as terminus backfill starts its worker`
          : BACKFILL_AT === "session-plain"
          ? "in a session of its own at normal priority, as builds before the group's niceness started it (the worker lowers its own priority)"
          : `under ${BACKFILL_AT === "nice" ? "nice -n 19" : "chrt -i 0"}`
      } (TERMINUS_BENCH_DEADLINE_BACKFILL), ${backfills} in turn, one running throughout`,
    );
    const floorBusy = pct(busyFloors, 0.5);

    await settle(scn.dataDir);
    holdHookPass(scn.dataDir, false);
    await new Deno.Command(launcher, { args: ["ingest"], env: scenarioEnv(scn) }).output();
    const times = hookTimes(scn.store, scn.dataDir, "dl-");

    for (const [rows, b, fl] of [[idle, false, floorIdle], [busy, true, floorBusy]] as const) {
      for (const v of VARIANTS) {
        const s = rows.filter((x) => x.variant === v);
        const found = s.filter((x) => x.answered || x.late);
        const late = found.filter((x) => x.late).length;
        const wall = s.map((x) => x.wallMs - fl);
        const el = s.map((x) => times.get(x.session)?.elapsed ?? NaN).filter(Number.isFinite);
        const be = s.map((x) => times.get(x.session)?.before ?? NaN).filter(Number.isFinite);
        const loads = s.map((x) => x.load1);
        const where = b ? "backfill" : "idle";
        metrics.push(
          metric(
            `deadline_${where}_${v}_miss`,
            `${where}, pass ${v}: deadline misses`,
            found.length ? round((100 * late) / found.length, 1) : null,
            "%",
            b ? { op: "<=", value: 2 } : { op: "<=", value: 0 },
            `${late}/${found.length} that found turns; wall beyond floor (${round(fl, 1)} ms) p50 ${
              round(pct(wall, 0.5), 1)
            } p95 ${round(pct(wall, 0.95), 1)} ms; ` +
              `deadline clock p50 ${round(pct(el, 0.5), 1)} p95 ${round(pct(el, 0.95), 1)} ms; ` +
              `before it p50 ${round(pct(be, 0.5), 1)} p95 ${round(pct(be, 0.95), 1)} ms; ` +
              `load1 ${round(Math.min(...loads), 2)}-${round(Math.max(...loads), 2)}`,
          ),
        );
      }
    }
    notes.push(
      `floor (empty deno run) p50 idle ${round(floorIdle, 1)} ms, beside the backfill ${
        round(floorBusy, 1)
      } ms; ${prompts.length} prompts per variant and phase`,
    );
    const groups = await autogroup();
    notes.push(
      groups === null
        ? "kernel.sched_autogroup_enabled: not present"
        : `kernel.sched_autogroup_enabled = ${groups ? 1 : 0}${
          groups
            ? ": each session is a scheduling group of its own, where a niceness counts only against the group's own processes; the backfill's worker is started with its group's niceness set, and the hook's pass stays in its hook's session (docs/design/injection.md)"
            : ""
        }`,
    );
    return { metrics, notes, data: { idle, busy } };
  },
};
