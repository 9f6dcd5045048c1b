/**
 * Flat as the archive grows (issue #24): every figure of the issue's table at about 1.1 GB and
 * 3 GB of real transcripts (bench/lib/scale_corpus.ts), through the launcher `deno task
 * install` placed, with an empty `deno run` (the floor) and grep/rg in the same rounds and the
 * load average sampled each round. Everything else is in the settled stores kept beside the
 * corpora, outside the checkout; a fresh backfill per size is timed into a scratch store.
 *
 * Knobs (environment): TERMINUS_BENCH_SCALE_SIZES=1gb,3gb, TERMINUS_BENCH_SCALE_ROUNDS=15
 * (search, grep and rg take a third of them), TERMINUS_BENCH_SCALE_BACKFILL=0 to skip the
 * backfill and its backlog (the settled store is used as it is).
 */
import { join } from "node:path";
import { type BenchContext, type Metric, metric, type Section } from "../lib/context.ts";
import { installed } from "../lib/installed.ts";
import { loadavg, proactiveReclaim } from "../lib/machine.ts";
import { runTimed } from "../lib/proc.ts";
import { prepareScaleCorpora, SCALE_SIZES, type ScaleCorpus } from "../lib/scale_corpus.ts";
import { lastRunNotes, markReady, scaleConfig, settledStore } from "../lib/scale_store.ts";
import { round } from "../lib/stats.ts";
import { plainMatch, type ScaleQuality, scaleQuality } from "../lib/scale_quality.ts";
import { type Scenario, scenario, scenarioEnv } from "../lib/terminus.ts";
import { payloadFor, type PhaseSample, settle, timedSpawn, workload } from "./hooks.ts";
import { PASS_STAMP_FILE } from "../../core/paths.ts";

const DEADLINE = /past the 50 ms deadline|past the deadline/;
/** Ten `--project '*'` queries of the real corpus: identifiers, paths, an error, prose. */
export const SCALE_QUERIES = [
  "execute_land",
  "ErkContext",
  "FakeGitHubIssues",
  "plan_file_path",
  "src/erk/cli/config.py",
  "packages/erk-shared/src/erk_shared/gateway/github/real.py",
  "TypeError",
  "rebase",
  "git commit",
  "worktree",
];
/**
 * Twelve hard queries for search's tail (issue #47), chosen by rule from the real corpus: four
 * compound identifiers of three or more parts held by at most 16 of its 165 sessions, four paths
 * of two or more folders, and four two-word phrases, quoted so their words must stand together.
 */
export const SCALE_HARD_QUERIES = [
  "exit_plan_mode_hook",
  "branch_last_commit_times",
  "parse_review_thread_counts",
  "check_legacy_claude_docs",
  ".impl/plan.md",
  "cli/commands/codespace/setup_cmd.py",
  "tests/real/test_real_graphite.py",
  "src/erk/cli/commands/land_cmd.py",
  '"git commit"',
  '"worktree pool"',
  '"merge conflict"',
  '"force push"',
];
/**
 * Searches that select by --tool, --path or --kind, with words and without: a filter is checked
 * per turn, and read by time alone over every turn (performance.md, "`--tool` and `--path`
 * check a turn by its own rows"). The path is one the real corpus's Edits name.
 */
const SCALE_LAND_PATH = "/home/runner/work/erk/erk/src/erk/cli/commands/land_cmd.py";
export const SCALE_FILTERED_SEARCHES = [
  ["rebase", "--tool", "Bash"],
  ["TypeError", "--tool", "Bash"],
  ["--tool", "Bash"],
  ["--kind", "user"],
  ["land", "--path", SCALE_LAND_PATH],
  ["--path", SCALE_LAND_PATH],
];
/** Named prompts beside two CPU-bound loops (issue #47: >= 23 of 24 delivered). */
const BUSY_PROMPTS = 24;
/**
 * Rounds of the 22 searches beside two CPU-bound loops: with one, the row's p95 was the second
 * slowest of 22 samples, so one search the loops held back set it; with three (66 samples) the
 * same build's p95 still moved by 5-15 ms from run to run, so six (132).
 */
const BUSY_SEARCH_ROUNDS = 6;
const MCP_CALLS = 100;
const VERIFY_RUNS = 3;
const NOTHING_PROMPT = "ok, carry on with the next step please";
/** Fresh processes per event for the phase split (`hooks.ts --phases`). */
const PHASE_PROCESSES = 5;

/** Nearest-rank percentile. */
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] : NaN;
}
const p50 = (xs: number[]) => pct(xs, 0.5);
const p95 = (xs: number[]) => pct(xs, 0.95);
const r1 = (x: number) => round(x, 1);

interface Row {
  id: string;
  label: string;
  samples: number[];
  /** Figures beyond the floor's p50 (the floor measured in the same rounds). */
  beyond: boolean;
  /** 1-minute load averages sampled in the rounds that measured it. */
  load: number[];
  extra?: string;
}

