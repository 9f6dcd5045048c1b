/**
 * Replay: re-score the logged prompts of closed sessions under other thresholds, against the
 * index as it stood (turn ids up to each decision's logged watermark), and diff the labels.
 * Read-only: the same selection and labelling functions the hook and the pass use.
 */
import type { Db } from "../store/db.ts";
import { type Config, isExcluded } from "../config.ts";
import { labelledDecisions, labelsOf } from "../store/decisions.ts";
import { boundaries, sessionNosForId } from "../store/inject_sql.ts";
import type { DecisionDoc } from "../inject/queue.ts";
import { recall } from "../inject/prompt.ts";
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
