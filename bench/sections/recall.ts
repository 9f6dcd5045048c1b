/**
 * Recall: the plan replay, the held-out replay on both real corpora, the word sets, the
 * in-process decision time and the deadline misses of the real hook (idle and beside a
 * backfill). Before them, recall precision: every typed
 * prompt of the real corpus (`--real DIR`, default the shared
 * bench corpus) replayed in time order against what was archived before it, judged by the
 * label rule; then prompts that name only things never archived, which must get nothing. The
 * same replay runs over the synthetic corpus's store for comparison, and the lookup's own time
 * (in process) is reported per prompt.
 */
import { join } from "node:path";
import { type BenchContext, type Metric, metric, type Section } from "../lib/context.ts";
import { otherRoot, realRoot } from "../lib/real.ts";
import {
  everydayPrompts,
  freshRecall,
  HELD_OUT_SHARES,
  namedPrompts,
  neverArchivedPrompts,
  type PlanReplay,
  type RecallReplay,
  replayHeldOut,
  replayPlans,
  replayRecall,
  type WordSet,
  wordSet,
} from "../lib/recall_replay.ts";
import { type DeadlineRun, deadlineRun, lateText } from "../lib/recall_deadline.ts";
import { round } from "../lib/stats.ts";
import { ingest, type Scenario, scenario } from "../lib/terminus.ts";
import { copyStore, fileSize } from "../lib/store.ts";
import { loadavg } from "../lib/machine.ts";
import { fullStore } from "./backfill.ts";
import { openRead } from "../../core/store/db.ts";

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] : NaN;
}

function figures(tag: string, label: string, r: RecallReplay): Metric[] {
  const judged = r.hits + r.falsePositives;
  return [
    metric(
      `${tag}_prompts`,
      `${label}: typed prompts (naming a path or identifier)`,
      r.prompts,
      "",
      undefined,
      `${r.naming} name something`,
    ),
    metric(
      `${tag}_precision`,
      `${label}: precision (hits / handed-over turns)`,
      judged ? round(r.hits / judged, 3) : null,
      "",
      { op: ">=", value: 0.6 },
      `${r.hits} hit(s), ${r.falsePositives} false positive(s)`,
    ),
    metric(
      `${tag}_fires`,
      `${label}: prompts that got turns, per 100 prompts`,
      r.prompts ? round((100 * r.fired) / r.prompts, 2) : null,
      "",
      undefined,
      `${r.fired} prompt(s), ${r.injectedTurns} turn(s)`,
    ),
    metric(`${tag}_misses`, `${label}: misses`, r.misses, ""),
    metric(
      `${tag}_never`,
      `${label}: fires on never-archived prompts`,
      r.never.fired,
      "",
      { op: "<=", value: 0 },
      `${r.never.prompts} prompt(s)${
        r.never.firedPrompts.length
          ? `; fired: ${r.never.firedPrompts.slice(0, 3).join(" | ")}`
          : ""
      }`,
    ),
    metric(
      `${tag}_lookup_p50`,
      `${label}: lookup in process, p50`,
      round(pct(r.lookupMs, 0.5), 2),
      "ms",
      undefined,
      `${r.lookupMs.length} lookup(s): the prompts above, the never-archived ones, and ${r.namedMs.length} naming the busiest project's most common paths and identifiers`,
    ),
    metric(
      `${tag}_lookup_p99`,
      `${label}: lookup in process, p99`,
      round(pct(r.lookupMs, 0.99), 2),
      "ms",
      { op: "<=", value: 15 },
    ),
    metric(
      `${tag}_named_p99`,
      `${label}: lookup naming common things, p99`,
      round(pct(r.namedMs, 0.99), 2),
      "ms",
      undefined,
      `max ${round(pct(r.namedMs, 1), 2)} ms`,
    ),
  ];
}

/** The two stores the deadline runs use: the >= 200 MB one, and s24's ~1.1 GB scale store. */
const SCALE_STORE = join(Deno.env.get("HOME") ?? "/root", ".cache/terminus-bench/scale/store-1gb");
const DEADLINE_PROMPTS = Number(Deno.env.get("TERMINUS_BENCH_RECALL_HOOKS") ?? 60);