function envInt(name: string, dflt: number): number {
  const v = Deno.env.get(name);
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} wants a whole number, not ${v}`);
  return n;
}

const COUNTS = /(\d+) file\(s\) walked, (\d+) committed.* in (\d+) ms/;

/** A real git repository for the hooks' and MCP's working directory. */
async function gitRepo(dir: string): Promise<string> {
  const repo = join(dir, "git-cwd");
  try {
    Deno.statSync(join(repo, ".git"));
    return repo;
  } catch { /* made below */ }
  Deno.mkdirSync(repo, { recursive: true });
  Deno.writeTextFileSync(join(repo, "README.md"), "scale bench working directory\n");
  for (
    const args of [
      ["init", "-q"],
      ["add", "README.md"],
      ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "init"],
    ]
  ) {
    const r = await runTimed("git", args, { cwd: repo });
    if (r.code !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  }
  return repo;
}

/** One MCP server, `calls` recall_search calls one after the other: each call's wall. */
async function mcpCalls(
  launcher: string,
  cwd: string,
  env: Record<string, string>,
  calls: number,
): Promise<number[]> {
  const child = new Deno.Command(launcher, {
    args: ["mcp"],
    cwd,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const w = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  const next = async (): Promise<Record<string, unknown>> => {
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) return JSON.parse(line);
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the MCP server closed its stdout");
      buf += value;
    }
  };
  const send = (m: unknown) => w.write(new TextEncoder().encode(JSON.stringify(m) + "\n"));
  await send({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "terminus-bench", version: "0" },
    },
  });
  await next();
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  const walls: number[] = [];
  for (let i = 1; i <= calls; i++) {
    const t0 = performance.now();
    await send({
      jsonrpc: "2.0",
      id: i,
      method: "tools/call",
      params: {
        name: "recall_search",
        arguments: { query: SCALE_QUERIES[i % SCALE_QUERIES.length], project: "*" },
      },
    });
    const r = await next();
    walls.push(performance.now() - t0);
    if (r.error) throw new Error(`recall_search: ${JSON.stringify(r.error)}`);
  }
  await w.close();
  await child.status;
  return walls;
}

/** Every row of the issue's table for one corpus. */
async function measureSize(
  ctx: BenchContext,
  launcher: string,
  dir: string,
  c: ScaleCorpus,
): Promise<{ rows: Row[]; notes: string[]; scn: Scenario }> {
  const notes: string[] = [];
  const rounds = envInt("TERMINUS_BENCH_SCALE_ROUNDS", 15);
  const heavyRounds = Math.max(1, Math.ceil(rounds / 3));
  const name = c.size.name;
  const floorFile = join(ctx.outDir, "empty.ts");
  Deno.writeTextFileSync(floorFile, "");
  const { permissionFlags } = await import("../../core/context.ts");
  const floorArgs = ["run", "--cached-only", ...permissionFlags(Deno.execPath()), floorFile];
  const floorRun = async () =>
    (await runTimed(Deno.execPath(), floorArgs, { cwd: ctx.repo })).wallMs;
  /** A bare program (bench/bare/) on the floor's runtime and flags: the least such a process does. */
  const bareArgs = (file: string, ...rest: string[]) => [
    "run",
    "--cached-only",
    ...permissionFlags(Deno.execPath()),
    new URL(`../bare/${file}`, import.meta.url).pathname,
    ...rest,
  ];
  const rows: Row[] = [];
  const row = (id: string, label: string, beyond: boolean): Row => {
    const r: Row = { id: `scale_${name}_${id}`, label, samples: [], beyond, load: [] };
    rows.push(r);
    return r;
  };
  const floor = row("floor", "floor: deno run of an empty module", false);
  const load1 = async () => (await loadavg())[0] ?? NaN;

  // the backfill, timed into a scratch store, then the passes its backlog costs
  let settled = null as Scenario | null;
  if (envInt("TERMINUS_BENCH_SCALE_BACKFILL", 1) !== 0) {
    const fresh = scenario(dir, `fresh-${name}`, [c.root], true);
    scaleConfig(fresh);
    ctx.log(`scale ${name}: backfill (backfill --work) of ${(c.bytes / 1e9).toFixed(2)} GB`);
    const bf = row("backfill", "backfill --work, empty store: wall (s)", false);
    const l0 = await load1();
    const r = await runTimed(launcher, ["backfill", "--work"], {
      cwd: ctx.repo,
      env: scenarioEnv(fresh),
      timeDir: ctx.gnuTime ? dir : undefined,
    });
    if (r.code !== 0) throw new Error(`backfill --work exited ${r.code}: ${r.stderr}`);
    bf.samples.push(r.wallMs / 1000);
    bf.load.push(l0, await load1());
    bf.extra = `${r1(c.bytes / 1e6 / (r.wallMs / 1000))} MB/s, peak RSS ${
      r.maxRssBytes ? r1(r.maxRssBytes / 1048576) : "?"
    } MiB`;
    const backlog = row("backlog", "a pass right after the backfill, beyond the floor", true);
    for (let i = 0; i < 100 && lastRunNotes(fresh.store) !== null; i++) {
      const f = await floorRun();
      floor.samples.push(f);
      const p = await runTimed(launcher, ["ingest"], { cwd: ctx.repo, env: scenarioEnv(fresh) });
      if (p.code !== 0) throw new Error(`ingest exited ${p.code}: ${p.stderr}`);
      backlog.samples.push(p.wallMs);
      backlog.load.push(await load1());
    }
    backlog.extra = `${backlog.samples.length} pass(es) until one had nothing to do (${
      r1(backlog.samples.reduce((a, b) => a + b, 0) / 1000)
    } s)`;
    // the first time, the fresh store becomes the settled one; after that it goes
    const ready = join(dir, `store-${name}`, "ready.json");
    let have = false;
    try {
      Deno.statSync(ready);
      have = true;
    } catch { /* none yet */ }
    if (!have) {
      try {
        Deno.removeSync(join(dir, `store-${name}`), { recursive: true });
      } catch { /* none */ }
      Deno.renameSync(fresh.dir, join(dir, `store-${name}`));
      markReady(dir, c);
    } else Deno.removeSync(fresh.dir, { recursive: true });
  }
  const s = await settledStore(dir, ctx.repo, c, ctx.log);
  settled = s.scn;
  const env = scenarioEnv(settled);
  const cwd = await gitRepo(dir);
  const w = workload(settled.store);
  // session ids no earlier run used: the store is kept, and with it each session's recall
  // state, which would suppress what an earlier run's same session was already handed
  const fresh0 = (Date.now() % 1_000_000) * 1_000_000;
  ctx.log(
    `scale ${name}: ${rounds} rounds against ${
      (Deno.statSync(settled.store).size / 1e9).toFixed(2)
    } GB store; project ${w.project} (${w.sessions} sessions)`,
  );

  const noop = row("noop", "no-op pass, settled, beyond the floor", true);
  const bareNoop = row(
    "bare_noop",
    "bare no-op pass: node:sqlite, the watermarks read, the folders walked, one lstat per file, beyond the floor",
    true,
  );
  const named = row(
    "prompt_named",
    "UserPromptSubmit naming an archived path, beyond the floor",
    true,
  );
  // A person's next prompt comes seconds after the last pass started, past the hook's 3 s burst
  // gate, so it starts a pass; the rounds' own prompts come inside it (after SessionStart).
  const named2 = row(
    "prompt_named_gate_open",
    "UserPromptSubmit naming an archived path, the last pass started 10 s before, beyond the floor",
    true,
  );
  const openGate = () => {
    const past = new Date(Date.now() - 10_000);
    try {
      Deno.utimeSync(join(settled!.dataDir, PASS_STAMP_FILE), past, past);
    } catch { /* no stamp yet: the gate is open */ }
  };
  const named2Tally = deliveryTally();
  // what this host charges before any of Terminus's own work: the same prompt through a
  // program that only reads it, opens the store and looks its path up (bench/bare/hook.js)
  const bareHook = row(
    "bare_hook",
    "bare hook: the payload read, node:sqlite, one indexed lookup per path, beyond the floor",
    true,
  );
  let bareFound = 0;
  /** Prompt `n`'s payload through bench/bare/hook.js into `into`: whether it found turns. */
  const bareHookInto = async (into: Row, n: number, l: number) => {
    const r = await timedSpawn(
      bareArgs("hook.js", settled!.store),
      payloadFor("UserPromptSubmit", fresh0 + n, w),
      ctx.repo,
      env,
    );
    if (r.code !== 0) failures.push(`bare hook exited ${r.code}: ${r.stderr.trim()}`);
    into.samples.push(r.wallMs);
    into.load.push(l);
    return r.stdout.trim() !== "";
  };
  const nothing = row("prompt_nothing", "UserPromptSubmit naming nothing, beyond the floor", true);
  const start = row("session_start", "SessionStart, beyond the floor", true);
  const usage = row("usage", "terminus usage (wall)", false);
  /** The no-op pass's own duration_ms: the rest of its wall is start-up, config, lock, open. */
  const inPass: number[] = [];
  const namedTally = deliveryTally();
  let startAnswered = 0;
  const failures: string[] = [];
  const hook = async (event: "SessionStart" | "UserPromptSubmit", payload: string) => {
    const r = await timedSpawn(["hook", event], payload, cwd, env, launcher);
    if (r.code !== 0) failures.push(`${event} exited ${r.code}: ${r.stderr.trim()}`);
    await settle(settled!.dataDir);
    return r;
  };
  /** A prompt naming an archived path into `into`: whether it handed turns over, or ran late. */
  const namedPrompt = async (into: Row, n: number, l: number) => {
    const r = await hook("UserPromptSubmit", payloadFor("UserPromptSubmit", fresh0 + n, w));
    into.samples.push(r.wallMs);
    into.load.push(l);
    return { delivered: r.stdout.trim() !== "", late: DEADLINE.test(r.stderr) };
  };
  /**
   * Whether prompt `n` hands anything over at all: the same prompt in a session of its own,
   * idle and warm (deliveryTally).
   */
  const deliverable = async (n: number) => {
    const p = JSON.parse(payloadFor("UserPromptSubmit", fresh0 + n, w));
    const r = await hook(
      "UserPromptSubmit",
      JSON.stringify({ ...p, session_id: `${p.session_id}-ref` }),
    );
    return r.stdout.trim() !== "";
  };
  // warm: page cache, module cache, the first pass
  await hook("SessionStart", payloadFor("SessionStart", fresh0, w));
  await runTimed(launcher, ["ingest"], { cwd, env });
  await timedSpawn(
    bareArgs("hook.js", settled.store),
    payloadFor("UserPromptSubmit", fresh0, w),
    ctx.repo,
    env,
  );
  await runTimed(Deno.execPath(), bareArgs("search.js", settled.store, "rebase"), {
    cwd: ctx.repo,
  });
  await runTimed(Deno.execPath(), bareArgs("noop.js", settled.store, c.root), { cwd: ctx.repo });
  for (let i = 1; i <= rounds; i++) {
    const l = await load1();
    floor.samples.push(await floorRun());
    floor.load.push(l);
    const p = await runTimed(launcher, ["ingest"], { cwd, env });
    const m = COUNTS.exec(p.stderr + p.stdout);
    if (p.code !== 0 || (m && Number(m[2]) !== 0)) {
      failures.push(`no-op ingest: exit ${p.code}, ${m?.[0] ?? p.stderr.trim()}`);
    }
    noop.samples.push(p.wallMs);
    noop.load.push(l);
    if (m) inPass.push(Number(m[3]));
    const bn = await runTimed(Deno.execPath(), bareArgs("noop.js", settled.store, c.root), {
      cwd: ctx.repo,
    });
    if (bn.code !== 0) failures.push(`bare no-op pass exited ${bn.code}: ${bn.stderr.trim()}`);
    bareNoop.samples.push(bn.wallMs);
    bareNoop.load.push(l);
    bareNoop.extra = bn.stdout.trim();
    const n = await namedPrompt(named, 40_000 + i, l);
    if (await bareHookInto(bareHook, 40_000 + i, l)) bareFound++;
    // checked after the timed prompt, so its pages are no warmer than before: a path whose
    // turns hand nothing over is no miss of this row either
    namedTally.add(n, await deliverable(40_000 + i));
    const nothingPayload = JSON.stringify({
      ...JSON.parse(payloadFor("UserPromptSubmit", fresh0 + 50_000 + i, w)),
      prompt: NOTHING_PROMPT,
    });
    nothing.samples.push((await hook("UserPromptSubmit", nothingPayload)).wallMs);
    nothing.load.push(l);
    const st = await hook("SessionStart", payloadFor("SessionStart", fresh0 + 60_000 + i, w));
    start.samples.push(st.wallMs);
    start.load.push(l);
    if (st.stdout.trim() !== "") startAnswered++;
    const u = await runTimed(launcher, ["usage"], { cwd, env });
    if (u.code !== 0) failures.push(`usage exited ${u.code}: ${u.stderr.trim()}`);
    usage.samples.push(u.wallMs);
    usage.load.push(l);
    openGate();
    named2Tally.add(await namedPrompt(named2, 41_000 + i, l), await deliverable(41_000 + i));
  }
  noop.extra = `in-pass duration_ms p50 ${p50(inPass)}, p95 ${p95(inPass)}`;
  named.extra = namedTally.text();
  bareHook.extra = `found turns for ${bareFound} of ${rounds} prompts`;
  named2.extra = named2Tally.text(false);

  // where a hook's time goes: the hooks section's phase child, cold, against this store
  const phaseRows = new Map<string, Row>();
  const hooksModule = new URL("./hooks.ts", import.meta.url).pathname;
  for (let i = 0; i < PHASE_PROCESSES; i++) {
    for (const e of ["UserPromptSubmit", "SessionStart"] as const) {
      const scratch = Deno.makeTempDirSync({ dir: settled.dir, prefix: "phases-" });
      const l = await load1();
      const r = await timedSpawn(
        [
          "run",
          "--cached-only",
          ...permissionFlags(Deno.execPath()),
          hooksModule,
          "--phases",
          e,
          scratch,
        ],
        payloadFor(e, fresh0 + 70_000 + i, w),
        cwd,
        env,
      );
      Deno.removeSync(scratch, { recursive: true });
      if (r.code !== 0) throw new Error(`phase child ${e} exited ${r.code}: ${r.stderr}`);
      const ph = JSON.parse(r.stdout) as PhaseSample;
      const parts: [string, number][] = [
        ["module load (checkout, unbundled)", ph.importMs],
        ["stdin", ph.stdinMs],
        ["detached spawn", ph.spawnMs],
        ...Object.entries(ph.cold) as [string, number][],
      ];
      for (const [k, v] of parts) {
        const id = `phase_${e === "SessionStart" ? "start" : "prompt"}_${k.split(" ")[0]}`;
        let pr = phaseRows.get(id);
        if (!pr) {
          pr = row(id, `${e} phase, in process, cold: ${k}`, false);
          phaseRows.set(id, pr);
        }
        pr.samples.push(v);
        pr.load.push(l);
      }
    }
  }
  start.extra = `answered ${startAnswered}/${rounds}`;

  // the same named prompts with the store's pages dropped from the page cache first, as a
  // machine that pages out idle files (or one short of memory) leaves them after a pause
  const coldNamed = row(
    "prompt_named_cold",
    "UserPromptSubmit naming an archived path, store out of the page cache, beyond the floor",
    true,
  );
  const coldTally = deliveryTally();
  const bareCold = row(
    "bare_hook_cold",
    "bare hook, store out of the page cache, beyond the floor",
    true,
  );
  const isFile = (f: string) => {
    try {
      return Deno.statSync(f).isFile;
    } catch {
      return false;
    }
  };
  // GNU dd: nocache with count=0 asks the kernel to drop the whole file's cached pages. The
  // WAL is looked for each time: the last connection to close removes it, and a file that is
  // gone has no pages to drop (it once ended the row after ten rounds, reported as no dd)
  const dropCache = async () => {
    for (const f of [settled!.store, `${settled!.store}-wal`].filter(isFile)) {
      const r = await runTimed("dd", [`if=${f}`, "iflag=nocache", "count=0", "status=none"])
        .catch(() => null);
      if (r?.code !== 0 && isFile(f)) return false;
    }
    return true;
  };
  let dropped = true;
  for (let i = 1; i <= rounds; i++) {
    const l = await load1();
    const can = await deliverable(45_000 + i);
    if (!(dropped = await dropCache())) break;
    floor.samples.push(await floorRun());
    floor.load.push(l);
    coldTally.add(await namedPrompt(coldNamed, 45_000 + i, l), can);
    // the same payload through the bare hook, its pages dropped again
    if (!(dropped = await dropCache())) break;
    await bareHookInto(bareCold, 45_000 + i, l);
  }
  coldNamed.extra = dropped
    ? coldTally.text()
    : "not measured: no dd that drops a file's cache (GNU coreutils)";
  // the same named prompts, warm, with two CPU-bound loops running beside them (one per core here)
  const busy = row(
    "prompt_named_busy",
    "UserPromptSubmit naming an archived path, two CPU-bound loops running, beyond the floor",
    true,
  );
  const busyTally = deliveryTally();
  const busyCan: boolean[] = [];
  for (let i = 1; i <= BUSY_PROMPTS; i++) busyCan.push(await deliverable(47_000 + i));
  await besideTwoLoops(async () => {
    for (let i = 1; i <= BUSY_PROMPTS; i++) {
      const l = await load1();
      floor.samples.push(await floorRun());
      floor.load.push(l);
      busyTally.add(await namedPrompt(busy, 47_000 + i, l), busyCan[i - 1]);
    }
  });
  busy.extra = busyTally.text();

  // the session list over every project, as a person first types it
  const list = row("sessions_all", "terminus sessions --project '*', beyond the floor", true);
  const bareList = row(
    "bare_sessions",
    "bare session list: node:sqlite, the 20 newest sessions and the count of the rest, beyond the floor",
    true,
  );
  await runTimed(Deno.execPath(), bareArgs("sessions.js", settled.store), { cwd: ctx.repo });
  for (let i = 0; i < heavyRounds; i++) {
    const l = await load1();
    floor.samples.push(await floorRun());
    floor.load.push(l);
    const r = await runTimed(launcher, ["sessions", "--project", "*"], { cwd, env });
    if (r.code !== 0) failures.push(`sessions exited ${r.code}: ${r.stderr.trim()}`);
    list.samples.push(r.wallMs);
    list.load.push(l);
    const b = await runTimed(Deno.execPath(), bareArgs("sessions.js", settled.store), {
      cwd: ctx.repo,
    });
    if (b.code !== 0) failures.push(`bare sessions exited ${b.code}: ${b.stderr.trim()}`);
    bareList.samples.push(b.wallMs);
    bareList.load.push(l);
  }
  ctx.log(`scale ${name}: hooks, no-op and usage done`);

  const search = row(
    "search",
    `terminus search, ${SCALE_QUERIES.length} queries, beyond the floor`,
    true,
  );
  const cold = row(
    "search_cold",
    `terminus search, ${SCALE_QUERIES.length} queries, first round (store idle, pages from disk), beyond the floor`,
    true,
  );
  const the = row("search_the", "terminus search the, beyond the floor", true);
  const filtered = row(
    "search_filtered",
    `terminus search with --tool, --path or --kind (${SCALE_FILTERED_SEARCHES.length} searches), beyond the floor`,
    true,
  );
  const hard = row(
    "search_hard",
    `terminus search, ${SCALE_HARD_QUERIES.length} hard queries (rare compound names, paths, phrases), beyond the floor`,
    true,
  );
  const bareSearch = row(
    "bare_search",
    `bare search: node:sqlite and FTS5's BM25 top 10, every word, the ${SCALE_QUERIES.length} and the ${SCALE_HARD_QUERIES.length} hard queries, beyond the floor`,
    true,
  );
  /** The same query through bench/bare/search.js, right after the search, into `into`. */
  const bareBeside = async (q: string, into: number[]) => {
    const m = plainMatch(q);
    if (m === null) return;
    const r = await runTimed(Deno.execPath(), bareArgs("search.js", settled!.store, m), {
      cwd: ctx.repo,
    });
    if (r.code !== 0) failures.push(`bare search ${q} exited ${r.code}: ${r.stderr.trim()}`);
    into.push(r.wallMs);
  };
  const grep = row("grep", "grep -rlF, same words and files (wall)", false);
  const rg = row("rg", "rg -l -F, same words and files (wall)", false);
  const haveRg = (await runTimed("rg", ["--version"]).catch(() => null))?.code === 0;
  const projects = join(c.root, "projects");
  // warm, as the hooks were: one round that reads each query's pages into the page cache. This
  // machine gives back file pages idle for about a minute, so a first round reads from disk;
  // its figures are a row of their own, beside the warm ones
  /** A floor run, then the search of `q` into `into` (and its load), beside it: its wall. */
  const searchBeside = async (q: string, into: Row, l: number) => {
    floor.samples.push(await floorRun());
    floor.load.push(l);
    const sr = await runTimed(launcher, ["search", q, "--project", "*"], { cwd, env });
    if (sr.code !== 0) failures.push(`search ${q} exited ${sr.code}: ${sr.stderr.trim()}`);
    into.samples.push(sr.wallMs);
    into.load.push(l);
    return sr.wallMs;
  };
  {
    const l = await load1();
    for (const q of SCALE_QUERIES) {
      await searchBeside(q, cold, l);
      // grep and rg read the same files from disk the first time too: warmed alike, not timed
      await runTimed("grep", ["-rlF", "-e", q, "--", projects]);
      if (haveRg) await runTimed("rg", ["-l", "-F", "-e", q, "--", projects]);
    }
  }
  const perQuery = new Map<string, number[]>(SCALE_QUERIES.map((q) => [q, []]));
  const perHard = new Map<string, number[]>(SCALE_HARD_QUERIES.map((q) => [q, []]));
  for (let i = 0; i < heavyRounds; i++) {
    const l = await load1();
    for (const q of SCALE_QUERIES) {
      perQuery.get(q)!.push(await searchBeside(q, search, l));
      await bareBeside(q, bareSearch.samples);
      bareSearch.load.push(l);
      grep.samples.push((await runTimed("grep", ["-rlF", "-e", q, "--", projects])).wallMs);
      grep.load.push(l);
      if (haveRg) {
        rg.samples.push((await runTimed("rg", ["-l", "-F", "-e", q, "--", projects])).wallMs);
        rg.load.push(l);
      }
    }
    for (const q of SCALE_HARD_QUERIES) {
      perHard.get(q)!.push(await searchBeside(q, hard, l));
      await bareBeside(q, bareSearch.samples);
      bareSearch.load.push(l);
    }
    the.samples.push(
      (await runTimed(launcher, ["search", "the", "--project", "*"], { cwd, env })).wallMs,
    );
    the.load.push(l);
    for (const argv of SCALE_FILTERED_SEARCHES) {
      const fr = await runTimed(launcher, ["search", ...argv, "--project", "*"], { cwd, env });
      if (fr.code !== 0) failures.push(`search ${argv.join(" ")} exited ${fr.code}`);
      filtered.samples.push(fr.wallMs);
      filtered.load.push(l);
    }
  }
  if (!haveRg) notes.push("rg is not installed: no rg figures.");
  // the same searches, warm, with two CPU-bound loops running beside them (one per core here),
  // against a floor timed beside the loops too
  const busySearch = row(
    "search_busy",
    `terminus search, the ${SCALE_QUERIES.length} and the ${SCALE_HARD_QUERIES.length} hard queries, two CPU-bound loops running (wall)`,
    false,
  );
  const busyFloor: number[] = [];
  const busyBare: number[] = [];
  await besideTwoLoops(async () => {
    for (let i = 0; i < BUSY_SEARCH_ROUNDS; i++) {
      for (const q of [...SCALE_QUERIES, ...SCALE_HARD_QUERIES]) {
        const l = await load1();
        busyFloor.push(await floorRun());
        const sr = await runTimed(launcher, ["search", q, "--project", "*"], { cwd, env });
        if (sr.code !== 0) failures.push(`search ${q} exited ${sr.code}: ${sr.stderr.trim()}`);
        busySearch.samples.push(sr.wallMs);
        busySearch.load.push(l);
        await bareBeside(q, busyBare);
      }
    }
  });
  const bf = p50(busyFloor);
  busySearch.extra = `beyond the floor timed beside the loops (p50 ${r1(bf)}): p50 +${
    r1(p50(busySearch.samples) - bf)
  } / p95 +${r1(p95(busySearch.samples) - bf)}; the bare search beside the same loops +${
    r1(p50(busyBare) - bf)
  } / +${r1(p95(busyBare) - bf)}`;
  const floorP50 = p50(floor.samples);
  if (bf < BUSY_FLOOR_RATIO * floorP50) {
    // a loop that did not get its core leaves the floor beside it at the idle floor's
    notes.push(
      `${name}: the floor beside the two loops (p50 ${
        r1(bf)
      }) is under ${BUSY_FLOOR_RATIO} times the idle floor's (${
        r1(floorP50)
      }): the loops did not hold both cores, so the row beside them is no busy figure`,
    );
  }
  notes.push(
    `${name}: terminus search per query, p50 beyond the floor: ${
      [...perQuery].map(([q, xs]) => `${q} ${r1(p50(xs) - floorP50)}`).join(", ")
    }`,
  );
  notes.push(
    `${name}: hard queries, p50 beyond the floor: ${
      [...perHard].map(([q, xs]) => `${q} ${r1(p50(xs) - floorP50)}`).join(", ")
    }`,
  );
  // what is Terminus's own beyond what any process of this shape costs on this host
  notes.push(
    `${name}: p50 beyond the bare programs (bench/bare/): terminus search, the ${
      SCALE_QUERIES.length + SCALE_HARD_QUERIES.length
    } queries, +${
      r1(p50([...search.samples, ...hard.samples]) - p50(bareSearch.samples))
    }; named prompt +${r1(p50(named.samples) - p50(bareHook.samples))}, out of the page cache +${
      r1(p50(coldNamed.samples) - p50(bareCold.samples))
    }; no-op pass +${r1(p50(noop.samples) - p50(bareNoop.samples))}; sessions +${
      r1(p50(list.samples) - p50(bareList.samples))
    }`,
  );
  // a slow hour slows the floor and a search alike (performance.md, "The figures follow the
  // floor"): this multiple compares builds measured at different hours
  const times = (xs: number[]) => round((p50(xs) - floorP50) / floorP50, 2);
  notes.push(
    `${name}: search p50 beyond the floor as a multiple of the floor's p50: the ${SCALE_QUERIES.length} ${
      times(search.samples)
    }x, the ${SCALE_HARD_QUERIES.length} hard ${times(hard.samples)}x`,
  );
  notes.push(
    "Hooks run with a real git repository as their working directory; they start no git (the project comes from the payload's cwd, looked up in the store), so git's share of a hook is 0. Runtime start is the floor row; the phase rows are the hooks section's in-process child (checkout modules, not the bundle), cold.",
  );
  ctx.log(`scale ${name}: search, grep, rg done`);

  const mcp = row("mcp", `MCP recall_search, ${MCP_CALLS} calls in one server (per call)`, false);
  const lm = await load1();
  mcp.samples.push(...await mcpCalls(launcher, cwd, env, MCP_CALLS));
  mcp.load.push(lm, await load1());

  const verify = row("verify", "terminus verify (wall)", false);
  for (let i = 0; i < VERIFY_RUNS; i++) {
    const l = await load1();
    const v = await runTimed(launcher, ["verify"], { cwd, env });
    if (v.code !== 0) failures.push(`verify exited ${v.code}: ${v.stderr.trim()}`);
    verify.samples.push(v.wallMs);
    verify.load.push(l);
  }
  if (failures.length) {
    throw new Error(`scale ${name}:\n${[...new Set(failures)].slice(0, 10).join("\n")}`);
  }
  const ratio = p50(grep.samples) / p50(search.samples);
  grep.extra = `grep p50 / terminus search p50: ${round(ratio, 2)}x`;
  if (rg.samples.length) {
    rg.extra = `rg p50 / terminus search p50: ${round(p50(rg.samples) / p50(search.samples), 2)}x`;
  }
  return { rows, notes, scn: settled };
}

