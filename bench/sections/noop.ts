/**
 * The no-op pass: `terminus ingest` again over a store that already holds every file, so
 * each file is stat'ed, found unchanged, and skipped. Reported as time beyond the runtime
 * floor, since a hook pays the floor whatever Terminus does.
 */
import { metric, type Section } from "../lib/context.ts";
import { ingest } from "../lib/terminus.ts";
import { median, round, summarise } from "../lib/stats.ts";
import { fullStore } from "./backfill.ts";
import { measureFloor } from "./floor.ts";

export const section: Section = {
  name: "noop",
  title: "No-op pass (nothing new)",
  async run(ctx) {
    const floor = await measureFloor(ctx);
    const { scn, reused } = await fullStore(ctx);
    await ingest(ctx.repo, scn); // warm: the page cache and the first pass after a backfill
    const walls: number[] = [];
    const passes: number[] = [];
    let files = 0;
    for (let i = 0; i < ctx.opts.noopRuns; i++) {
      const r = await ingest(ctx.repo, scn);
      if (r.pass && r.pass.filesCommitted !== 0) {
        throw new Error(`a no-op pass committed ${r.pass.filesCommitted} file(s)`);
      }
      walls.push(r.wallMs);
      if (r.pass) {
        passes.push(r.pass.durationMs);
        files = r.pass.filesSeen;
      }
    }
    ctx.log(`no-op pass: ${walls.length} runs`);
    const w = summarise(walls);
    const beyond = w.median - floor.summary.median;
    const notes = [
      `${files} files walked per pass; median of ${w.n} runs, floor median of ${floor.summary.n}.`,
    ];
    if (reused) notes.push("The store was left by an earlier benchmark run over the same corpus.");
    return {
      metrics: [
        metric(
          "noop_beyond_floor_ms",
          "no-op pass, beyond the runtime floor",
          round(beyond),
          "ms",
          { op: "<=", value: 50 },
          `process median ${round(w.median)} ms (min ${round(w.min)}, p90 ${
            round(w.p90)
          }) - floor ${round(floor.summary.median)} ms`,
        ),
        metric(
          "noop_pass_ms",
          "no-op pass, in-pass duration",
          passes.length ? median(passes) : null,
          "ms",
          undefined,
          "the pass's own duration_ms; the rest is module load, config, lock and store open",
        ),
      ],
      notes,
      data: {
        wallMs: walls.map((x) => round(x, 2)),
        passMs: passes,
        floorMedianMs: round(floor.summary.median, 2),
      },
    };
  },
};