function planFigures(tag: string, label: string, r: PlanReplay): Metric[] {
  const judged = r.hits + r.falsePositives;
  return [
    metric(
      `${tag}_plan_precision`,
      `${label}: plan replay precision (hits / handed-over turns)`,
      judged ? round(r.hits / judged, 3) : null,
      "",
      { op: ">=", value: 0.75 },
      `${r.plans} plan(s) naming a file, ${r.fired} got turns: ${r.hits} hit(s), ${r.falsePositives} false positive(s)`,
    ),
    metric(
      `${tag}_plan_useful`,
      `${label}: recallable plans that got a useful turn`,
      r.recallable ? round(r.useful / r.recallable, 3) : null,
      "",
      { op: ">=", value: 0.7 },
      `${r.useful} of ${r.recallable} recallable plan(s)`,
    ),
    metric(
      `${tag}_plan_lookup_p99`,
      `${label}: plan replay lookup in process, p99`,
      round(pct(r.lookupMs, 0.99), 2),
      "ms",
      undefined,
      `p50 ${round(pct(r.lookupMs, 0.5), 2)} ms (replay reads the index bounded by time)`,
    ),
  ];
}

function heldOutFigures(
  tag: string,
  label: string,
  h: ReturnType<typeof replayHeldOut>,
): Metric[] {
  const r = h.pooled;
  const judged = r.hits + r.falsePositives;
  const prec = (x: PlanReplay) => {
    const j = x.hits + x.falsePositives;
    return j ? `${round(x.hits / j, 3)} (${x.hits}/${j})` : "n/a";
  };
  const splits = h.bySplit.map((x) =>
    `at ${x.split?.share}: ${x.plans} prompt(s), precision ${
      prec(x)
    }, useful ${x.useful}/${x.recallable}`
  ).join("; ");
  return [
    metric(
      `${tag}_heldout_precision`,
      `${label}: held-out replay precision (hits / handed-over turns)`,
      judged ? round(r.hits / judged, 3) : null,
      "",
      { op: ">=", value: 0.75 },
      `${r.plans} prompt(s) of later sessions naming something, ${r.fired} got turns: ${r.hits} hit(s), ${r.falsePositives} false positive(s); ${splits}`,
    ),
    metric(
      `${tag}_heldout_useful`,
      `${label}: held-out replay useful recall (recallable prompts given a hit)`,
      r.recallable ? round(r.useful / r.recallable, 3) : null,
      "",
      { op: ">=", value: 0.85 },
      `${r.useful} of ${r.recallable} recallable prompt(s)`,
    ),
    metric(
      `${tag}_heldout_tool_results`,
      `${label}: held-out replay, tool results handed over`,
      r.toolResults,
      "",
      { op: "<=", value: 0 },
      `of ${r.injectedTurns} handed-over turn(s)`,
    ),
    metric(
      `${tag}_heldout_first_direct`,
      `${label}: held-out fires whose first turn is the Read/Edit/Write/Grep of what it matched`,
      r.fired ? round(r.firstDirect / r.fired, 3) : null,
      "",
      undefined,
      `${r.firstDirect} of ${r.fired}; a git add/commit line first in ${r.firstListing}`,
    ),
    metric(
      `${tag}_heldout_lookup_p99`,
      `${label}: held-out replay lookup in process, p99`,
      round(pct(r.lookupMs, 0.99), 2),
      "ms",
      undefined,
      `p50 ${round(pct(r.lookupMs, 0.5), 2)} ms (replay reads the index bounded by time)`,
    ),
  ];
}

function wordFigures(tag: string, label: string, ev: WordSet, nv: WordSet): Metric[] {
  const fired = (w: WordSet) =>
    `${w.prompts} prompt(s)${
      w.firedPrompts.length ? `; fired: ${w.firedPrompts.slice(0, 3).join(" | ")}` : ""
    }`;
  return [
    metric(`${tag}_everyday_fires`, `${label}: fires on everyday-word prompts`, ev.fired, "", {
      op: "<=",
      value: 0,
    }, fired(ev)),
    metric(`${tag}_never_fires`, `${label}: fires on never-archived names`, nv.fired, "", {
      op: "<=",
      value: 0,
    }, fired(nv)),
  ];
}

function deadlineFigures(tag: string, label: string, idle: DeadlineRun, busy: DeadlineRun) {
  const share = (d: DeadlineRun) => (d.found ? round((100 * d.late) / d.found, 2) : null);
  const detail = (d: DeadlineRun) =>
    `${d.late} of ${d.found} prompt(s) that found turns ran late (${d.prompts} hooks; spawn -> exit p50 ${
      round(pct(d.wallMs, 0.5), 1)
    } ms, p95 ${round(pct(d.wallMs, 0.95), 1)} ms; floor p50 ${
      round(pct(d.floorMs, 0.5), 1)
    } ms, ratio ${round(pct(d.wallMs, 0.5) / pct(d.floorMs, 0.5), 2)})${
      d.backfillRunning === false ? "; the backfill finished before the last hook" : ""
    }${d.lateHooks.length ? `; late: ${lateText(d)}` : ""}${
      d.errors.length ? `; errors: ${d.errors.slice(0, 2).join(" | ")}` : ""
    }`;
  return [
    metric(`${tag}_deadline_idle`, `${label}: deadline misses, idle`, share(idle), "%", {
      op: "<=",
      value: 0,
    }, detail(idle)),
    metric(
      `${tag}_deadline_backfill`,
      `${label}: deadline misses with a backfill on both cores`,
      share(busy),
      "%",
      { op: "<=", value: 2 },
      detail(busy),
    ),
  ];
}

