/**
 * terminus backfill: count what is not archived yet, estimate the time, start the whole-tree
 * pass in a detached process and return. `--work` is that process; nobody types it.
 */
import type { Command, CommandHelp } from "./types.ts";
import { humanBytes, outcome, row } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";
import { resolveAll } from "../core/resolve.ts";
import { runBackfillPasses } from "../core/ingest/whole.ts";
import { humanEstimate, sizeBackfill, startBackfill } from "../core/ingest/backfill.ts";
import { BACKFILL_NICENESS } from "../core/constants.ts";
import { lowerOwnPriority } from "../core/spawn.ts";

const help: CommandHelp = {
  options: [],
  internal: ["work", "first"],
  examples: ["terminus backfill"],
};

export const command: Command = {
  name: "backfill",
  help,
  usage: "terminus backfill",
  options: { work: { type: "boolean" }, first: { type: "boolean" } },
  positionals: false,
  json: false,
  empty: () => null,
  async run(ctx, args) {
    if (args.positionals.length > 0) throw new UsageError("backfill takes no arguments");
    const r = resolveAll(ctx);
    try {
      if (!Deno.statSync(r.dataDir).isDirectory) {
        throw new Error(`the data directory ${r.dataDir} is not a folder, so no pass can run`);
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }

    if (args.values.work === true) {
      // the detached worker: its stdio is null, so what it returns is only its exit code; it
      // goes on pass after pass until every closed session is observed. At the lowest priority
      // (before its derive workers start, so they inherit it): on two busy cores it must not
      // take them from the hooks' lookups. Install's first backfill (--first) keeps the normal
      // priority it was started at, so a whole history is archived in minutes, not hours.
      if (args.values.first !== true) await lowerOwnPriority(BACKFILL_NICENESS);
      const res = await runBackfillPasses({
        cfg: r.cfg,
        dataDir: r.dataDir,
        roots: r.roots,
        progress: ctx.progress,
      });
      return outcome("backfill", null, { warnings: res.problems });
    }

    let size;
    try {
      size = sizeBackfill(r);
    } catch (e) {
      return outcome("backfill", null, {
        ok: false,
        reason: `the backfill could not be sized (${(e as Error).message}); nothing was started`,
      });
    }
    const warnings = size.problems.map((p) => `problem: ${p}`);
    const table = [
      row("transcripts", size.transcripts),
      row(
        "not archived",
        `${humanBytes(size.bytes)}${
          size.pendingFiles ? ` in ${size.pendingFiles} transcript(s)` : ""
        }`,
      ),
      row(
        "estimate",
        `${humanEstimate(size.seconds)} at ${
          Number((size.rate / 1_000_000).toFixed(1))
        } MB/s, the rate ${
          size.rateFrom === "last pass" ? "the last pass measured" : "the bench measured"
        }`,
      ),
    ].join("\n") + "\n";
    if (size.transcripts === 0) {
      return outcome("backfill", null, {
        human: [table],
        warnings,
        counts: [`no transcripts under ${r.roots.join(", ")}; nothing was started`],
      });
    }
    if (size.bytes === 0) {
      return outcome("backfill", null, {
        human: [table],
        warnings,
        counts: [
          "nothing to archive: every transcript is archived to its end; nothing was started",
        ],
      });
    }
    try {
      startBackfill(ctx.self);
    } catch (e) {
      return outcome("backfill", null, {
        ok: false,
        human: [table],
        warnings,
        reason: `the backfill could not be started: ${(e as Error).message}`,
      });
    }
    return outcome("backfill", null, {
      human: [table],
      warnings,
      counts: [
        "archiving in a detached process; terminus status shows it under last run once it finishes",
      ],
    });
  },
};