/**
 * Named prompts counted against those that hand turns over at all (the same prompt, idle and
 * warm, in a session of its own): a prompt whose path brings nothing is no miss of a row.
 */
function deliveryTally() {
  let prompts = 0;
  let deliverable = 0;
  let delivered = 0;
  let late = 0;
  return {
    add(n: { delivered: boolean; late: boolean }, can: boolean): void {
      prompts++;
      if (can) deliverable++;
      if (n.delivered && can) delivered++;
      if (n.late) late++;
    },
    text: (withLate = true): string =>
      `delivered ${delivered} of the ${deliverable} that hand turns over idle and warm (${prompts} prompts)${
        withLate ? `, past the deadline ${late}/${prompts}` : ""
      }`,
  };
}

/**
 * Two loops on two cores make a process start about twice as slow; a floor beside them under
 * this multiple of the idle floor says they did not hold the cores.
 */
const BUSY_FLOOR_RATIO = 1.5;

/** Runs `fn` with two CPU-bound loops beside it (one per core here), stopped however it ends. */
async function besideTwoLoops(fn: () => Promise<void>): Promise<void> {
  const loops = [0, 1].map(() =>
    new Deno.Command("sh", { args: ["-c", "while :; do :; done"], stdout: "null", stderr: "null" })
      .spawn()
  );
  try {
    await fn();
  } finally {
    for (const p of loops) {
      try {
        p.kill("SIGKILL");
      } catch { /* gone */ }
      await p.status;
    }
  }
}

