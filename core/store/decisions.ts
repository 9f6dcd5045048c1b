/** The injection log's SQL: decisions drained from the queue, their labels, and the counts. */
import type { Db } from "./db.ts";

export interface DecisionRow {
  id: number;
  sessionId: string | null;
  project: string | null;
  at: string | null;
  compacted: number | null;
  doc: string;
}

export function insertDecision(
  db: Db,
  queueName: string,
  d: {
    sessionId: string | null;
    project: string | null;
    at: string | null;
    compacted: boolean | null;
    injectedTurns: number;
    charsInjected: number;
    doc: string;
  },
): void {
  db.prepare(
    `INSERT OR IGNORE INTO decisions (session_id, project, at, compacted, injected_turns,
       chars_injected, queue_name, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    d.sessionId,
    d.project,
    d.at,
    d.compacted === null ? null : d.compacted ? 1 : 0,
    d.injectedTurns,
    d.charsInjected,
    queueName,
    d.doc,
  );
}

/**
 * Decisions not yet labelled whose Claude Code session is archived and wholly closed. Read by
 * the pass, after it made its indexes: the partial index holds each waiting decision's session
 * id, so a decision whose session no pass archives costs an index entry, not a read of its row
 * (each row holds its whole decision document, about a page).
 */
export function unlabelledClosed(db: Db): DecisionRow[] {
  return db.prepare(
    `SELECT d.id, d.session_id AS sessionId, d.project, d.at, d.compacted, d.doc
     FROM decisions d INDEXED BY decisions_unlabelled_session
     WHERE d.labelled = 0 AND d.session_id IS NOT NULL
       AND EXISTS (SELECT 1 FROM session_meta m WHERE m.session_id = d.session_id)
       AND NOT EXISTS (SELECT 1 FROM session_meta m WHERE m.session_id = d.session_id AND m.is_final = 0)
     ORDER BY d.id`,
  ).all() as unknown as DecisionRow[];
}

/** Logged decisions not labelled yet: their session is still open (or not archived yet). */
export function unlabelledCount(db: Db): number {
  return (db.prepare("SELECT count(*) AS n FROM decisions WHERE labelled = 0").get() as {
    n: number;
  }).n;
}

/** Labelled decisions: the set replay re-scores. */
export function labelledDecisions(db: Db): DecisionRow[] {
  return db.prepare(
    `SELECT id, session_id AS sessionId, project, at, compacted, doc FROM decisions
     WHERE labelled = 1 ORDER BY id`,
  ).all() as unknown as DecisionRow[];
}

export interface LabelRow {
  decisionId: number;
  turnId: number | null;
  label: string;
  chars: number;
}

export function writeLabels(db: Db, decisionId: number, labels: LabelRow[]): void {
  const ins = db.prepare(
    "INSERT INTO labels (decision_id, turn_id, label, chars) VALUES (?, ?, ?, ?)",
  );
  for (const l of labels) ins.run(decisionId, l.turnId, l.label, l.chars);
  db.prepare("UPDATE decisions SET labelled = 1 WHERE id = ?").run(decisionId);
}

export function labelsOf(db: Db): Map<number, LabelRow[]> {
  const rows = db.prepare(
    "SELECT decision_id AS decisionId, turn_id AS turnId, label, chars FROM labels ORDER BY rowid",
  ).all() as unknown as LabelRow[];
  const out = new Map<number, LabelRow[]>();
  for (const r of rows) {
    let l = out.get(r.decisionId);
    if (!l) out.set(r.decisionId, l = []);
    l.push(r);
  }
  return out;
}

/** Entities of the given kinds on the turns of a Claude Code session after an instant. */
export function laterEntities(
  db: Db,
  sessionId: string,
  afterTs: string,
): { turnId: number; kind: string; value: string }[] {
  return db.prepare(
    `SELECT e.turn_id AS turnId, e.kind, e.value FROM entities e
     JOIN turns t ON t.id = e.turn_id JOIN session_meta m ON m.session_no = t.session_no
     WHERE m.session_id = ? AND t.ts IS NOT NULL AND t.ts > ?`,
  ).all(sessionId, afterTs) as unknown as { turnId: number; kind: string; value: string }[];
}

export function entitiesOfTurn(db: Db, turnId: number): { kind: string; value: string }[] {
  return db.prepare("SELECT kind, value FROM entities WHERE turn_id = ?").all(
    turnId,
  ) as unknown as {
    kind: string;
    value: string;
  }[];
}

export interface StatsCounts {
  decisions: number;
  compacted_decisions: number;
  ordinary_decisions: number;
  injected_turns: number;
  chars_injected: number;
  hits: number;
  false_positives: number;
  misses: number;
  wasted_budget: number;
  chars_referenced: number;
}

export function statsCounts(db: Db): StatsCounts {
  const d = db.prepare(
    `SELECT count(*) AS decisions,
       COALESCE(sum(compacted = 1), 0) AS compacted_decisions,
       COALESCE(sum(compacted = 0), 0) AS ordinary_decisions,
       COALESCE(sum(injected_turns), 0) AS injected_turns,
       COALESCE(sum(chars_injected), 0) AS chars_injected FROM decisions`,
  ).get() as Record<string, number>;
  const l = db.prepare(
    `SELECT COALESCE(sum(label = 'hit'), 0) AS hits,
       COALESCE(sum(label = 'false positive'), 0) AS false_positives,
       COALESCE(sum(label = 'miss'), 0) AS misses,
       COALESCE(sum(label = 'wasted budget'), 0) AS wasted_budget,
       COALESCE(sum(CASE WHEN label = 'hit' THEN chars ELSE 0 END), 0) AS chars_referenced
     FROM labels`,
  ).get() as Record<string, number>;
  return {
    decisions: d.decisions,
    compacted_decisions: d.compacted_decisions,
    ordinary_decisions: d.ordinary_decisions,
    injected_turns: d.injected_turns,
    chars_injected: d.chars_injected,
    hits: l.hits,
    false_positives: l.false_positives,
    misses: l.misses,
    wasted_budget: l.wasted_budget,
    chars_referenced: l.chars_referenced,
  };
}

/**
 * Of the last `n` logged prompts, how many ran past the hook's deadline (a doc from before the
 * `late` field says so in its note).
 */
export function lateOfLast(db: Db, n: number): { prompts: number; late: number } {
  const r = db.prepare(
    `SELECT count(*) AS prompts,
       coalesce(sum(json_extract(doc, '$.late') = 1
         OR (json_extract(doc, '$.late') IS NULL AND json_extract(doc, '$.note') LIKE 'past the %')), 0)
         AS late
     FROM (SELECT doc FROM decisions ORDER BY id DESC LIMIT ?)`,
  ).get(n) as { prompts: number; late: number };
  return { prompts: Number(r.prompts), late: Number(r.late) };
}

/** The decision documents logged after decision `sinceId` (0: all), oldest first. */
export function decisionDocs(db: Db, sinceId = 0): string[] {
  return (db.prepare("SELECT doc FROM decisions WHERE id > ? ORDER BY id").all(sinceId) as {
    doc: string;
  }[]).map((r) => r.doc);
}

/** The newest decision's id (0: none), and how many there are. */
export function decisionTally(db: Db): { maxId: number; count: number } {
  return db.prepare("SELECT COALESCE(max(id), 0) AS maxId, count(*) AS count FROM decisions")
    .get() as { maxId: number; count: number };
}

/** Forgets every decision and label (a bench's own hooks, before it measures a settled store). */
export function forgetDecisions(db: Db): number {
  const n = decisionTally(db).count;
  if (n > 0) {
    db.exec("BEGIN IMMEDIATE; DELETE FROM labels; DELETE FROM decisions; COMMIT");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  return n;
}
