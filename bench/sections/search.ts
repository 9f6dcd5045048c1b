/**
 * Search over the >= 200 MB corpus store: a fixed set of 50 queries (identifiers, paths, error
 * lines, prose words; all found in the genuine corpus), each scoped to the project it came from
 * in one copy of the corpus, or to every project.
 *
 * - In process: this module re-run as a child (`search.ts --inproc <store> <queries.json>`)
 *   imports the graph `mod.ts search` loads, opens the store read-only with openRead, awaits
 *   initReader (the zstd decoder) and calls search() from core/recall/search.ts for every query: one cold round
 *   (each query's first call in a fresh process), then warm rounds. Three such children: the
 *   warm samples are pooled for the p50 and p95, the cold ones are per-query medians. Then where the time goes: the FTS candidates alone (searchCandidates),
 *   ranking alone (rank: candidates + entity bonus), the rest being excerpts. Like hooks.ts's
 *   phases, the child only reads and times core.
 * - As a process: `terminus search <query> --project <p>`, each run beside an empty-module run
 *   (the runtime floor) in the same round.
 * - Against grep: the `*` queries and the issue's `execute_land`, each as `terminus search` and
 *   as `grep -rlF` over the same transcripts, round by round (one page cache).
 * - On real transcripts (`--real`, default the shared bench corpus): a store of them made once,
 *   and a few `*` queries as a process beside the floor and grep.
 * - Index size: the FTS tables, entities, paths and turn_text (dbstat), per transcript byte.
 * - `terminus reindex` on a copy of the store.
 */
import { join } from "node:path";
import { PERMISSION_FLAGS } from "../../core/context.ts";
import { type BenchContext, metric, type Section } from "../lib/context.ts";
import { inCopy } from "../lib/corpus.ts";
import { runTimed } from "../lib/proc.ts";
import { inprocChildren } from "../lib/inproc.ts";
import { copyStore, withStore } from "../lib/store.ts";
import { median, MiB, round } from "../lib/stats.ts";
import { cliArgs, ingest, type Scenario, scenario, scenarioEnv } from "../lib/terminus.ts";
import { realRoot } from "../lib/real.ts";
import { plainMatch } from "../lib/scale_quality.ts";
import { installed } from "../lib/installed.ts";
import { fullStore } from "./backfill.ts";
import { measureFloor } from "./floor.ts";
import { transcriptBytes } from "./real.ts";
import { archivedProjects, matchCounts, objectSizes } from "../../core/store/inspect.ts";

/** The projects of the genuine corpus (copy 0 spelling), by a short name. */
const PROJECTS = {
  ci: "/home/runner/work/erk/erk",
  slot37: "/Users/schrockn/.erk/repos/erk/worktrees/erk-slot-37",
  slot45: "/Users/schrockn/.erk/repos/erk/worktrees/erk-slot-45",
  slot48: "/Users/schrockn/.erk/repos/erk/worktrees/erk-slot-48",
  alpha: "/home/dev/code/project-alpha",
  demo: "/path/to/Demo",
} as const;

type Kind = "identifier" | "path" | "error" | "prose";
interface QuerySpec {
  q: string;
  kind: Kind;
  /** The project it is scoped to, or "*" for every project. */
  in: keyof typeof PROJECTS | "*";
}

/**
 * The 50 queries. Each has hits in its scope in every copy; query i is scoped to copy
 * i mod copies, so the set reads all over the store. Matching turns over the whole corpus
 * (FTS) range from 28 (one per copy) to ~6900 (`objective`).
 */
