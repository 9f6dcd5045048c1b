/**
 * The whole-tree pass: the archive pass, then the steps that follow closing, in order —
 * draining and labelling the injection log,
 * observing closed sessions, applying the [retention] rule, and taking a snapshot when due.
 */
import { type PassInput, type PassResult, runPass } from "./pass.ts";
import { BACKFILL_MAX_PASSES } from "../constants.ts";
import { observeClosed } from "../observe/step.ts";
import { drainQueue, labelClosed } from "../feedback/drain.ts";
import { applyRetention } from "../retention/apply.ts";
import { pruneSnapshots, snapshotDue, takeSnapshot } from "../store/snapshot.ts";

/**
 * The backfill's worker: whole-tree passes one after another until no closed session waits to
 * be observed, so the hooks' passes inherit no backlog. Each pass keeps the cap of
 * OBSERVE_PER_PASS; the facts taken while archiving are kept in the store (observation_facts),
 * so the later ones read no blocks back for the sessions they cover. It stops when another process
 * holds the lock or a pass leaves as many waiting as the one before it (nothing it can do).
 * Returns the first pass's result, with every pass's problems.
 */
export async function runBackfillPasses(
  input: Omit<PassInput, "only" | "afterClose">,
): Promise<PassResult> {
  const first = await runWholePass(input);
  let last = first;
  for (let i = 1; i < BACKFILL_MAX_PASSES && last.ran && last.backlog > 0; i++) {
    const next = await runWholePass({ ...input, progress: undefined });
    for (const p of next.problems) if (!first.problems.includes(p)) first.problems.push(p);
    if (next.ran && next.backlog >= last.backlog) break;
    last = next;
  }
  return { ...first, backlog: last.backlog };
}

export function runWholePass(input: Omit<PassInput, "only" | "afterClose">): Promise<PassResult> {
  return runPass({
    ...input,
    async afterClose(db, c) {
      try {
        c.notes.push(...drainQueue(db, input.cfg, input.dataDir));
        c.notes.push(...labelClosed(db));
      } catch (e) {
        c.errors.push(`the injection log could not be updated: ${(e as Error).message}`);
      }
      // each step below is caught on its own: one that fails is named and the next still runs
      try {
        const o = await observeClosed(db, c.now);
        c.notes.push(...o.notes);
        c.backlog = o.left;
      } catch (e) {
        c.errors.push(`closed sessions could not be observed: ${(e as Error).message}`);
      }
      try {
        const r = applyRetention(db, input.cfg, c.now);
        c.notes.push(...r.notes);
        c.errors.push(...r.errors);
      } catch (e) {
        c.errors.push(`retention could not run: ${(e as Error).message}`);
      }
      const snap = input.cfg.snapshot;
      if (!snap.enabled) return;
      try {
        if (!snapshotDue(input.dataDir, snap.intervalHours, c.now)) return;
        c.notes.push(`snapshot taken: ${await takeSnapshot(db, input.dataDir, c.now)}`);
        const pruned = pruneSnapshots(input.dataDir, snap.keep);
        if (pruned > 0) c.notes.push(`${pruned} snapshot(s) past keep = ${snap.keep} deleted`);
      } catch (e) {
        c.errors.push(`the snapshot could not be taken: ${(e as Error).message}`);
      }
    },
  });
}
