/**
 * Replay: re-score the logged prompts of closed sessions under other thresholds, against the
 * index as it stood (turn ids up to each decision's logged watermark), and diff the labels.
 * Read-only: the same selection and labelling functions the hook and the pass use.
 */
import type { Db } from "../store/db.ts";
import { type Config, isExcluded } from "../config.ts";
import { labelledDecisions, type LabelRow, labelsOf, laterEntities } from "../store/decisions.ts";
import type { Visibility } from "../store/visibility.ts";
import { boundaries, sessionNosForId } from "../store/inject_sql.ts";
import type { DecisionDoc } from "../inject/queue.ts";
import { type PromptDecision, recall } from "../inject/prompt.ts";
import { structuralLookup } from "../recall/lookup.ts";
import { entityMatches, isEverydayName } from "../recall/structural.ts";
import type { Thresholds } from "../inject/thresholds.ts";
import { judge } from "./labels.ts";

export const LABEL_ORDER = ["hit", "false positive", "miss", "wasted budget"] as const;

export interface ReplayReport {
  decisions: number;
  labels: { label: string; old: number; new: number }[];
  changed: number[];
}

const KEPT_SUPPRESSIONS = new Set(["already handed over in this session", "quoted by the brief"]);

function tally(labels: { label: string }[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const l of labels) m.set(l.label, (m.get(l.label) ?? 0) + 1);
  return m;
}

function signature(labels: { label: string; turnId: number | null }[]): string {
  return labels.map((l) => `${l.label}:${l.turnId ?? "-"}`).sort().join(",");
}

export function replay(db: Db, cfg: Config, t: Thresholds): ReplayReport {
  const rows = labelledDecisions(db);
  const stored = labelsOf(db);
  const oldCounts = new Map<string, number>();
  const newCounts = new Map<string, number>();
  const changed: number[] = [];
  for (const r of rows) {
    const d = JSON.parse(r.doc) as DecisionDoc;
    const before = stored.get(r.id) ?? [];
    for (const [k, v] of tally(before)) oldCounts.set(k, (oldCounts.get(k) ?? 0) + v);
    let injected: { id: number; chars: number }[] = [];
    // every name logged: the lookup keeps the rarest `max_candidates` of them
    const names = d.spellings ?? [];
    if (r.project && !isExcluded(cfg, r.project) && names.length && t.max_turns > 0) {
      const suppress = new Map<number, string>();
      for (const s of d.suppressed ?? []) {
        if (KEPT_SUPPRESSIONS.has(s.why)) suppress.set(s.id, s.why);
      }
      let owedKnown: number | null = null;
      if (d.compacted && r.sessionId) {
        owedKnown = Math.max(0, boundaries(db, sessionNosForId(db, r.sessionId)).length - 1);
      }
      const res = recall({
        db,
        vis: { project: r.project, exclude: cfg.exclude },
        sessionId: r.sessionId,
        spellings: names,
        thresholds: t,
        suppress,
        owedKnown,
        promptChars: cfg.injection.promptChars,
        filter: (s) => s,
        maxId: d.watermark ?? undefined,
      });
      injected = res.injected;
    }
    const after = r.sessionId
      ? judge(db, r.id, { injected, spellings: names, sessionId: r.sessionId, at: r.at ?? "" })
      : [];
    for (const [k, v] of tally(after)) newCounts.set(k, (newCounts.get(k) ?? 0) + v);
    if (signature(before) !== signature(after)) changed.push(r.id);
  }
  return {
    decisions: rows.length,
    labels: LABEL_ORDER.map((label) => ({
      label,
      old: oldCounts.get(label) ?? 0,
      new: newCounts.get(label) ?? 0,
    })),
    changed,
  };
}

/** The labels a prompt's decision earns in its session, by the pass's rule (no decision row). */
export function judgeDecision(
  db: Db,
  d: PromptDecision,
  sessionId: string,
  at: string,
): LabelRow[] {
  return judge(db, 0, { injected: d.injected, spellings: d.spellings, sessionId, at });
}

export interface RecallableArgs {
  names: string[];
  vis: Visibility;
  cwd: string | null;
  /** Only turns archived before this time may have carried the name. */
  before: string;
  /** The prompt's session, its number, and when the prompt was typed. */
  sessionId: string;
  sessionNo: number;
  at: string;
}

/**
 * Whether a prompt had something to recall: a name it holds (never an everyday word) that its
 * session went on to touch and that a turn of another session already carried. Looked up with
 * no cap and no commonness rule, so a replay's "recallable" does not grade the rules by
 * themselves.
 */
export function recallable(db: Db, a: RecallableArgs): boolean {
  const later = laterEntities(db, a.sessionId, a.at);
  const touched = a.names.filter((s) =>
    !isEverydayName(s) && later.some((e) => entityMatches(e, s))
  );
  return touched.some((s) =>
    structuralLookup(db, {
      spellings: [s],
      vis: a.vis,
      cwd: a.cwd,
      beforeTs: a.before,
      limit: 1000,
      cap: 100_000,
      ignoreCommon: true,
    }).hits.some((h) => h.session_no !== a.sessionNo)
  );
}