export const QUERIES: QuerySpec[] = [
  // identifiers
  { q: "SearchManager", kind: "identifier", in: "alpha" },
  { q: "retryBudget", kind: "identifier", in: "alpha" },
  { q: "ErkContext", kind: "identifier", in: "ci" },
  { q: "PlanRowData", kind: "identifier", in: "slot45" },
  { q: "LoadedConfig", kind: "identifier", in: "slot48" },
  { q: "PullRequestInfo", kind: "identifier", in: "slot45" },
  { q: "FakeGitHubIssues", kind: "identifier", in: "*" },
  { q: "TodoActionType", kind: "identifier", in: "demo" },
  { q: "useTodos", kind: "identifier", in: "demo" },
  { q: "CliRunner", kind: "identifier", in: "slot37" },
  { q: "build_blocking_message", kind: "identifier", in: "slot37" },
  { q: "plan_file_path", kind: "identifier", in: "*" },
  { q: "sessions_for_plan", kind: "identifier", in: "ci" },
  { q: "execute_gh_command_with_retry", kind: "identifier", in: "slot45" },
  { q: "GetLearnSessionsResultDict", kind: "identifier", in: "ci" },
  { q: "BranchManager", kind: "identifier", in: "*" },
  // paths
  { q: "src/worker/S.ts", kind: "path", in: "alpha" },
  { q: "src/erk/tui/app.py", kind: "path", in: "ci" },
  { q: "packages/erk-shared/src/erk_shared/gateway/git/fake.py", kind: "path", in: "slot45" },
  { q: "tests/tui/screens/test_objective_plans_screen.py", kind: "path", in: "slot45" },
  { q: "src/erk/cli/commands/exec/scripts/get_learn_sessions.py", kind: "path", in: "ci" },
  { q: "src/app/page.tsx", kind: "path", in: "demo" },
  { q: "components/TodoList.tsx", kind: "path", in: "demo" },
  { q: "docs/learned/index.md", kind: "path", in: "ci" },
  { q: "src/erk/cli/config.py", kind: "path", in: "slot48" },
  {
    q: "tests/unit/cli/commands/exec/scripts/test_exit_plan_mode_hook.py",
    kind: "path",
    in: "slot37",
  },
  { q: "src/erk/cli/commands/exec/scripts/plan_save_to_issue.py", kind: "path", in: "*" },
  { q: "packages/erk-shared/src/erk_shared/gateway/github/real.py", kind: "path", in: "*" },
  // error lines
  { q: "RuntimeError: If gh command fails", kind: "error", in: "slot45" },
  { q: "AssertionError: assert 0 == 1", kind: "error", in: "slot45" },
  { q: "TypeError: generate is not a function", kind: "error", in: "demo" },
  {
    q: "fatal: pathspec '.erk/impl-context/' did not match any files",
    kind: "error",
    in: "ci",
  },
  { q: "error: rustup could not choose a version of cargo to run", kind: "error", in: "alpha" },
  { q: "Todo text cannot be empty", kind: "error", in: "demo" },
  {
    q: "TypeError: setup_impl_from_issue() got an unexpected keyword argument",
    kind: "error",
    in: "slot37",
  },
  { q: "FAILED tests/tui/data/test_provider.py", kind: "error", in: "slot45" },
  { q: "CalledProcessError", kind: "error", in: "*" },
  { q: "Exit code 1", kind: "error", in: "*" },
  // prose
  { q: "worktree", kind: "prose", in: "slot37" },
  { q: "refactor", kind: "prose", in: "ci" },
  { q: "pull request", kind: "prose", in: "slot45" },
  { q: "rebase", kind: "prose", in: "*" },
  { q: "keyboard shortcuts", kind: "prose", in: "alpha" },
  { q: "the tests are failing", kind: "prose", in: "ci" },
  { q: "permission denied", kind: "prose", in: "alpha" },
  { q: "git commit", kind: "prose", in: "*" },
  { q: "plan mode", kind: "prose", in: "slot37" },
  { q: "session id", kind: "prose", in: "*" },
  { q: "objective", kind: "prose", in: "*" },
  { q: "documentation", kind: "prose", in: "demo" },
];

/** The query of issue #11's measurement, over every project. */
const ISSUE_QUERY = "execute_land";

/** `*` queries on the real corpus: the issue's, an error name, prose, a path-ish word. */
const REAL_QUERIES = [ISSUE_QUERY, "TypeError", "rebase", "git commit", "pytest", "worktree"];

/** Rounds of (floor, terminus search, grep) per query, for the grep and real figures. */
const GREP_ROUNDS = 3;

/** In-process children (fresh processes): cold figures are their per-query medians. */
const CHILDREN = 3;
/** Warm rounds over the 50 queries in each child, after the cold one; samples are pooled. */
const WARM_ROUNDS = 4;
/** Repeats of each query for the phase split. */
const PHASE_REPEATS = 3;
/** `terminus search` processes per query. */
const CLI_ROUNDS = 3;
const REINDEX_RUNS = 3;

interface Resolved {
  q: string;
  kind: Kind;
  /** The scope's project in its copy, or null for every project. */
  project: string | null;
}

interface QueryResult {
  /** First call in the child (a fresh process), ms. */
  cold: number;
  warm: number[];
  /** resolveScope's time for this query's project, ms (the CLI pays it once). */
  scope: number;
  hits: number;
  /** Median of PHASE_REPEATS: FTS candidates alone, rank (candidates + bonus), search. */
  candidatesMs: number;
  rankMs: number;
  searchMs: number;
  candidates: number;
  /** Turns matching every word over the whole store, and within the scope. */
  matches: number;
  scopedMatches: number;
}

interface ChildOut {
  importMs: number;
  configMs: number;
  openMs: number;
  codecMs: number;
  queries: QueryResult[];
}

/* ---------- in process (the child side) ---------- */

