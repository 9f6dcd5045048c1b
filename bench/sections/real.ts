/**
 * Backfill on real transcripts (`--real DIR`, default the shared bench corpus): a fresh-store
 * `terminus ingest` timed as a process, its peak RSS, and the store's size against the
 * transcripts. Figures on copies of the small corpus ran about 2x optimistic; these are the
 * ones to quote beside them.
 */
import { join } from "node:path";
import { type BenchContext, type Metric, metric, type Section } from "../lib/context.ts";
import { realRoot } from "../lib/real.ts";
import { fileSize } from "../lib/store.ts";
import { median, MiB, round } from "../lib/stats.ts";
import { backfillOnce } from "./backfill.ts";

export function transcriptBytes(root: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(dir)) {
      const p = join(dir, e.name);
      if (e.isDirectory) walk(p);
      else if (e.isFile && e.name.endsWith(".jsonl")) {
        bytes += Deno.statSync(p).size;
        files++;
      }
    }
  };
  walk(join(root, "projects"));
  return { bytes, files };
}

export const section: Section = {
  name: "real",
  title: "Backfill on real transcripts",
  async run(ctx: BenchContext) {
    const real = await realRoot(ctx.outDir, ctx.opts.real);
    if (!real.root) return { metrics: [], notes: [`skipped: ${real.why}`] };
    const { bytes, files } = transcriptBytes(real.root);
    const runs = [];
    let store = 0;
    for (let i = 0; i < ctx.opts.backfillRuns; i++) {
      ctx.log(`real: backfill ${i + 1}/${ctx.opts.backfillRuns} over ${files} transcripts`);
      const { run, scn } = await backfillOnce(ctx, "real-backfill", [real.root], bytes);
      runs.push(run);
      store = fileSize(scn.store) + fileSize(`${scn.store}-wal`);
    }
    const rss = runs.map((r) => r.maxRssBytes).filter((x): x is number => x !== null);
    const metrics: Metric[] = [
      metric(
        "real_backfill_mb_s",
        "full pass (archive + index), process wall",
        round(median(runs.map((r) => r.mbPerS)), 1),
        "MB/s",
        { op: ">=", value: 45 },
        `${
          (bytes / 1e6).toFixed(1)
        } MB in ${files} transcripts; median of ${runs.length} fresh-store run(s), walls ${
          runs.map((r) => Math.round(r.wallMs)).join(", ")
        } ms`,
      ),
      metric(
        "real_backfill_rss_mib",
        "peak RSS of that pass",
        rss.length ? round(median(rss) / MiB, 0) : null,
        "MiB",
        { op: "<=", value: 300 },
      ),
      metric(
        "real_store_ratio",
        "store file / transcript bytes",
        round(store / bytes, 3),
        "",
        { op: "<=", value: 0.5 },
        `${(store / 1e6).toFixed(1)} MB`,
      ),
    ];
    return { metrics, notes: [`corpus: ${real.root}`] };
  },
};
