/**
 * Recall precision: every typed prompt of the real corpus (`--real DIR`, default the shared
 * bench corpus) replayed in time order against what was archived before it, judged by the
 * label rule; then prompts that name only things never archived, which must get nothing. The
 * same replay runs over the synthetic corpus's store for comparison, and the lookup's own time
 * (in process) is reported per prompt.
 */
import { join } from "node:path";
import { type BenchContext, type Metric, metric, type Section } from "../lib/context.ts";
import { realRoot } from "../lib/real.ts";
import { type RecallReplay, replayRecall } from "../lib/recall_replay.ts";
import { round } from "../lib/stats.ts";
import { ingest, scenario } from "../lib/terminus.ts";

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

/** The genuine shared corpus's sets, each a root holding projects/. */
function sharedRoots(): string[] {
  const base = "/work/shared/corpus";
  const out: string[] = [];
  try {
    for (const e of Deno.readDirSync(base)) {
      try {
        if (e.isDirectory && Deno.statSync(join(base, e.name, "projects")).isDirectory) {
          out.push(join(base, e.name));
        }
      } catch { /* not a set */ }
    }
  } catch { /* no shared corpus here */ }
  return out.sort();
}

export const section: Section = {
  name: "recall",
  title: "Recall precision (typed prompts replayed in time order)",
  async run(ctx: BenchContext) {
    const metrics: Metric[] = [];
    const notes: string[] = [];
    const data: Record<string, unknown> = {};
    const real = await realRoot(ctx.outDir, ctx.opts.real);
    if (real.root) {
      const s = scenario(ctx.outDir, "recall-real", [real.root], true);
      ctx.log(`recall: archiving the real corpus at ${real.root}`);
      await ingest(ctx.repo, s);
      const r = replayRecall(s.store, 20);
      metrics.push(...figures("real", "real", r));
      data.real = { ...r, lookupMs: undefined, namedMs: undefined };
    } else notes.push(`real corpus skipped: ${real.why}`);
    const shared = sharedRoots();
    if (shared.length) {
      const s = scenario(ctx.outDir, "recall-shared", shared, true);
      ctx.log("recall: archiving the genuine shared corpus (one copy)");
      await ingest(ctx.repo, s);
      const r = replayRecall(s.store, 20);
      metrics.push(...figures("shared", "shared corpus", r));
      data.shared = { ...r, lookupMs: undefined, namedMs: undefined };
    }
    const synth = scenario(
      ctx.workDir,
      "recall-synthetic",
      ctx.corpus.parts.map((p) => p.root),
      true,
    );
    ctx.log("recall: archiving the synthetic corpus");
    await ingest(ctx.repo, synth);
    const r = replayRecall(synth.store, 20);
    metrics.push(...figures("synthetic", "synthetic", r));
    data.synthetic = { ...r, lookupMs: undefined, namedMs: undefined };
    notes.push(
      "The synthetic corpus holds 28 copies of the same genuine sessions under other ids, so a prompt there also finds the earlier copies of its own session: its precision flatters; the real and shared figures are the honest ones.",
      "A hit is the label rule of `terminus stats`: a later turn of the same session touches the path or identifier the handed-over turn matched on.",
      `Stores: ${join(ctx.outDir, "recall-real")} and ${join(ctx.workDir, "recall-synthetic")}.`,
    );
    return { metrics, notes, data };
  },
};