async function inprocChild(store: string, queriesFile: string): Promise<ChildOut> {
  const qs = JSON.parse(Deno.readTextFileSync(queriesFile)) as Resolved[];
  // import: the graph `mod.ts search` loads (node:util for its argv), then the pieces timed
  // here; the child's own modules (core/context.ts among them) were loaded before
  const t0 = performance.now();
  await import("../../mod.ts");
  await import("../../commands/search.ts");
  await import("node:util");
  const { search } = await import("../../core/recall/search.ts");
  const { rank } = await import("../../core/recall/rank.ts");
  const { parseQuery } = await import("../../core/recall/query.ts");
  const { searchCandidates } = await import("../../core/store/search_candidates.ts");
  const { openRead } = await import("../../core/store/db.ts");
  const { initReader } = await import("../../core/store/codec.ts");
  const { egress } = await import("../../core/egress.ts");
  const { loadConfig } = await import("../../core/config.ts");
  const { processEnv } = await import("../../core/paths.ts");
  const { resolveScope } = await import("../../core/open.ts");
  const { SEARCH_LIMIT_DEFAULT, SEARCH_POOL } = await import("../../core/constants.ts");
  const importMs = performance.now() - t0;

  let a = performance.now();
  const lap = () => {
    const b = performance.now();
    const d = b - a;
    a = b;
    return d;
  };
  const cfg = loadConfig(processEnv);
  const filter = egress(cfg.privacy.redactRecall);
  const configMs = lap();
  const opened = openRead(store);
  if (!opened) throw new Error(`no store at ${store}`);
  const db = opened.db;
  const openMs = lap();
  await initReader();
  const codecMs = lap();

  const args = (r: Resolved) => ({
    query: parseQuery(r.q),
    vis: { project: r.project, exclude: [] },
    filters: {},
    limit: SEARCH_LIMIT_DEFAULT,
    filter,
  });
  const timed = (r: Resolved) => {
    const s = performance.now();
    const hits = search(db, args(r));
    return { ms: performance.now() - s, hits: hits.length };
  };
  const out: QueryResult[] = qs.map(() => ({
    cold: 0,
    warm: [],
    scope: 0,
    hits: 0,
    candidatesMs: 0,
    rankMs: 0,
    searchMs: 0,
    candidates: 0,
    matches: 0,
    scopedMatches: 0,
  }));
  // cold: the first call of each query, in order, in this fresh process
  qs.forEach((r, i) => {
    const s = performance.now();
    const sc = resolveScope(db, cfg, r.project ?? "/", r.project ?? "*");
    out[i].scope = performance.now() - s;
    if (!sc.ok || sc.vis.project !== r.project) {
      throw new Error(`scope of ${r.project}: ${sc.ok ? sc.vis.project : sc.reason}`);
    }
    const t = timed(r);
    out[i].cold = t.ms;
    out[i].hits = t.hits;
  });
  for (let round = 0; round < WARM_ROUNDS; round++) {
    qs.forEach((r, i) => out[i].warm.push(timed(r).ms));
  }
  // where the time goes: candidates alone, rank alone, search, each the median of a few
  qs.forEach((r, i) => {
    const c: number[] = [];
    const k: number[] = [];
    const s: number[] = [];
    for (let j = 0; j < PHASE_REPEATS; j++) {
      const x = args(r);
      let t = performance.now();
      out[i].candidates =
        searchCandidates(db, x.query.clauses, x.vis, x.filters, SEARCH_POOL).length;
      c.push(performance.now() - t);
      t = performance.now();
      rank(db, x);
      k.push(performance.now() - t);
      s.push(timed(r).ms);
    }
    out[i].candidatesMs = median(c);
    out[i].rankMs = median(k);
    out[i].searchMs = median(s);
    // how many turns match, untimed
    const match = parseQuery(r.q).match!;
    const mc = matchCounts(db, match, { project: r.project, exclude: [] });
    out[i].matches = mc.matches;
    out[i].scopedMatches = mc.scoped;
  });
  db.close();
  return { importMs, configMs, openMs, codecMs, queries: out };
}

/* ---------- helpers (the parent side) ---------- */

/** Warm samples pooled; every other figure the median over the children. */
function mergeChildren(outs: ChildOut[]): ChildOut {
  const med = (f: (o: ChildOut) => number) => median(outs.map(f));
  return {
    importMs: med((o) => o.importMs),
    configMs: med((o) => o.configMs),
    openMs: med((o) => o.openMs),
    codecMs: med((o) => o.codecMs),
    queries: outs[0].queries.map((first, i) => {
      const m = (f: (q: QueryResult) => number) => median(outs.map((o) => f(o.queries[i])));
      return {
        ...first,
        cold: m((q) => q.cold),
        warm: outs.flatMap((o) => o.queries[i].warm),
        scope: m((q) => q.scope),
        candidatesMs: m((q) => q.candidatesMs),
        rankMs: m((q) => q.rankMs),
        searchMs: m((q) => q.searchMs),
      };
    }),
  };
}

