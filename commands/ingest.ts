/** terminus ingest [<path.jsonl>]: one archive pass, over the whole tree or one file. */
import { resolve } from "../core/posix.ts";
import type { Command, CommandHelp } from "./types.ts";
import { outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";
import { resolveAll } from "../core/resolve.ts";
import { runWholePass } from "../core/ingest/whole.ts";
import { runPass } from "../core/ingest/pass.ts";
import { ingestRefusal } from "../core/transcript/admit.ts";

const help: CommandHelp = {
  options: [],
  examples: ["terminus ingest", "terminus ingest ~/.claude/projects/-home-me-app/<uuid>.jsonl"],
};

export const command: Command = {
  name: "ingest",
  help,
  usage: "terminus ingest [<path.jsonl>]",
  options: {},
  positionals: true,
  json: false,
  empty: () => null,
  async run(ctx, args) {
    if (args.positionals.length > 1) {
      throw new UsageError("ingest takes at most one transcript path");
    }
    const r = resolveAll(ctx);
    try {
      if (Deno.statSync(r.dataDir).isFile) {
        throw new Error(`the data directory ${r.dataDir} is a file, so no pass can run`);
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    const only = args.positionals[0] !== undefined
      ? resolve(ctx.cwd, args.positionals[0])
      : undefined;
    if (only) {
      const refusal = ingestRefusal(only, r.roots);
      if (refusal) return outcome("ingest", null, { ok: false, exitCode: 1, reason: refusal });
    }
    const res = only
      ? await runPass({
        cfg: r.cfg,
        dataDir: r.dataDir,
        roots: r.roots,
        only,
        now: ctx.now(),
        progress: ctx.progress,
      })
      : await runWholePass({
        cfg: r.cfg,
        dataDir: r.dataDir,
        roots: r.roots,
        now: ctx.now(),
        progress: ctx.progress,
      });
    if (!res.ran) {
      return outcome("ingest", null, {
        counts: [
          "another pass holds the ingest lock; it reads the same files, so this one did nothing",
        ],
      });
    }
    const run = res.run!;
    if (res.lost) {
      return outcome("ingest", null, {
        ok: false,
        exitCode: 1,
        reason: res.lost,
        warnings: res.problems.filter((p) => p !== res.lost),
      });
    }
    const counts = [
      `${run.filesSeen} file(s) walked, ${run.filesCommitted} committed, ${run.filesFailed} failed, ${run.bytesRead} byte(s) read, ${run.turnsAdded} turn(s) added in ${run.durationMs} ms`,
    ];
    if (res.excludedOnly) {
      return outcome("ingest", null, {
        counts: [`${only} is inside an excluded project; it was not read`],
      });
    }
    return outcome("ingest", null, {
      ok: !res.onlyFailed,
      exitCode: res.onlyFailed ? 1 : 0,
      reason: res.onlyFailed
        ? `${only} could not be archived; terminus status names the error`
        : null,
      warnings: res.problems,
      counts,
    });
  },
};
