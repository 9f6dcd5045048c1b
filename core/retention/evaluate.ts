/**
 * The one retention evaluation: the pass acts on what it returns and `terminus retention`
 * reports it, so the two cannot disagree about a rule measured from `now`.
 */
import { type Config, isExcluded, type RetentionRule } from "../config.ts";
import { DAY_MS, RETENTION_PER_PASS } from "../constants.ts";
import { covers } from "../paths.ts";
import type { Db } from "../store/db.ts";
import { type ClosedSession, closedSessions } from "../store/retention_sql.ts";

export interface RetentionPlan {
  /** The instant every age was measured from. */
  cutoff: string;
  /** Whether any rule (global or per project) has both keys set. */
  selecting: boolean;
  /** Oldest first, at most RETENTION_PER_PASS each. */
  evict: ClosedSession[];
  delete: ClosedSession[];
  /** Eligible sessions the per-pass cap left for a later pass. */
  over: number;
  /** Due sessions in excluded projects, passed over and not named. */
  excluded: number;
  /** Sessions due for delete whose transcript is still on disk. */
  waiting: number;
}

/** A rule acts only with both keys set: an action other than keep and an age above 0. */
export function ruleActs(rule: RetentionRule): boolean {
  return rule.action !== "keep" && rule.ageDays > 0;
}

/** The longest [retention.project] path covering the project wins, whole; else the global rule. */
export function ruleFor(cfg: Config, project: string | null): RetentionRule {
  let best: { path: string; rule: RetentionRule } | null = null;
  if (project) {
    for (const [path, rule] of cfg.retentionProjects) {
      if (covers(path, project) && (!best || path.length > best.path.length)) best = { path, rule };
    }
  }
  return best ? best.rule : cfg.retention;
}

function transcriptGone(path: string | null): boolean {
  // no recorded path: nothing shows the file is gone, so the session is kept
  if (!path) return false;
  try {
    Deno.lstatSync(path);
    return false;
  } catch (e) {
    return e instanceof Deno.errors.NotFound;
  }
}

export function evaluateRetention(db: Db, cfg: Config, now: Date): RetentionPlan {
  const plan: RetentionPlan = {
    cutoff: now.toISOString(),
    selecting: ruleActs(cfg.retention) || [...cfg.retentionProjects.values()].some(ruleActs),
    evict: [],
    delete: [],
    over: 0,
    excluded: 0,
    waiting: 0,
  };
  if (!plan.selecting) return plan;
  const evict: ClosedSession[] = [];
  const del: ClosedSession[] = [];
  for (const s of closedSessions(db)) {
    const rule = ruleFor(cfg, s.project);
    if (!ruleActs(rule)) continue;
    const last = Date.parse(s.lastTurnAt);
    if (!Number.isFinite(last) || now.getTime() - last < rule.ageDays * DAY_MS) continue;
    if (rule.action === "evict" && s.evicted) continue;
    // exclusion means never read: a due session there is counted, never named or touched
    if (isExcluded(cfg, s.project)) {
      plan.excluded++;
      continue;
    }
    if (rule.action === "evict") {
      evict.push(s);
    } else if (transcriptGone(s.transcriptPath)) {
      del.push(s);
    } else {
      plan.waiting++;
    }
  }
  plan.evict = evict.slice(0, RETENTION_PER_PASS);
  plan.delete = del.slice(0, RETENTION_PER_PASS);
  plan.over = evict.length - plan.evict.length + del.length - plan.delete.length;
  return plan;
}
