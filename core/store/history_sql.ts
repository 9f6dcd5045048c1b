/**
 * The SQL of imported prompt history (`terminus import-history`): the person's prompts from
 * Claude Code's history.jsonl, kind `history_prompt`, each with its time and project, and a
 * search index of their own. They live apart from turns on purpose: every path that hands
 * text to Claude (hooks, MCP) reads turns only, so history can never reach it.
 *
 * The tables are made by the first import (CREATE IF NOT EXISTS), so a store made before them
 * needs no other migration; reads check they exist. They are not derived: reindex leaves them.
 */
import { cached, type Db, transaction } from "./db.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";
import { HISTORY_DDL } from "./schema.ts";

/**
 * Whether the history index keeps counts and positions. One made before it did
 * (`detail=column`) gives BM25 0 for every prompt and refuses phrases, until an import remakes it.
 */
export function historyIndexKeepsPositions(db: Db): boolean {
  const r = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'history_fts'").get() as
    | { sql: string | null }
    | undefined;
  return !!r?.sql && !/detail\s*=\s*['"]?(column|none)/i.test(r.sql);
}

/**
 * Makes the history index anew from the prompts kept beside it (the index is contentless, so
 * its rows come from `history_prompts`, each as `body` gives it). Returns how many.
 */
export function rebuildHistoryIndex(
  db: Db,
  body: (display: string, pasted: string | null) => string,
): number {
  return transaction(db, () => {
    db.exec("DROP TABLE IF EXISTS history_fts");
    db.exec(HISTORY_DDL);
    const ins = db.prepare("INSERT INTO history_fts (rowid, body) VALUES (?, ?)");
    let n = 0;
    for (
      const r of db.prepare("SELECT id, display, pasted FROM history_prompts")
        .iterate() as Iterable<
          { id: number; display: string; pasted: string | null }
        >
    ) {
      ins.run(r.id, body(r.display, r.pasted));
      n++;
    }
    return n;
  });
}

export interface HistoryRow {
  at: string;
  cwd: string | null;
  project: string | null;
  sessionId: string | null;
  display: string;
  /** pastedContents as found, JSON, or null. */
  pasted: string | null;
  /** What the index holds: the prompt and any pasted text. */
  body: string;
}

export function hasHistoryTables(db: Db): boolean {
  return !!db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'history_prompts'",
  ).get();
}

export function ensureHistoryTables(db: Db): void {
  db.exec(HISTORY_DDL);
}

/** Whether this prompt is already imported (same time, folder and text). */
export function historyHas(db: Db, r: Pick<HistoryRow, "at" | "cwd" | "display">): boolean {
  if (!hasHistoryTables(db)) return false;
  return !!db.prepare(
    "SELECT 1 FROM history_prompts WHERE at = ? AND cwd IS ? AND display = ?",
  ).get(r.at, r.cwd, r.display);
}

/** Inserts in one transaction; returns how many were new. */
export function insertHistory(db: Db, rows: HistoryRow[]): number {
  const ins = db.prepare(
    `INSERT OR IGNORE INTO history_prompts (at, cwd, project, session_id, display, pasted)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const fts = db.prepare("INSERT INTO history_fts (rowid, body) VALUES (?, ?)");
  let added = 0;
  transaction(db, () => {
    for (const r of rows) {
      const res = ins.run(r.at, r.cwd, r.project, r.sessionId, r.display, r.pasted);
      if (Number(res.changes) === 0) continue;
      fts.run(Number(res.lastInsertRowid), r.body);
      added++;
    }
  });
  return added;
}

/** Whether imported history holds a prompt filed under this project (the folder can be scoped). */
export function historyHolds(db: Db, project: string): boolean {
  return !!cached(db, "SELECT 1 FROM history_prompts WHERE project = ? LIMIT 1").get(project);
}

export interface HistoryHitRow {
  id: number;
  at: string;
  project: string | null;
  display: string;
  pasted: string | null;
  score: number;
}

/** Visible history prompts matching an FTS5 expression, best first. */
export function searchHistory(
  db: Db,
  match: string,
  vis: Visibility,
  f: { since: string | null; until: string | null; limit: number },
): HistoryHitRow[] {
  if (!hasHistoryTables(db)) return [];
  const w = visibleWhere(vis);
  const where = [w.sql];
  const params: (string | number)[] = [match, ...w.params];
  if (f.since) {
    where.push("m.at >= ?");
    params.push(f.since);
  }
  if (f.until) {
    where.push("m.at <= ?");
    params.push(f.until);
  }
  params.push(f.limit);
  return db.prepare(
    `SELECT m.id, m.at, m.project, m.display, m.pasted, bm25(history_fts) AS score
     FROM history_fts JOIN history_prompts m ON m.id = history_fts.rowid
     WHERE history_fts MATCH ? AND ${where.join(" AND ")}
     ORDER BY score, m.at DESC LIMIT ?`,
  ).all(...params) as unknown as HistoryHitRow[];
}

export function historyCount(db: Db): number {
  if (!hasHistoryTables(db)) return 0;
  return (db.prepare("SELECT count(*) AS n FROM history_prompts").get() as { n: number }).n;
}
