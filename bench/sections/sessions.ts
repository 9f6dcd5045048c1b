/**
 * The session verbs on real transcripts (`--real DIR`, default the shared bench corpus), each
 * a process beside the runtime floor measured in the same rounds:
 *
 * - `sessions search <q> --project '*'` beside `terminus search <q> --project '*'` (the search
 *   it folds), for a few queries;
 * - `sessions changes <n>` for the sessions with the most editing calls;
 * - `sessions delete <n> --dry-run` (the plan), and `sessions delete <n> --yes` on a fresh copy
 *   of the data directory each run (the one transaction, its checkpoint and the tombstone).
 */
import { join } from "node:path";
import { type BenchContext, metric, type Section } from "../lib/context.ts";
import { runTimed } from "../lib/proc.ts";
import { realRoot } from "../lib/real.ts";
import { round, summarise, type Summary } from "../lib/stats.ts";
import { cliArgs, ingest, type Scenario, scenario, scenarioEnv } from "../lib/terminus.ts";
import { loadavg } from "../lib/machine.ts";
import { PERMISSION_FLAGS } from "../../core/context.ts";
import { editingSessions as mostEditing } from "../../core/store/inspect.ts";
import { withStore } from "../lib/store.ts";

const QUERIES = ["execute_land", "TypeError", "rebase", "git commit", "worktree"];
const ROUNDS = 5;
/** Sessions measured for `changes` and `delete`: the ones with the most Edit/Write calls. */
const SESSIONS = 3;

async function timed(ctx: BenchContext, s: Scenario, args: string[]): Promise<number> {
  const r = await runTimed(Deno.execPath(), cliArgs(ctx.repo, args), {
    cwd: ctx.repo,
    env: scenarioEnv(s),
  });
  if (r.code !== 0) throw new Error(`terminus ${args.join(" ")} exited ${r.code}:\n${r.stderr}`);
  return r.wallMs;
}

function copyTree(from: string, to: string): void {
  try {
    Deno.removeSync(to, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  Deno.mkdirSync(to, { recursive: true });
  for (const e of Deno.readDirSync(from)) {
    if (e.isDirectory) copyTree(join(from, e.name), join(to, e.name));
    else Deno.copyFileSync(join(from, e.name), join(to, e.name));
  }
}

/** The sessions whose turns call Edit, Write or MultiEdit most, by number. */
function editingSessions(store: string): number[] {
  return withStore(store, (db) => mostEditing(db, SESSIONS));
}

/** Nearest-rank 95th percentile. */
function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(0.95 * s.length) - 1))];
}

function line(xs: number[], floor: number): string {
  const s: Summary = summarise(xs);
  return `p50 ${round(s.median)} ms, p95 ${round(p95(xs))} ms, ${
    round(s.median / floor, 2)
  }x floor (n=${s.n})`;
}

export const section: Section = {
  name: "sessions",
  title: "Session verbs on real transcripts",
  async run(ctx: BenchContext) {
    const real = await realRoot(ctx.outDir, ctx.opts.real);
    if (!real.root) return { metrics: [], notes: [`skipped: ${real.why}`] };
    const scn = scenario(ctx.workDir, "sessions-real", [real.root], true);
    ctx.log("sessions: one untimed ingest of the real transcripts");
    await ingest(ctx.repo, scn);
    const load = await loadavg();
    const empty = join(ctx.outDir, "empty.ts");
    Deno.writeTextFileSync(empty, "");
    const floorArgs = ["run", ...PERMISSION_FLAGS, empty];
    const floor: number[] = [];
    const turns: number[] = [];
    const folded: number[] = [];
    const changes: number[] = [];
    const dry: number[] = [];
    const del: number[] = [];
    const targets = editingSessions(scn.store);
    // the copy a delete runs on, made fresh for each run from the ingested data directory
    const pristine = join(scn.dir, "data-pristine");
    copyTree(scn.dataDir, pristine);
    await timed(ctx, scn, ["sessions", "search", QUERIES[0], "--project", "*"]); // warm caches
    for (let round = 0; round < ROUNDS; round++) {
      ctx.log(`sessions: round ${round + 1}/${ROUNDS}`);
      for (const q of QUERIES) {
        floor.push((await runTimed(Deno.execPath(), floorArgs, { cwd: ctx.repo })).wallMs);
        turns.push(await timed(ctx, scn, ["search", ...q.split(" "), "--project", "*"]));
        folded.push(
          await timed(ctx, scn, ["sessions", "search", ...q.split(" "), "--project", "*"]),
        );
      }
      for (const no of targets) {
        changes.push(await timed(ctx, scn, ["sessions", "changes", String(no)]));
        dry.push(await timed(ctx, scn, ["sessions", "delete", String(no), "--dry-run"]));
        copyTree(pristine, scn.dataDir);
        del.push(await timed(ctx, scn, ["sessions", "delete", String(no), "--yes"]));
      }
    }
    copyTree(pristine, scn.dataDir);
    const f = summarise(floor).median;
    const loadText = `load ${load.map((x) => x.toFixed(2)).join(" ")}`;
    return {
      metrics: [
        metric(
          "sessions_floor_ms",
          "runtime floor in these rounds",
          round(f),
          "ms",
          undefined,
          loadText,
        ),
        metric(
          "sessions_search_ms",
          "sessions search <q> --project '*' (process wall, p50)",
          round(summarise(folded).median),
          "ms",
          undefined,
          `${line(folded, f)}; terminus search of the same queries ${line(turns, f)}`,
        ),
        metric(
          "sessions_changes_ms",
          "sessions changes <n> (process wall, p50)",
          round(summarise(changes).median),
          "ms",
          undefined,
          `${line(changes, f)}; sessions ${targets.join(", ")}`,
        ),
        metric(
          "sessions_delete_dry_ms",
          "sessions delete <n> --dry-run (process wall, p50)",
          round(summarise(dry).median),
          "ms",
          undefined,
          line(dry, f),
        ),
        metric(
          "sessions_delete_ms",
          "sessions delete <n> --yes (process wall, p50)",
          round(summarise(del).median),
          "ms",
          undefined,
          `${line(del, f)}; each on a fresh copy of the data directory`,
        ),
      ],
      notes: [
        `corpus: ${real.root}; ${loadText} at the start of the rounds`,
        "Each figure is a whole process, start-up included, interleaved with the floor run by run.",
      ],
      data: { floor, turns, folded, changes, dry, del, targets, load },
    };
  },
};