/** Nearest-rank percentile (the browse section uses it too). */
export function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
}

const r1 = (x: number) => round(x, 1);
const r2 = (x: number) => round(x, 2);

/** The queries with their projects as spelt in their copy; throws if one is not archived. */
export function resolveQueries(ctx: BenchContext, store: string): Resolved[] {
  const archived = withStore(store, archivedProjects);
  return QUERIES.map((s, i) => {
    if (s.in === "*") return { q: s.q, kind: s.kind, project: null };
    const project = inCopy(PROJECTS[s.in], i % ctx.corpus.copies);
    if (!archived.has(project)) {
      throw new Error(
        `search: no archived project ${project} (query ${
          JSON.stringify(s.q)
        }); the query list is written for the corpus in /work/shared/corpus`,
      );
    }
    return { q: s.q, kind: s.kind, project };
  });
}

type IndexGroup = "fts" | "entities" | "paths" | "turn_text" | "turns";

function indexGroup(name: string): IndexGroup | null {
  if (name === "turns_fts" || name.startsWith("turns_fts_")) return "fts";
  if (name === "entities" || name.startsWith("entities_")) return "entities";
  if (name === "paths" || name.startsWith("paths_")) return "paths";
  if (name === "turn_text") return "turn_text";
  if (name === "turns" || name === "turns_session" || name === "turns_uuid") return "turns";
  return null;
}

/** Each query over every project: a floor run, `terminus search`, `grep -rlF`, round by round. */
interface VersusGrep {
  floor: number[];
  cli: number[];
  grep: number[];
  byQuery: { q: string; cliMs: number; grepMs: number; hits: number; files: number }[];
}

async function versusGrep(
  ctx: BenchContext,
  queries: string[],
  dirs: string[],
  env: Record<string, string>,
  launcher: string,
): Promise<VersusGrep> {
  const floorArgs = ["run", ...PERMISSION_FLAGS, join(ctx.outDir, "empty.ts")];
  const out: VersusGrep = { floor: [], cli: [], grep: [], byQuery: [] };
  const per = queries.map(() => ({ cli: [] as number[], grep: [] as number[], hits: 0, files: 0 }));
  for (let round = 0; round < GREP_ROUNDS; round++) {
    for (const [i, q] of queries.entries()) {
      const f = await runTimed(Deno.execPath(), floorArgs, { cwd: ctx.repo });
      if (f.code !== 0) throw new Error(`empty.ts exited ${f.code}: ${f.stderr}`);
      out.floor.push(f.wallMs);
      // the installed launcher: what a person with grep at hand would type
      const s = await runTimed(launcher, ["search", q, "--project", "*"], { cwd: ctx.repo, env });
      if (s.code !== 0) throw new Error(`terminus search ${JSON.stringify(q)}: ${s.stderr}`);
      per[i].cli.push(s.wallMs);
      per[i].hits = Number(/(\d+) hit\(s\)/.exec(s.stderr)?.[1] ?? NaN);
      // 0: found, 1: not found; 2 is trouble
      const g = await runTimed("grep", ["-rlF", "-e", q, "--", ...dirs], { cwd: ctx.repo });
      if (g.code > 1) throw new Error(`grep ${JSON.stringify(q)} exited ${g.code}: ${g.stderr}`);
      per[i].grep.push(g.wallMs);
      per[i].files = g.stdout.split("\n").filter(Boolean).length;
    }
  }
  out.cli = per.flatMap((p) => p.cli);
  out.grep = per.flatMap((p) => p.grep);
  out.byQuery = per.map((p, i) => ({
    q: queries[i],
    cliMs: median(p.cli),
    grepMs: median(p.grep),
    hits: p.hits,
    files: p.files,
  }));
  return out;
}

/** "a x b": grep's median wall over terminus search's, with both medians. */
function ratioNote(v: VersusGrep): string {
  return v.byQuery.map((r) =>
    `${JSON.stringify(r.q)} ${r1(r.grepMs)} / ${r1(r.cliMs)} ms = ${
      r1(r.grepMs / r.cliMs)
    }x (${r.hits} hits, grep ${r.files} files)`
  ).join("; ");
}

/** A store of the real transcripts, made once (untimed) and kept while they stay the same. */
function realStore(ctx: BenchContext, root: string): Promise<Scenario> {
  return ctx.once("real-search-store", async () => {
    const marker = JSON.stringify({ root, ...transcriptBytes(root) });
    const scn = scenario(ctx.workDir, "real-search", [root], false);
    try {
      if (Deno.readTextFileSync(join(scn.dir, "ready.json")) === marker) return scn;
    } catch { /* not made yet */ }
    ctx.log("search: no store of the real corpus yet: one untimed ingest");
    const fresh = scenario(ctx.workDir, "real-search", [root], true);
    await ingest(ctx.repo, fresh);
    Deno.writeTextFileSync(join(fresh.dir, "ready.json"), marker);
    return fresh;
  });
}

