/**
 * Memory scaling: the peak RSS of a backfill over half the corpus (root `a` alone) beside the
 * full corpus's, to show whether memory stays flat as the corpus grows.
 */
import { metric, type Section } from "../lib/context.ts";
import { MB, median, MiB, round } from "../lib/stats.ts";
import { backfillOnce, type BackfillRun, backfillRuns } from "./backfill.ts";

export const section: Section = {
  name: "rss",
  title: "Peak RSS against corpus size",
  async run(ctx) {
    if (!ctx.gnuTime) {
      return {
        metrics: [
          metric(
            "rss_half_mb",
            "peak RSS, half corpus",
            null,
            "MiB",
            undefined,
            "no /usr/bin/time",
          ),
        ],
        notes: [],
      };
    }
    const full = await backfillRuns(ctx);
    const half = ctx.corpus.parts[0];
    const runs: BackfillRun[] = [];
    for (let i = 0; i < ctx.opts.halfRuns; i++) {
      const { run } = await backfillOnce(ctx, "half", [half.root], half.bytes);
      runs.push(run);
      ctx.log(
        `half-corpus backfill ${i + 1}/${ctx.opts.halfRuns}: ${
          run.mbPerS.toFixed(1)
        } MB/s, peak RSS ${((run.maxRssBytes ?? 0) / MiB).toFixed(0)} MiB`,
      );
    }
    const halfRss = median(runs.map((r) => r.maxRssBytes ?? NaN));
    const fullRss = full.medianRssBytes ?? NaN;
    const growth = fullRss / halfRss;
    const perMb = (fullRss - halfRss) / ((full.bytes - half.bytes) / MB);
    return {
      metrics: [
        metric(
          "rss_half_mb",
          `peak RSS, half corpus (${(half.bytes / MB).toFixed(0)} MB)`,
          round(halfRss / MiB, 1),
          "MiB",
          undefined,
          `median of ${runs.length}; ${median(runs.map((r) => r.mbPerS)).toFixed(2)} MB/s`,
        ),
        metric(
          "rss_full_mb",
          `peak RSS, full corpus (${(full.bytes / MB).toFixed(0)} MB)`,
          round(fullRss / MiB, 1),
          "MiB",
          undefined,
          "the backfill section's median, checked against its target there",
        ),
        metric(
          "rss_growth",
          "full / half peak RSS",
          round(growth, 2),
          "x",
          undefined,
          `${round(perMb / 1024, 1)} KiB more per MB of transcripts (flat would be ~1.0x)`,
        ),
      ],
      notes: [],
      data: { half: runs, halfBytes: half.bytes, fullBytes: full.bytes },
    };
  },
};
