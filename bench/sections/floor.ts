/** The runtime floor: `deno run` of an empty module with the CLI's own flags. */
import { join } from "node:path";
import { PERMISSION_FLAGS } from "../../core/context.ts";
import { type BenchContext, metric, type Section } from "../lib/context.ts";
import { runTimed } from "../lib/proc.ts";
import { round, summarise, type Summary } from "../lib/stats.ts";

export interface Floor {
  summary: Summary;
  samples: number[];
}

/** Median wall time of `deno run <flags> empty.ts`, measured once per benchmark run. */
export function measureFloor(ctx: BenchContext): Promise<Floor> {
  return ctx.once("floor", async () => {
    // Inside the checkout, so the same deno.json is discovered as for mod.ts.
    const empty = join(ctx.outDir, "empty.ts");
    Deno.writeTextFileSync(empty, "");
    const args = ["run", ...PERMISSION_FLAGS, empty];
    await runTimed(Deno.execPath(), args, { cwd: ctx.repo }); // warm the module cache
    const samples: number[] = [];
    for (let i = 0; i < ctx.opts.floorRuns; i++) {
      const r = await runTimed(Deno.execPath(), args, { cwd: ctx.repo });
      if (r.code !== 0) throw new Error(`deno run empty.ts exited ${r.code}: ${r.stderr}`);
      samples.push(r.wallMs);
    }
    ctx.log(`runtime floor: ${samples.length} runs`);
    return { summary: summarise(samples), samples };
  });
}

export const section: Section = {
  name: "floor",
  title: "Runtime floor",
  async run(ctx) {
    const f = await measureFloor(ctx);
    return {
      metrics: [
        metric(
          "floor_ms",
          "deno run of an empty .ts (median)",
          round(f.summary.median),
          "ms",
          undefined,
          `n=${f.summary.n}, min ${round(f.summary.min)}, p90 ${round(f.summary.p90)}, max ${
            round(f.summary.max)
          } ms`,
        ),
      ],
      notes: [],
      data: { samplesMs: f.samples.map((x) => round(x, 2)), summary: f.summary },
    };
  },
};
