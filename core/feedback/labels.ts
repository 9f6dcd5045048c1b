/**
 * Labels, written once when a decision's session has closed: hit, false positive, miss,
 * wasted budget. A hit is a proxy: a later turn of the same session touched the very path or
 * identifier the injected turn was matched on (by the same structural rule recall uses).
 */
import type { Db } from "../store/db.ts";
import { entitiesOfTurn, type LabelRow, laterEntities } from "../store/decisions.ts";
import { entityMatches, matchTurn } from "../recall/structural.ts";

const REFERENCED_KINDS = new Set(["path", "symbol", "error", "command"]);
const RECALL_TOOL = /(recall_search|recall_get)$/;

export interface Judged {
  injected: { id: number; chars: number }[];
  spellings: string[];
  sessionId: string;
  at: string;
}

/** The labels one decision earns, given what it injected (shared by the pass and replay). */
export function judge(db: Db, decisionId: number, d: Judged): LabelRow[] {
  const later = laterEntities(db, d.sessionId, d.at);
  const touched = later.filter((e) => REFERENCED_KINDS.has(e.kind));
  const labels: LabelRow[] = [];
  const carried = new Set<string>();
  let hit = false;
  for (const t of d.injected) {
    const ents = entitiesOfTurn(db, t.id);
    for (const e of ents) carried.add(e.value);
    const on = matchTurn(ents, d.spellings).spellings;
    const isHit = touched.some((e) => on.some((s) => entityMatches(e, s)));
    hit ||= isHit;
    labels.push({
      decisionId,
      turnId: t.id,
      label: isHit ? "hit" : "false positive",
      chars: t.chars,
    });
  }
  // A miss: the model went to recall for something the prompt named that nothing injected carried.
  const recallTurns = new Set(
    later.filter((e) => e.kind === "tool" && RECALL_TOOL.test(e.value)).map((e) => e.turnId),
  );
  const asked = new Set(d.spellings);
  const missed = later.some((e) =>
    recallTurns.has(e.turnId) && e.kind !== "tool" && asked.has(e.value) && !carried.has(e.value)
  );
  if (missed) labels.push({ decisionId, turnId: null, label: "miss", chars: 0 });
  const chars = d.injected.reduce((n, t) => n + t.chars, 0);
  if (chars > 0 && !hit) labels.push({ decisionId, turnId: null, label: "wasted budget", chars });
  return labels;
}
