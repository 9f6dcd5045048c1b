/**
 * Backfill: a full `terminus ingest` over the whole corpus into an empty store, timed as a
 * process (wall clock, start-up included), repeated on a fresh store each time. Also the peak
 * RSS of that process, and the populated store the later sections read.
 */
import { join } from "node:path";
import { type BenchContext, metric, type Section } from "../lib/context.ts";
import { ingest, type Scenario, scenario } from "../lib/terminus.ts";
import { MB, median, MiB, round } from "../lib/stats.ts";
import { BACKFILL_SEMI_SPACE_MIB } from "../../core/constants.ts";

export interface BackfillRun {
  wallMs: number;
  mbPerS: number;
  passMs: number | null;
  passMbPerS: number | null;
  maxRssBytes: number | null;
  cpuSeconds: number | null;
  bytesRead: number | null;
  filesCommitted: number | null;
  turnsAdded: number | null;
}

export interface Backfill {
  bytes: number;
  files: number;
  runs: BackfillRun[];
  medianWallMs: number;
  medianMbPerS: number;
  medianPassMbPerS: number | null;
  medianRssBytes: number | null;
}

/** One fresh-store ingest over `roots`, under /usr/bin/time when it is there. */
export async function backfillOnce(
  ctx: BenchContext,
  name: string,
  roots: string[],
  bytes: number,
): Promise<{ run: BackfillRun; scn: Scenario }> {
  const scn = scenario(ctx.workDir, name, roots, true);
  // the pass a backfill's worker runs, with its young generation (`backfill --work` prints no counts)
  const r = await ingest(ctx.repo, scn, {
    timeDir: ctx.gnuTime ? scn.dir : undefined,
    semiSpaceMib: BACKFILL_SEMI_SPACE_MIB,
  });
  const run: BackfillRun = {
    wallMs: r.wallMs,
    mbPerS: bytes / MB / (r.wallMs / 1000),
    passMs: r.pass?.durationMs ?? null,
    passMbPerS: r.pass ? bytes / MB / (r.pass.durationMs / 1000) : null,
    maxRssBytes: r.maxRssBytes,
    cpuSeconds: r.cpuSeconds,
    bytesRead: r.pass?.bytesRead ?? null,
    filesCommitted: r.pass?.filesCommitted ?? null,
    turnsAdded: r.pass?.turnsAdded ?? null,
  };
  return { run, scn };
}

function summarise(bytes: number, files: number, runs: BackfillRun[]): Backfill {
  const pass = runs.map((r) => r.passMbPerS).filter((x): x is number => x !== null);
  const rss = runs.map((r) => r.maxRssBytes).filter((x): x is number => x !== null);
  return {
    bytes,
    files,
    runs,
    medianWallMs: median(runs.map((r) => r.wallMs)),
    medianMbPerS: median(runs.map((r) => r.mbPerS)),
    medianPassMbPerS: pass.length ? median(pass) : null,
    medianRssBytes: rss.length ? median(rss) : null,
  };
}

const READY = "ready.json";

/** The full-corpus backfill runs, measured once per benchmark run. */
export function backfillRuns(ctx: BenchContext): Promise<Backfill> {
  return ctx.once("backfill", async () => {
    const c = ctx.corpus;
    const roots = c.parts.map((p) => p.root);
    const runs: BackfillRun[] = [];
    for (let i = 0; i < ctx.opts.backfillRuns; i++) {
      const { run, scn } = await backfillOnce(ctx, "full", roots, c.bytes);
      runs.push(run);
      ctx.log(
        `backfill ${i + 1}/${ctx.opts.backfillRuns}: ${(run.wallMs / 1000).toFixed(1)} s, ${
          run.mbPerS.toFixed(1)
        } MB/s, peak RSS ${run.maxRssBytes ? (run.maxRssBytes / MiB).toFixed(0) + " MiB" : "?"}`,
      );
      if (i === ctx.opts.backfillRuns - 1) {
        markReady(ctx, scn);
        void ctx.once("full-store", () => Promise.resolve({ scn, reused: false }));
      }
    }
    return summarise(c.bytes, c.files, runs);
  });
}

