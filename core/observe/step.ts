/** The pass's observe step, and `observations regenerate`: both read the archived stream. */
import type { ProgressFactory } from "../progress.ts";
import { type Db, transaction } from "../store/db.ts";
import { streamLines } from "../store/lines.ts";
import {
  factsOf,
  type KeptFacts,
  rewriteMechanical,
  unobservedClosed,
  writeObservation,
} from "../store/observations_sql.ts";
import { listObservations } from "../store/observations_list.ts";
import { type Visibility } from "../store/visibility.ts";
import { LINE_CAP_BYTES, OBSERVE_PER_PASS } from "../constants.ts";
import { observe } from "./mechanical.ts";
import { initReader } from "../store/codec.ts";

/** A session a pass archived whole was observed as it was read: no blocks read back. */
function isReady(
  t: { evicted: boolean; streamLen: number },
  r: KeptFacts | null,
): r is KeptFacts {
  return r !== null && !t.evicted && r.streamLen === t.streamLen;
}

export interface ObserveStep {
  /** For the run row. */
  notes: string[];
  /** Closed sessions left for a later pass. */
  left: number;
}

/**
 * Observes up to 100 closed sessions. Each observation commits on its own, so a pass killed
 * partway keeps what it observed and the next one goes on from there instead of starting
 * over. A session whose facts were kept when it was archived (and still hold) is observed from
 * them; the others are read back from their blocks.
 */
export async function observeClosed(db: Db, now: Date): Promise<ObserveStep> {
  const targets = unobservedClosed(db);
  const notes: string[] = [];
  if (targets.length === 0) return { notes, left: 0 };
  const batch = targets.slice(0, OBSERVE_PER_PASS);
  const kept = new Map(batch.map((t) => [t.sessionNo, factsOf(db, t.sessionNo)]));
  // the decoder only for a session whose stream must be read back
  if (batch.some((t) => !isReady(t, kept.get(t.sessionNo)!))) await initReader();
  let done = 0;
  for (const t of batch) {
    // one transaction each; a write that fails stops the step (the pass records it), and the
    // observations before it are kept
    const observed = transaction(db, () => {
      let m: string;
      try {
        const r = kept.get(t.sessionNo)!;
        if (isReady(t, r)) {
          m = JSON.stringify({ ...JSON.parse(r.mechanical), branch: t.branch });
        } else {
          const lines = t.evicted ? [] : streamLines(db, t.sessionNo, LINE_CAP_BYTES);
          m = JSON.stringify(observe(lines, t.branch));
        }
      } catch (e) {
        notes.push(`${t.sessionKey}: could not be observed: ${(e as Error).message}`);
        return false;
      }
      writeObservation(db, t.sessionNo, now.toISOString(), m);
      return true;
    });
    if (observed) done++;
  }
  if (done > 0) notes.push(`${done} closed session(s) observed`);
  const left = Math.max(0, targets.length - OBSERVE_PER_PASS);
  if (left > 0) notes.push(`${left} finalized session(s) left for the next pass to observe`);
  return { notes, left };
}

export interface RegenerateResult {
  selected: number;
  regenerated: number;
  notes: string[];
}

/** Recomputes the selected observations in one transaction: a kill leaves them all as they were. */
export function regenerate(
  db: Db,
  vis: Visibility,
  since: string | null,
  progress?: ProgressFactory,
): RegenerateResult {
  return transaction(db, () => regenerateAll(db, vis, since, progress));
}

function regenerateAll(
  db: Db,
  vis: Visibility,
  since: string | null,
  progress?: ProgressFactory,
): RegenerateResult {
  const rows = listObservations(db, vis, since);
  const out: RegenerateResult = { selected: rows.length, regenerated: 0, notes: [] };
  const shown = progress?.("regenerating", rows.length, "sessions");
  for (const r of rows) {
    shown?.add(1);
    if (r.evicted) {
      out.notes.push(`${r.sessionKey}: its text was evicted, so it cannot be recomputed`);
      continue;
    }
    try {
      const m = observe(streamLines(db, r.sessionNo, LINE_CAP_BYTES), r.branch);
      rewriteMechanical(db, r.sessionNo, JSON.stringify(m));
      out.regenerated++;
    } catch (e) {
      out.notes.push(`${r.sessionKey}: could not be recomputed: ${(e as Error).message}`);
    }
  }
  shown?.finish();
  return out;
}