/** A copy of a store in a scenario of its own, so the hooks' logs and passes touch only it. */
function storeCopy(ctx: BenchContext, name: string, store: string, roots: string[]): Scenario {
  const scn = scenario(ctx.workDir, name, roots, true);
  copyStore(store, scn.dataDir);
  // no snapshot during the timed hooks (a day's first pass takes one; not what is measured)
  Deno.writeTextFileSync(
    join(scn.configDir, "terminus.toml"),
    `roots = [${roots.map((r) => JSON.stringify(r)).join(", ")}]\n[snapshot]\nenabled = false\n`,
  );
  return scn;
}

/** The live decision (spellings + recall, no time bound) over prompts, in process. */
function decisionTimes(
  store: string,
  prompts: { prompt: string; cwd: string; project: string }[],
): number[] {
  const opened = openRead(store);
  if (!opened) return [];
  const ms: number[] = [];
  try {
    for (let round = 0; round < 2; round++) {
      for (const n of prompts) {
        const t0 = performance.now();
        freshRecall(opened.db, n);
        // the first round warms the page cache and the statements, as one hook's store is
        if (round === 1) ms.push(performance.now() - t0);
      }
    }
  } finally {
    opened.db.close();
  }
  return ms;
}

export const section: Section = {
  name: "recall",
  title:
    "Recall: plan replay, held-out replay, typed prompts, word sets, decision time, deadline misses",
  async run(ctx: BenchContext) {
    const metrics: Metric[] = [];
    const notes: string[] = [];
    const data: Record<string, unknown> = {};
    const real = await realRoot(ctx.outDir, ctx.opts.real);
    if (real.root) {
      const s = scenario(ctx.outDir, "recall-real", [real.root], true);
      ctx.log(`recall: archiving the real corpus at ${real.root}`);
      await ingest(ctx.repo, s);
      const plans = replayPlans(s.store, real.root, { keepExamples: 30 });
      metrics.push(...planFigures("real", "real", plans));
      const r = replayRecall(s.store, 20);
      metrics.push(...figures("real", "real", r));
      const ev = wordSet(s.store, everydayPrompts(s.store));
      const nv = wordSet(s.store, neverArchivedPrompts(s.store));
      metrics.push(...wordFigures("real", "real", ev, nv));
      const held = replayHeldOut(s.store, real.root, HELD_OUT_SHARES, 30);
      metrics.push(...heldOutFigures("real", "real", held));
      data.real = {
        plans: { ...plans, lookupMs: undefined },
        typed: { ...r, lookupMs: undefined, namedMs: undefined },
        heldOut: { ...held.pooled, lookupMs: undefined },
        everyday: ev,
        never: nv,
      };
    } else notes.push(`real corpus skipped: ${real.why}`);

    // the second real corpus: other projects, languages and Claude Code versions
    const other = await otherRoot(ctx.outDir, ctx.opts.realOther);
    if (other.root) {
      const s = scenario(ctx.outDir, "recall-real-other", [other.root], true);
      ctx.log(`recall: archiving the other real corpus at ${other.root}`);
      await ingest(ctx.repo, s);
      const held = replayHeldOut(s.store, other.root, HELD_OUT_SHARES, 30);
      metrics.push(...heldOutFigures("other", "other projects", held));
      const plans = replayPlans(s.store, other.root, { keepExamples: 30 });
      metrics.push(...planFigures("other", "other projects", plans));
      const ev = wordSet(s.store, everydayPrompts(s.store));
      const nv = wordSet(s.store, neverArchivedPrompts(s.store));
      metrics.push(...wordFigures("other", "other projects", ev, nv));
      data.other = {
        heldOut: { ...held.pooled, lookupMs: undefined },
        plans: { ...plans, lookupMs: undefined },
        everyday: ev,
        never: nv,
      };
    } else notes.push(`other real corpus skipped: ${other.why}`);

    // the >= 200 MB store the other sections share
    const { scn: full } = await fullStore(ctx);
    const fullBytes = fileSize(full.store);
    const r = replayRecall(full.store, 20);
    metrics.push(...figures("synthetic", "synthetic", r));
    data.synthetic = { ...r, lookupMs: undefined, namedMs: undefined };
    const live = [
      ...namedPrompts(full.store),
      ...everydayPrompts(full.store),
      ...neverArchivedPrompts(full.store),
    ];
    const load0 = await loadavg();
    const dec = decisionTimes(full.store, live);
    metrics.push(
      metric(
        "decision_p99",
        `in-process decision p99 (${(fullBytes / 1e6).toFixed(0)} MB store)`,
        round(pct(dec, 0.99), 2),
        "ms",
        { op: "<=", value: 15 },
        `${dec.length} live decisions (no time bound): p50 ${round(pct(dec, 0.5), 2)} ms, p95 ${
          round(pct(dec, 0.95), 2)
        } ms; load average ${load0.join(" ")}`,
      ),
    );

    const named = namedPrompts(full.store).slice(0, DEADLINE_PROMPTS);
    ctx.log(
      `recall: ${named.length} hooks idle, then with a backfill, on ${
        (fullBytes / 1e6).toFixed(0)
      } MB`,
    );
    const copy = storeCopy(ctx, "recall-hooks", full.store, full.roots);
    const idle = await deadlineRun(ctx.repo, copy, named, null);
    const loadIdle = await loadavg();
    const bfScn = scenario(ctx.workDir, "recall-backfill", full.roots, true);
    const busy = await deadlineRun(ctx.repo, copy, named, bfScn);
    const loadBusy = await loadavg();
    metrics.push(
      ...deadlineFigures("store200", `${(fullBytes / 1e6).toFixed(0)} MB store`, idle, busy),
    );
    notes.push(
      `Deadline runs: load average after idle ${loadIdle.join(" ")}, after backfill ${
        loadBusy.join(" ")
      }.`,
    );
    data.deadline = { idle, busy };

    try {
      const ready = JSON.parse(Deno.readTextFileSync(join(SCALE_STORE, "ready.json")));
      const store = join(SCALE_STORE, "data", "terminus.db");
      const empty = join(ctx.workDir, "recall-scale-empty");
      Deno.mkdirSync(join(empty, "projects"), { recursive: true });
      const scale = storeCopy(ctx, "recall-scale", store, [empty]);
      ctx.log(
        `recall: the scale store (${ready.bytes} transcript bytes): one pass to bring it to this build`,
      );
      await ingest(ctx.repo, scale);
      const sNamed = namedPrompts(scale.store).slice(0, DEADLINE_PROMPTS);
      const sIdle = await deadlineRun(ctx.repo, scale, sNamed, null);
      const sBusy = await deadlineRun(
        ctx.repo,
        scale,
        sNamed,
        scenario(ctx.workDir, "recall-backfill", full.roots, true),
      );
      const sDec = decisionTimes(scale.store, [
        ...sNamed.map((n) => ({ ...n })),
        ...everydayPrompts(scale.store),
      ]);
      metrics.push(
        ...deadlineFigures(
          "scale",
          `scale store (${(fileSize(scale.store) / 1e6).toFixed(0)} MB)`,
          sIdle,
          sBusy,
        ),
      );
      metrics.push(
        metric(
          "scale_decision_p99",
          "in-process decision p99, scale store",
          round(pct(sDec, 0.99), 2),
          "ms",
          {
            op: "<=",
            value: 15,
          },
          `p50 ${round(pct(sDec, 0.5), 2)} ms over ${sDec.length} decisions`,
        ),
      );
      data.scale = { idle: sIdle, busy: sBusy };
    } catch (e) {
      notes.push(`scale store skipped: ${(e as Error).message.split("\n")[0]}`);
    }
    notes.push(
      "Plan replay: each session whose first typed input is a plan or a long prompt naming a file, or whose slash command then read a plan file, is replayed with that text as the prompt against only what was archived before it, the session itself live; a turn is a hit when the session then touched what it matched on.",
      `Held-out replay: each project's main sessions are split by time at ${
        HELD_OUT_SHARES.join(", ")
      } of them; every prompt of a later session that names a path or identifier (typed, or the plan file a slash command read; never a compaction's continuation summary) is decided against the store of the project's earlier sessions alone, and the splits are pooled. A handed-over turn is a hit when the later session goes on to touch a path or identifier it matched on; a prompt is recallable when a name it holds (any, not only the 8 looked up; no everyday word) was touched later and carried by an earlier session's quotable turn.`,
      "The synthetic corpus holds 28 copies of the same genuine sessions under other ids, so a prompt there also finds the earlier copies of its own session: its precision flatters; the real figures are the honest ones.",
      "Deadline misses count only hooks that found turns: those that handed them over plus those whose stderr said they ran past 50 ms.",
    );
    return { metrics, notes, data };
  },
};
