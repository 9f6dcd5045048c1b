/** The pass's retention step: evaluate once, then evict and delete what the plan names. */
import type { Config } from "../config.ts";
import { type Db, transaction } from "../store/db.ts";
import { deleteSession, evictSession } from "../store/retention_sql.ts";
import { evaluateRetention } from "./evaluate.ts";

export interface RetentionStep {
  notes: string[];
  errors: string[];
}

export function applyRetention(db: Db, cfg: Config, now: Date): RetentionStep {
  const out: RetentionStep = { notes: [], errors: [] };
  const plan = evaluateRetention(db, cfg, now);
  if (!plan.selecting) return out;
  // one transaction per session, so one that fails costs only itself
  const each = (no: number, key: string, verb: string, act: () => number | void): boolean => {
    try {
      transaction(db, act);
      return true;
    } catch (e) {
      out.errors.push(`${key}: retention could not ${verb} session ${no}: ${(e as Error).message}`);
      return false;
    }
  };
  let evicted = 0;
  for (const s of plan.evict) {
    if (each(s.sessionNo, s.sessionKey, "evict", () => evictSession(db, s.sessionNo))) evicted++;
  }
  let deleted = 0;
  let prompts = 0;
  for (const s of plan.delete) {
    const ok = each(s.sessionNo, s.sessionKey, "delete", () => {
      prompts += deleteSession(db, s.sessionNo);
    });
    if (ok) deleted++;
  }
  if (evicted > 0) out.notes.push(`retention evicted ${evicted} session(s)`);
  if (deleted > 0) {
    out.notes.push(
      `retention deleted ${deleted} session(s) and ${prompts} logged prompt(s) with them`,
    );
  }
  if (plan.over > 0) {
    out.notes.push(
      `${plan.over} session(s) over the per-pass retention limit, left for the next pass`,
    );
  }
  if (plan.excluded > 0) {
    out.notes.push(`retention passed over ${plan.excluded} session(s) in excluded projects`);
  }
  return out;
}