function readyMarker(ctx: BenchContext): string {
  return JSON.stringify({
    corpus: ctx.corpus.dir,
    build: ctx.corpus.buildId,
    bytes: ctx.corpus.bytes,
    files: ctx.corpus.files,
    // what a store looks like is the code's doing too (an earlier build's merge left free pages
    // in the file, and a later build reused its store and printed its size)
    code: codeState(ctx.repo),
  });
}

/** The checkout's commit and git's hash of its uncommitted changes to the program. */
function codeState(repo: string): string {
  const script =
    "git rev-parse HEAD; git diff HEAD -- core commands mod.ts io.ts | git hash-object --stdin";
  const out = new Deno.Command("sh", { args: ["-c", script], cwd: repo, stderr: "null" })
    .outputSync();
  return new TextDecoder().decode(out.stdout).trim().replace(/\n/g, " ");
}

function markReady(ctx: BenchContext, scn: Scenario): void {
  Deno.writeTextFileSync(join(scn.dir, READY), readyMarker(ctx));
}

/**
 * A store holding the whole corpus: the last backfill run's, or one left by an earlier
 * benchmark run over the same corpus, or (failing both) one made now by an untimed ingest.
 */
export function fullStore(ctx: BenchContext): Promise<{ scn: Scenario; reused: boolean }> {
  return ctx.once("full-store", async () => {
    const roots = ctx.corpus.parts.map((p) => p.root);
    const scn = scenario(ctx.workDir, "full", roots, false);
    try {
      if (Deno.readTextFileSync(join(scn.dir, READY)) === readyMarker(ctx)) {
        return { scn, reused: true };
      }
    } catch { /* not ready */ }
    ctx.log("no populated store yet: one untimed ingest over the corpus");
    const fresh = scenario(ctx.workDir, "full", roots, true);
    await ingest(ctx.repo, fresh);
    markReady(ctx, fresh);
    return { scn: fresh, reused: false };
  });
}

export const section: Section = {
  name: "backfill",
  title: "Backfill (full ingest into an empty store)",
  async run(ctx) {
    const b = await backfillRuns(ctx);
    const notes = [
      `Wall time of the whole \`terminus ingest\` process (start-up included) over ${
        (b.bytes / MB).toFixed(1)
      } MB in ${b.files} files; fresh store each run; median of ${b.runs.length}.`,
      "The archive-only rate (blocks without the index) is the `archive` section's.",
    ];
    const short = b.runs.filter((r) => r.bytesRead !== null && r.bytesRead !== b.bytes);
    if (short.length) {
      notes.push(
        `The pass reported ${
          short[0].bytesRead
        } bytes read, not ${b.bytes}: a file without a final newline?`,
      );
    }
    const rss = b.medianRssBytes;
    return {
      metrics: [
        metric(
          "backfill_full_mb_s",
          "backfill, archive + index (process wall)",
          round(b.medianMbPerS, 2),
          "MB/s",
          { op: ">=", value: 45 },
          `runs: ${b.runs.map((r) => r.mbPerS.toFixed(2)).join(", ")} MB/s; median wall ${
            (b.medianWallMs / 1000).toFixed(1)
          } s`,
        ),
        metric(
          "backfill_full_pass_mb_s",
          "backfill, archive + index (in-pass time)",
          b.medianPassMbPerS === null ? null : round(b.medianPassMbPerS, 2),
          "MB/s",
          undefined,
          "the pass's own duration_ms (no process start, module load or store open)",
        ),
        metric(
          "backfill_peak_rss_mb",
          "peak RSS of the backfill process",
          rss === null ? null : round(rss / MiB, 1),
          "MiB",
          { op: "<=", value: 300 },
          rss === null
            ? "no /usr/bin/time"
            : `"Maximum resident set size" from /usr/bin/time -v; runs: ${
              b.runs.map((r) => ((r.maxRssBytes ?? 0) / MiB).toFixed(0)).join(", ")
            } MiB (the 300 target is read as MiB, the stricter reading)`,
        ),
      ],
      notes,
      data: {
        bytes: b.bytes,
        files: b.files,
        runs: b.runs.map((r) => ({
          ...r,
          wallMs: round(r.wallMs, 1),
          mbPerS: round(r.mbPerS, 3),
          passMbPerS: r.passMbPerS === null ? null : round(r.passMbPerS, 3),
        })),
      },
    };
  },
};
