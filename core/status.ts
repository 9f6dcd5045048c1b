/**
 * `status`'s use case: the store, its counts and the last archive pass, read without a lock.
 * The command renders what this returns.
 */
import type { Context } from "./context.ts";
import { openStore } from "./open.ts";
import { rootProblems } from "./roots.ts";
import { runningProgress } from "./ingest/backfill.ts";
import { type Counts, counts, fileSizes } from "./store/inspect.ts";
import { IN_FLIGHT_NOTE, lastRun, type RunRow } from "./store/runs.ts";
import { allSessionStates } from "./store/archive.ts";

export { IN_FLIGHT_NOTE };

export type StatusReport =
  | {
    /** No store: `ok` false when none could ever be kept where the data directory is. */
    store: null;
    ok: boolean;
    reason: string;
    warnings: string[];
  }
  | {
    store: string;
    sizeBytes: number;
    counts: Counts;
    excluded: string[];
    run: RunRow | null;
    /** How far a pass still in flight has got; null when the last one finished. */
    progress: string | null;
    warnings: string[];
  };

/** Why no pass could ever create a store in `dir`, or null when it is absent or a folder. */
function unusableDataDir(dir: string): string | null {
  try {
    if (Deno.statSync(dir).isDirectory) return null;
    return `the data directory ${dir} is not a folder, so no store can be kept there`;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    return `the data directory ${dir} cannot be read: ${(e as Error).message}`;
  }
}

export async function readStatus(ctx: Context): Promise<StatusReport> {
  const o = await openStore(ctx);
  // configured roots are used as written: one that is not there is walked for nothing
  const roots = o.r.cfg.roots.length > 0 ? rootProblems(o.r.roots) : [];
  if (!o.db) {
    const unusable = unusableDataDir(o.r.dataDir);
    return {
      store: null,
      ok: unusable === null,
      reason: unusable ?? o.reason,
      warnings: roots,
    };
  }
  try {
    const run = lastRun(o.db);
    return {
      store: o.r.store,
      sizeBytes: fileSizes(o.r.store).total,
      counts: counts(o.db),
      excluded: o.r.cfg.excludeListed,
      run,
      progress: run?.inFlight ? runningProgress(o.r, allSessionStates(o.db), run) : null,
      warnings: [...roots, ...o.warnings],
    };
  } finally {
    o.db.close();
  }
}
