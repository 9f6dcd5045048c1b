/**
 * Archive-only throughput: the blocks without the index, measured in process with the pass's
 * own store functions. Each transcript is read, its lines parsed (the pass needs their session
 * facts) and appended with `appendSession` — zstd, BLAKE3, the block rows, session_meta and the
 * watermark in one transaction per file — but with no derived rows. The session is keyed by the
 * file's path under its root: a unique name is all the write side needs here, so the pass's
 * own key rule (and its subagent lineage) stays in core/transcript.
 */
import { basename, join, relative } from "node:path";
import { metric, type Section } from "../lib/context.ts";
import { round } from "../lib/stats.ts";
import { openWrite } from "../../core/store/db.ts";
import { appendSession } from "../../core/store/archive.ts";
import { initCodec } from "../../core/store/codec.ts";

const MB = 1_000_000;
const RUNS = 3;

/** Each transcript under a root, with its path under the root as its session key. */
function transcripts(root: string): { path: string; key: string }[] {
  const out: { path: string; key: string }[] = [];
  const walk = (d: string) => {
    for (const e of [...Deno.readDirSync(d)].sort((a, b) => a.name < b.name ? -1 : 1)) {
      const p = join(d, e.name);
      if (e.isDirectory) walk(p);
      else if (e.name.endsWith(".jsonl")) out.push({ path: p, key: relative(root, p) });
    }
  };
  walk(join(root, "projects"));
  return out;
}

const decoder = new TextDecoder();

export const section: Section = {
  name: "archive",
  title: "Backfill, archive only (blocks without the index, in process)",
  async run(ctx) {
    await initCodec();
    const files = ctx.corpus.parts.flatMap((p) => transcripts(p.root));
    const rates: number[] = [];
    let bytes = 0;
    for (let run = 0; run < RUNS; run++) {
      const dir = await Deno.makeTempDir({ prefix: "terminus-bench-archive-" });
      const { db } = openWrite(join(dir, "terminus.db"));
      bytes = 0;
      const t0 = performance.now();
      for (const f of files) {
        const data = Deno.readFileSync(f.path);
        const end = data.lastIndexOf(0x0a) + 1;
        let cwd: string | null = null;
        for (let s = 0; s < end;) {
          let nl = data.indexOf(0x0a, s);
          if (nl < 0 || nl >= end) nl = end - 1;
          // parsed as the pass parses every line; a torn one is nothing
          let rec: { cwd?: unknown } | null = null;
          try {
            rec = JSON.parse(decoder.decode(data.subarray(s, nl)));
          } catch { /* not JSON */ }
          if (!cwd && typeof rec?.cwd === "string") cwd = rec.cwd;
          s = nl + 1;
        }
        appendSession(db, {
          sessionKey: f.key,
          stream: data.subarray(0, end),
          offset: end,
          meta: {
            sessionId: basename(f.key, ".jsonl"),
            transcriptPath: f.path,
            firstTurnAt: null,
            lastTurnAt: null,
            cwd,
            project: cwd,
            projectPreWorktree: null,
            branch: null,
            parentSessionKey: null,
            agentMeta: null,
            continuesFrom: null,
            firstParentUuid: null,
            captureMode: "full",
          },
          derived: [],
        });
        bytes += end;
      }
      const secs = (performance.now() - t0) / 1000;
      db.close();
      await Deno.remove(dir, { recursive: true });
      rates.push(bytes / MB / secs);
      ctx.log(`archive only ${run + 1}/${RUNS}: ${(bytes / MB / secs).toFixed(1)} MB/s`);
    }
    const median = [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)];
    return {
      metrics: [
        metric(
          "backfill_archive_only_mb_s",
          "backfill, archive only (in process)",
          round(median, 2),
          "MB/s",
          { op: ">=", value: 90 },
          `runs: ${rates.map((r) => r.toFixed(1)).join(", ")} MB/s over ${
            (bytes / MB).toFixed(1)
          } MB in ${files.length} files`,
        ),
      ],
      notes: [
        "Read, parse, zstd level 3, BLAKE3 and the block/session/watermark rows per file in one transaction; no turns, FTS, entities or paths. Process start-up and the store open are not included.",
      ],
      data: { rates, bytes, files: files.length },
    };
  },
};