/* ---------- the section ---------- */

export const section: Section = {
  name: "search",
  title: "Search (50 queries over the full store)",
  async run(ctx) {
    const { scn } = await fullStore(ctx);
    const floor = await measureFloor(ctx);
    const queries = resolveQueries(ctx, scn.store);
    const queriesFile = join(ctx.workDir, "search-queries.json");
    Deno.writeTextFileSync(queriesFile, JSON.stringify(queries, null, 2) + "\n");
    const env = scenarioEnv(scn);

    // in process, in children of their own
    ctx.log(
      `search: ${queries.length} queries in process, ${CHILDREN} processes x (1 cold + ${WARM_ROUNDS} warm rounds)`,
    );
    const outs = await inprocChildren<ChildOut>(import.meta.url, [scn.store, queriesFile], {
      cwd: ctx.repo,
      env,
      n: CHILDREN,
      name: "search",
    });
    const res = mergeChildren(outs);
    const qr = res.queries;
    const warm = qr.flatMap((r) => r.warm);
    const cold = qr.map((r) => r.cold);
    const perQuery = qr.map((r, i) => ({ ...queries[i], ...r, warmMedian: median(r.warm) }));
    const slowest = [...perQuery].sort((a, b) => b.warmMedian - a.warmMedian).slice(0, 5);
    const noHits = perQuery.filter((r) => r.hits === 0);
    const byKind = (k: Kind) => perQuery.filter((r) => r.kind === k).flatMap((r) => r.warm);
    const scoped = perQuery.filter((r) => r.project !== null).flatMap((r) => r.warm);
    const global = perQuery.filter((r) => r.project === null).flatMap((r) => r.warm);
    const sum = (f: (r: QueryResult) => number) => qr.reduce((n, r) => n + f(r), 0);
    const tSearch = sum((r) => r.searchMs);
    const tCand = sum((r) => r.candidatesMs);
    const tRank = sum((r) => r.rankMs);
    const share = (x: number) => `${Math.round((100 * x) / tSearch)}%`;

    // as a process, each beside a floor run
    ctx.log(`search: ${queries.length * CLI_ROUNDS} \`terminus search\` processes`);
    const empty = join(ctx.outDir, "empty.ts");
    Deno.writeTextFileSync(empty, "");
    const floorArgs = ["run", ...PERMISSION_FLAGS, empty];
    const inst = await installed(ctx);
    const cliWall: number[] = [];
    const instWall: number[] = [];
    const floorWall: number[] = [];
    // the least a search process does on this host, in the same rounds (bench/bare/search.js)
    const bareWall: number[] = [];
    const bareArgs = (m: string) => [
      "run",
      ...PERMISSION_FLAGS,
      new URL("../bare/search.js", import.meta.url).pathname,
      scn.store,
      m,
    ];
    const cliHitsOff: string[] = [];
    for (let round = 0; round < CLI_ROUNDS; round++) {
      for (const [i, r] of queries.entries()) {
        const f = await runTimed(Deno.execPath(), floorArgs, { cwd: ctx.repo });
        if (f.code !== 0) throw new Error(`empty.ts exited ${f.code}: ${f.stderr}`);
        floorWall.push(f.wallMs);
        const words = ["search", r.q, "--project", r.project ?? "*"];
        // the checkout (`deno run mod.ts`), then the installed launcher, on the same store
        for (
          const [cmd, args, walls] of [
            [Deno.execPath(), cliArgs(ctx.repo, words), cliWall],
            [inst.launcher, words, instWall],
          ] as const
        ) {
          const s = await runTimed(cmd, [...args], { cwd: ctx.repo, env });
          if (s.code !== 0) {
            throw new Error(`${cmd} search ${JSON.stringify(r.q)} exited ${s.code}: ${s.stderr}`);
          }
          walls.push(s.wallMs);
          const n = Number(/(\d+) hit\(s\)/.exec(s.stderr)?.[1] ?? NaN);
          if (round === 0 && n !== qr[i].hits) {
            cliHitsOff.push(`${JSON.stringify(r.q)}: ${n} vs ${qr[i].hits} in process (${cmd})`);
          }
        }
        const m = plainMatch(r.q);
        if (m !== null) {
          const b = await runTimed(Deno.execPath(), bareArgs(m), { cwd: ctx.repo });
          if (b.code !== 0) throw new Error(`bare search ${JSON.stringify(m)}: ${b.stderr}`);
          if (round > 0) bareWall.push(b.wallMs); // its first run compiles it
        }
      }
    }
    const cliMedian = median(cliWall);
    const instMedian = median(instWall);
    const floorMedian = median(floorWall);

    // against grep, over the same transcripts
    const grepQueries = [ISSUE_QUERY, ...QUERIES.filter((x) => x.in === "*").map((x) => x.q)];
    ctx.log(`search: ${grepQueries.length} queries x ${GREP_ROUNDS} as terminus search and grep`);
    const vg = await versusGrep(
      ctx,
      grepQueries,
      ctx.corpus.parts.map((p) => p.root),
      env,
      inst.launcher,
    );
    const issue = vg.byQuery[0];

    // on real transcripts
    const real = await realRoot(ctx.outDir, ctx.opts.real);
    let vr: VersusGrep | null = null;
    let realBytes = 0;
    if (real.root) {
      const rs = await realStore(ctx, real.root);
      realBytes = transcriptBytes(real.root).bytes;
      ctx.log(`search: ${REAL_QUERIES.length} queries x ${GREP_ROUNDS} on the real corpus`);
      vr = await versusGrep(
        ctx,
        REAL_QUERIES,
        [join(real.root, "projects")],
        scenarioEnv(rs),
        inst.launcher,
      );
    }

    // index size
    const objects = withStore(scn.store, objectSizes);
    const idx: Record<IndexGroup, number> = {
      fts: 0,
      entities: 0,
      paths: 0,
      turn_text: 0,
      turns: 0,
    };
    const members: Record<IndexGroup, string[]> = {
      fts: [],
      entities: [],
      paths: [],
      turn_text: [],
      turns: [],
    };
    for (const o of objects) {
      const g = indexGroup(o.name);
      if (!g) continue;
      idx[g] += o.bytes;
      members[g].push(`${o.name} ${r1(o.bytes / MiB)}`);
    }
    const transcript = ctx.corpus.bytes;
    const pctOf = (n: number) => round((100 * n) / transcript, 1);
    const searchIndex = idx.fts + idx.entities + idx.paths + idx.turn_text;

    // reindex, on a copy of the store
    const rscn = scenario(ctx.workDir, "reindex", scn.roots, true);
    const reindex: { wallMs: number; rss: number | null; sessions: number; turns: number }[] = [];
    for (let i = 0; i < REINDEX_RUNS; i++) {
      copyStore(scn.store, rscn.dataDir);
      ctx.log(`search: terminus reindex ${i + 1}/${REINDEX_RUNS}`);
      const r = await runTimed(Deno.execPath(), cliArgs(ctx.repo, ["reindex", "--json"]), {
        cwd: ctx.repo,
        env: scenarioEnv(rscn),
        timeDir: ctx.gnuTime ? rscn.dir : undefined,
      });
      if (r.code !== 0) throw new Error(`terminus reindex exited ${r.code}:\n${r.stderr}`);
      const d = JSON.parse(r.stdout).data as { sessions: number; turns: number };
      reindex.push({ wallMs: r.wallMs, rss: r.maxRssBytes, sessions: d.sessions, turns: d.turns });
    }
    Deno.removeSync(rscn.dataDir, { recursive: true });
    const ri = reindex[Math.floor(reindex.length / 2)];
    const reindexMs = median(reindex.map((r) => r.wallMs));

    const fmtQ = (r: (typeof perQuery)[number]) =>
      `${JSON.stringify(r.q)}${r.project === null ? " (*)" : ""} ${
        r1(r.warmMedian)
      } ms, ${r.matches} matching turns (${r.scopedMatches} in scope)`;
    const spread = (xs: number[]) =>
      `p50 ${r1(pct(xs, 0.5))}, p95 ${r1(pct(xs, 0.95))}, max ${r1(Math.max(...xs))} ms`;
    const metrics = [
      metric(
        "search_p50_ms",
        "search(), in process, p50",
        r2(pct(warm, 0.5)),
        "ms",
        { op: "<=", value: 10 },
        `${warm.length} samples: ${queries.length} queries x ${WARM_ROUNDS} warm rounds x ${CHILDREN} processes`,
      ),
      metric(
        "search_p95_ms",
        "search(), in process, p95",
        r2(pct(warm, 0.95)),
        "ms",
        { op: "<=", value: 30 },
        `max ${r1(Math.max(...warm))} ms; slowest (median): ${slowest.map(fmtQ).join("; ")}`,
      ),
      metric(
        "search_cold_p50_ms",
        "search(), first call of each query in a fresh process, p50",
        r2(pct(cold, 0.5)),
        "ms",
        undefined,
        `p95 ${r1(pct(cold, 0.95))} ms; the very first query ${r1(cold[0])} ms`,
      ),
      metric(
        "search_phases_pct",
        "search() time in the FTS candidates query",
        Math.round((100 * tCand) / tSearch),
        "%",
        undefined,
        `over the 50 queries: candidates (FTS MATCH + scope join + bm25 order, <= 200) ${
          r1(tCand)
        } ms (${share(tCand)}), entity bonus ${r1(tRank - tCand)} ms (${
          share(tRank - tCand)
        }), excerpts from the blocks ${r1(tSearch - tRank)} ms (${share(tSearch - tRank)})`,
      ),
      metric(
        "search_cli_median_ms",
        "checkout terminus search (deno run mod.ts), process wall, median",
        r1(cliMedian),
        "ms",
        undefined,
        `n=${cliWall.length}, ${spread(cliWall)}; floor beside it n=${floorWall.length}, ${
          spread(floorWall)
        }`,
      ),
      metric(
        "search_installed_median_ms",
        `installed terminus search (${inst.bundled ? "bundled" : "not bundled"}), process wall`,
        r1(instMedian),
        "ms",
        undefined,
        `n=${instWall.length}, ${spread(instWall)}; ${inst.launcher}`,
      ),
      metric(
        "search_installed_beyond_floor_ms",
        "installed terminus search, median beyond the runtime floor",
        r1(instMedian - floorMedian),
        "ms",
        { op: "<=", value: 25 },
        `${r1(instMedian)} - ${r1(floorMedian)} ms: the launcher a person runs, its copy ${
          inst.bundled ? "bundled by terminus install" : "run from its source (no bundler cached)"
        }, interleaved with the checkout's runs below`,
      ),
      metric(
        "search_bare_beyond_floor_ms",
        "bare search (node:sqlite, FTS5's BM25 top 10, every word, no scope), median beyond the runtime floor",
        r1(median(bareWall) - floorMedian),
        "ms",
        undefined,
        `${r1(median(bareWall))} - ${
          r1(floorMedian)
        } ms, n=${bareWall.length}: what any search process pays on this host (bench/bare/search.js); installed terminus search beyond it: ${
          r1(instMedian - median(bareWall))
        } ms`,
      ),
      metric(
        "search_cli_beyond_floor_ms",
        "checkout terminus search (deno run mod.ts), median beyond the runtime floor",
        r1(cliMedian - floorMedian),
        "ms",
        undefined,
        `${r1(cliMedian)} - ${
          r1(floorMedian)
        } ms (floor run in the same rounds; the floor section's median ${
          r1(floor.summary.median)
        } ms); in the child: import ${r1(res.importMs)}, config ${r1(res.configMs)}, open ${
          r1(res.openMs)
        }, initReader (zstd decoder) ${r1(res.codecMs)}, first resolveScope ${r1(qr[0].scope)} ms`,
      ),
      metric(
        "search_grep_ratio",
        "grep -rlF over the transcripts / terminus search, medians, * queries",
        r1(median(vg.grep) / median(vg.cli)),
        "x",
        undefined,
        `grep ${r1(median(vg.grep))} ms, terminus search ${
          r1(median(vg.cli))
        } ms (n=${vg.cli.length} each, ${grepQueries.length} queries x ${GREP_ROUNDS}, floor beside them ${
          r1(median(vg.floor))
        } ms); ${ratioNote(vg)}`,
      ),
      metric(
        "search_issue_query_beyond_floor_ms",
        `terminus search ${ISSUE_QUERY} --project '*', median beyond the floor`,
        r1(issue.cliMs - median(vg.floor)),
        "ms",
        undefined,
        `${r1(issue.cliMs)} ms, ${issue.hits} hit(s); grep -rlF ${r1(issue.grepMs)} ms (${
          r1(issue.grepMs / issue.cliMs)
        }x)`,
      ),
      ...(vr
        ? [
          metric(
            "search_real_cli_beyond_floor_ms",
            "real transcripts: terminus search --project '*', median beyond the floor",
            r1(median(vr.cli) - median(vr.floor)),
            "ms",
            undefined,
            `${r1(median(vr.cli))} - ${r1(median(vr.floor))} ms, n=${vr.cli.length}; ${
              r1(realBytes / 1e6)
            } MB of transcripts in ${real.root}`,
          ),
          metric(
            "search_real_grep_ratio",
            "real transcripts: grep -rlF / terminus search, medians",
            r1(median(vr.grep) / median(vr.cli)),
            "x",
            undefined,
            ratioNote(vr),
          ),
        ]
        : []),
      metric(
        "search_index_pct",
        "search index (FTS + entities + paths + turn_text)",
        pctOf(searchIndex),
        "% of transcript bytes",
        undefined,
        `${r1(searchIndex / MiB)} MiB for ${r1(transcript / MiB)} MiB of transcripts`,
      ),
      ...(["fts", "entities", "paths", "turn_text"] as const).map((g) =>
        metric(
          `search_index_${g}_pct`,
          g === "fts" ? "FTS tables (turns_fts*)" : `${g} (table + indexes)`,
          pctOf(idx[g]),
          "% of transcript bytes",
          undefined,
          `${members[g].join(", ")} MiB`,
        )
      ),
      metric(
        "search_index_turns_pct",
        "turns (table + indexes), for comparison",
        pctOf(idx.turns),
        "% of transcript bytes",
        undefined,
        `${members.turns.join(", ")} MiB`,
      ),
      metric(
        "reindex_s",
        "terminus reindex, process wall",
        r1(reindexMs / 1000),
        "s",
        undefined,
        `${ri.sessions} sessions, ${ri.turns} turns rebuilt (${
          Math.round(ri.turns / (reindexMs / 1000))
        } turns/s, ${r1(transcript / 1e6 / (reindexMs / 1000))} MB of transcripts/s)${
          ri.rss ? `; peak RSS ${r1(ri.rss / MiB)} MiB` : ""
        }; ${reindex.length} run(s) on a copy of the store`,
      ),
    ];
    const notes = [
      `Queries (in the file): ${
        (["identifier", "path", "error", "prose"] as const).map((k) =>
          `${perQuery.filter((r) => r.kind === k).length} ${k}s (warm ${spread(byKind(k))})`
        ).join(", ")
      }. ${
        perQuery.filter((r) => r.project !== null).length
      } scoped to their project in copy i mod ${ctx.corpus.copies} (warm ${spread(scoped)}), ${
        perQuery.filter((r) => r.project === null).length
      } over every project (warm ${spread(global)}).`,
      `In process: ${CHILDREN} children each import mod.ts, commands/search.ts and node:util, load the config, openRead the store, await initReader (the zstd decoder a search loads), then call search() (limit 10, the CLI's default; the config's redaction filter) on each query once (cold: the per-query median over the children), then ${WARM_ROUNDS} more rounds (warm: p50 and p95 over the pooled samples). Phases are medians of ${PHASE_REPEATS} calls each of searchCandidates, rank and search; start-up figures (import, config, open, initReader) medians over the children.`,
      `\`terminus search <query> --project <project or *>\` ${CLI_ROUNDS} times per query, each right after an empty-module run (the floor) with the same flags: as \`deno run <PERMISSION_FLAGS> mod.ts\` from the checkout, then through the launcher \`terminus install\` placed in a HOME of the bench's own (${
        inst.bundled ? "its copy bundled" : "its copy not bundled: no bundler in the module cache"
      }).`,
      `Against grep: the installed \`terminus search <q> --project '*'\` and \`grep -rlF -e <q> -- <transcript folders>\` (the issue's \`grep -rl\`, the query taken as a fixed string) one after the other, after a floor run, ${GREP_ROUNDS} rounds over the same page cache; the ratio is grep's median over search's.`,
      "Every copy holds the same text, so FTS doclists are 28 copies long: a word's matches over the whole store are 28x what one copy holds, scoped or not (the scope is a join after the MATCH).",
    ];
    if (!vr) notes.push(`No real-corpus figures: ${real.why}.`);
    if (noHits.length) {
      notes.push(`No hit: ${noHits.map((r) => JSON.stringify(r.q)).join(", ")}.`);
    }
    if (cliHitsOff.length) {
      notes.push(`The CLI's hit count differed from search(): ${cliHitsOff.join("; ")}.`);
    }
    return {
      metrics,
      notes,
      data: {
        child: {
          importMs: res.importMs,
          configMs: res.configMs,
          openMs: res.openMs,
          codecMs: res.codecMs,
        },
        queries: perQuery.map((r) => ({
          q: r.q,
          kind: r.kind,
          project: r.project,
          hits: r.hits,
          matches: r.matches,
          scopedMatches: r.scopedMatches,
          candidates: r.candidates,
          coldMs: r2(r.cold),
          warmMedianMs: r2(r.warmMedian),
          candidatesMs: r2(r.candidatesMs),
          rankMs: r2(r.rankMs),
          searchMs: r2(r.searchMs),
          scopeMs: r2(r.scope),
        })),
        cliWallMs: cliWall.map(r2),
        floorWallMs: floorWall.map(r2),
        versusGrep: vg,
        real: vr ? { root: real.root, transcriptBytes: realBytes, ...vr } : null,
        index: { transcriptBytes: transcript, ...idx },
        reindex,
      },
    };
  },
};

if (import.meta.main && Deno.args[0] === "--inproc") {
  const out = await inprocChild(Deno.args[1], Deno.args[2]);
  console.log(JSON.stringify(out));
  Deno.exit(0);
}