const f3 = (x: number) => x.toFixed(3);

/** Known-item quality at this size beside plain BM25 over the same index, and rank's cost. */
function qualityMetrics(name: string, q: ScaleQuality): Metric[] {
  return [
    metric(
      `scale_${name}_quality_session_mrr`,
      `${name}: known-item session MRR, in process (rank as terminus search runs it)`,
      round(q.terminus.mrr, 3),
      "",
      undefined,
      `hit@1 ${f3(q.terminus.hit1)}, hit@5 ${
        f3(q.terminus.hit5)
      }; plain BM25 over the same index MRR ${f3(q.plain.mrr)} (hit@1 ${f3(q.plain.hit1)}, hit@5 ${
        f3(q.plain.hit5)
      }); ${q.items} queries`,
    ),
    metric(
      `scale_${name}_quality_rank_ms`,
      `${name}: rank of one known-item query in process, p50`,
      r1(p50(q.rankMs)),
      "ms",
      undefined,
      `p50 ${r1(p50(q.rankMs))} / p95 ${r1(p95(q.rankMs))}, n=${q.rankMs.length}`,
    ),
  ];
}

function qualityNotes(name: string, q: ScaleQuality): string[] {
  return [
    `${name}: known-item quality (each query has one right session per copy, so a wrong first session's copies fill the top 10 and hit@1 = hit@5 nearly always):`,
    "| kind | n | terminus hit@1 | hit@5 | MRR | plain BM25 hit@1 | hit@5 | MRR |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ...[
      ["overall", { n: q.items, terminus: q.terminus, plain: q.plain }] as const,
      ...Object
        .entries(q.byKind),
    ].map(([k, v]) =>
      `| ${k} | ${v.n} | ${f3(v.terminus.hit1)} | ${f3(v.terminus.hit5)} | ${
        f3(v.terminus.mrr)
      } | ${f3(v.plain.hit1)} | ${f3(v.plain.hit5)} | ${f3(v.plain.mrr)} |`
    ),
    `${name}: missed in the top 10 but found by plain BM25: ${q.lost.join(", ") || "none"}`,
  ];
}

