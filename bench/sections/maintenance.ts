/**
 * Looking after the store: `terminus export` throughput, the cost a snapshot adds to a pass,
 * and `terminus compact` after retention has evicted most of the archive. Runs on a store of
 * its own (a fresh ingest of the corpus), since compact and retention change the file the
 * other sections read.
 */
import { join } from "node:path";
import { type BenchContext, metric, type Section } from "../lib/context.ts";
import { cliArgs, ingest, type Scenario, scenario, scenarioEnv } from "../lib/terminus.ts";
import { runTimed } from "../lib/proc.ts";
import { fileSize } from "../lib/store.ts";
import { MB, median, MiB, round } from "../lib/stats.ts";

const RUNS = 3;

async function cli(ctx: BenchContext, s: Scenario, args: string[]) {
  const r = await runTimed(Deno.execPath(), cliArgs(ctx.repo, args), {
    cwd: ctx.repo,
    env: scenarioEnv(s),
  });
  if (r.code !== 0) throw new Error(`terminus ${args.join(" ")} exited ${r.code}:\n${r.stderr}`);
  return { wallMs: r.wallMs, data: args.includes("--json") ? JSON.parse(r.stdout).data : null };
}

function removeAll(path: string): void {
  try {
    Deno.removeSync(path, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}

export const section: Section = {
  name: "maintenance",
  title: "Export, snapshot and compact",
  async run(ctx) {
    const roots = ctx.corpus.parts.map((p) => p.root);
    const scn = scenario(ctx.workDir, "maintenance", roots, true);
    ctx.log("maintenance: one untimed ingest into a store of its own");
    await ingest(ctx.repo, scn);
    const storeBytes = fileSize(scn.store);

    // export: the whole archive out, into a fresh folder each run
    const exports: { wallMs: number; bytes: number; sessions: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      const dest = join(scn.dir, `export-${i}`);
      removeAll(dest);
      const r = await cli(ctx, scn, ["export", dest, "--json"]);
      exports.push({ wallMs: r.wallMs, bytes: r.data.bytes, sessions: r.data.sessions });
      removeAll(dest);
    }
    const exportMbS = median(exports.map((e) => e.bytes / MB / (e.wallMs / 1000)));

    // snapshot: a no-op pass with one due, against a no-op pass with none due
    const snapDir = join(scn.dataDir, "snapshots");
    const due: number[] = [];
    const notDue: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      removeAll(snapDir);
      due.push((await ingest(ctx.repo, scn)).wallMs);
      notDue.push((await ingest(ctx.repo, scn)).wallMs);
    }
    const snapshotMs = median(due) - median(notDue);
    const snapshotBytes = [...Deno.readDirSync(snapDir)]
      .reduce((n, e) => n + fileSize(join(snapDir, e.name)), 0);

    // compact: evict what a one-day rule reaches (100 per pass), then give the pages back
    Deno.writeTextFileSync(
      join(scn.configDir, "terminus.toml"),
      `roots = ${JSON.stringify(roots)}\n[retention]\naction = "evict"\nage_days = 1\n` +
        `[snapshot]\nenabled = false\n`,
    );
    for (let i = 0; i < 50; i++) {
      const plan = (await cli(ctx, scn, ["retention", "--json"])).data;
      if (plan.evict.length === 0) break;
      await ingest(ctx.repo, scn);
    }
    const c = await cli(ctx, scn, ["compact", "--json"]);
    const again = await cli(ctx, scn, ["compact", "--json"]);

    return {
      metrics: [
        metric(
          "export_mb_s",
          "export (process wall)",
          round(exportMbS, 1),
          "MB/s",
          undefined,
          `${exports[0].sessions} sessions, ${round(exports[0].bytes / MB, 1)} MB; runs: ${
            exports.map((e) => round(e.wallMs)).join(", ")
          } ms`,
        ),
        metric(
          "snapshot_ms",
          "snapshot added to a pass",
          round(snapshotMs),
          "ms",
          undefined,
          `pass with a snapshot due ${round(median(due))} ms - without ${
            round(median(notDue))
          } ms; store ${round(storeBytes / MiB, 1)} MiB, snapshot ${
            round(snapshotBytes / MiB, 1)
          } MiB`,
        ),
        metric(
          "compact_ms",
          "compact after evicting (process wall)",
          round(c.wallMs),
          "ms",
          undefined,
          `reclaimed ${round(c.data.reclaimed_bytes / MiB, 1)} MiB of ${
            round(c.data.before.total / MiB, 1)
          } MiB; a second compact (nothing to do) ${round(again.wallMs)} ms`,
        ),
      ],
      notes: [
        "Process wall times, start-up included; snapshot time is the difference of two no-op pass medians.",
        "Snapshots use SQLite's online backup and compact uses incremental_vacuum: node:sqlite refuses VACUUM and VACUUM INTO without --allow-all.",
      ],
      data: { exports, due, notDue, storeBytes, snapshotBytes, compact: c.data },
    };
  },
};
