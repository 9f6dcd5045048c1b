/**
 * `observations`' use cases: the observations visible from where the command was typed, and
 * regenerating them from the archive under the ingest lock.
 */
import type { Context } from "../context.ts";
import { openStore } from "../open.ts";
import { readInScope } from "../open.ts";
import { listObservations, type ObservationRow } from "../store/observations_list.ts";
import { LOCK_HELD, lockHeldMessage, withLockedStore } from "../store/lock.ts";
import { initReader } from "../store/codec.ts";
import { regenerate, type RegenerateResult } from "./step.ts";
import { titleFactsOf } from "../store/sessions_sql.ts";
import { chooseTitle } from "../transcript/titles.ts";
import { egress } from "../egress.ts";

export interface VisibleObservations {
  rows: ObservationRow[];
  /** Each observed session's title as `sessions` shows it (through the egress filter). */
  titles: Map<number, string | null>;
  /** Why there are none when they could not be asked (no store, no project here); else null. */
  reason: string | null;
  warnings: string[];
}

export async function visibleObservations(
  ctx: Context,
  project: string | undefined,
): Promise<VisibleObservations> {
  const got = await readInScope(ctx, project, (db, vis, r) => {
    const rows = listObservations(db, vis);
    const filter = egress(r.cfg.privacy.redactRecall);
    const facts = titleFactsOf(db, rows.map((o) => o.sessionNo));
    const titles = new Map<number, string | null>();
    for (const o of rows) {
      const f = facts.get(o.sessionNo);
      const t = f ? chooseTitle(f).title : null;
      titles.set(o.sessionNo, t === null ? null : filter(t));
    }
    return { rows, titles };
  }, { readsBlocks: true });
  return {
    rows: got.value?.rows ?? [],
    titles: got.value?.titles ?? new Map(),
    reason: got.reason,
    warnings: got.warnings,
  };
}

export type Regenerated =
  /** Nothing regenerated: no store (`ok`), or a pass holds the lock (not `ok`). */
  | { result: null; ok: boolean; reason: string }
  | { result: RegenerateResult };

/** Recomputes the observations of sessions whose last turn is at or after `since`. */
export async function regenerateObservations(
  ctx: Context,
  since: string | null,
): Promise<Regenerated> {
  const ro = await openStore(ctx, { readsBlocks: true });
  if (!ro.db) return { result: null, ok: true, reason: ro.reason };
  ro.db.close();
  const r = ro.r;
  await initReader(); // regenerating reads blocks back and writes no block
  const done = await withLockedStore(
    r.dataDir,
    r.store,
    (db) => regenerate(db, { project: null, exclude: r.cfg.exclude }, since, ctx.progress),
  );
  if (done === LOCK_HELD) return { result: null, ok: false, reason: lockHeldMessage(r.dataDir) };
  return { result: done };
}