export const section: Section = {
  name: "scale",
  title: "Flat as the archive grows (~1.1 GB and ~3 GB of real transcripts)",
  optIn: true,
  async run(ctx) {
    const t0 = performance.now();
    const corpora = await prepareScaleCorpora(ctx.log);
    const wanted = (Deno.env.get("TERMINUS_BENCH_SCALE_SIZES") ?? SCALE_SIZES.map((s) => s.name)
      .join(",")).split(",").map((s) => s.trim());
    const inst = await installed(ctx);
    const metrics: Metric[] = [];
    const notes: string[] = [
      `Corpora ${corpora.built === "now" ? "built" : "reused"} in ${corpora.dir}: ${
        corpora.corpora.map((c) =>
          `${c.size.name} ${c.files} files, ${(c.bytes / 1e9).toFixed(2)} GB`
        )
          .join("; ")
      }.`,
    ];
    // a machine fact, said once: the kernel pages out idle files whatever memory is free
    const reclaim = await proactiveReclaim();
    if (reclaim) {
      notes.push(
        `${reclaim}: a store left idle that long is read from disk again by the next command, so the "first round" rows are what a person sees after such a pause; the other rows run every few seconds and stay in memory.`,
      );
    }
    const table: Record<string, Record<string, string>> = {};
    const data: Record<string, unknown> = {};
    for (const c of corpora.corpora.filter((c) => wanted.includes(c.size.name))) {
      const { rows, notes: n, scn } = await measureSize(ctx, inst.launcher, corpora.dir, c);
      notes.push(...n.map((x) => `${c.size.name}: ${x}`));
      ctx.log(`scale ${c.size.name}: known-item quality in process`);
      const q = scaleQuality(join(corpora.dir, "source"), scn.store, c.size.copies);
      metrics.push(...qualityMetrics(c.size.name, q));
      notes.push(...qualityNotes(c.size.name, q));
      const floor = rows.find((r) => r.id.endsWith("_floor"))!;
      const f50 = p50(floor.samples);
      for (const r of rows) {
        const a = r.beyond ? p50(r.samples) - f50 : p50(r.samples);
        const b = r.beyond ? p95(r.samples) - f50 : p95(r.samples);
        const ld = r.load.filter(Number.isFinite);
        const load = ld.length ? `${Math.min(...ld)}-${Math.max(...ld)}` : "?";
        const cell = r.samples.length === 0
          ? "-"
          : r.samples.length === 1
          ? `${r1(a)}${r.extra ? ` (${r.extra})` : ""}`
          : `${r1(a)} / ${r1(b)}${r.extra ? ` (${r.extra})` : ""}`;
        (table[r.label] ??= {})[c.size.name] = `${cell}, load ${load}`;
        metrics.push(metric(
          r.id,
          `${c.size.name}: ${r.label}, p50`,
          r.samples.length ? r1(a) : null,
          r.id.endsWith("_backfill") ? "s" : "ms",
          undefined,
          `p50 ${r1(a)} / p95 ${r1(b)}${
            r.beyond ? ` beyond the floor's p50 ${r1(f50)}` : ""
          }, n=${r.samples.length}, load ${load}${r.extra ? `; ${r.extra}` : ""}`,
        ));
      }
      data[c.size.name] = Object.fromEntries(
        rows.map((r) => [r.id, r.samples.map((x) => round(x, 2))]),
      );
    }
    const sizes = corpora.corpora.filter((c) => wanted.includes(c.size.name)).map((c) =>
      c.size.name
    );
    notes.push(
      "| figure (p50 / p95, ms) | " + sizes.join(" | ") + " |",
      "| --- | " + sizes.map(() => "---").join(" | ") + " |",
      ...Object.entries(table).map(([label, cells]) =>
        `| ${label} | ${sizes.map((s) => cells[s] ?? "-").join(" | ")} |`
      ),
      `The section took ${r1((performance.now() - t0) / 1000)} s.`,
    );
    return { metrics, notes, data };
  },
};
