/**
 * The SQL of a person's handles on sessions: the names and tags set with `terminus sessions`,
 * and the titles a transcript gives itself (custom-title, ai-title, summary records and the
 * first typed prompt). None of these tables is derived: a reindex leaves names and tags alone,
 * eviction keeps them all, and only retention's delete removes them with the session.
 */
// the connection type from its source: db.ts builds its schema from this module
import type { DatabaseSync as Db } from "node:sqlite";
import { settleSummary, type TranscriptTitles } from "../transcript/titles.ts";

/** Whether the store has these tables yet (a store made before them, opened read-only). */
export function hasSessionTables(db: Db): boolean {
  return !!db.prepare(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'session_names'",
  ).get();
}

/**
 * Folds newly archived lines' titles into the session's row: a later record of a kind
 * replaces the earlier one, the first prompt is kept once known.
 */
export function writeTranscriptTitles(db: Db, sessionNo: number, t: TranscriptTitles): void {
  // a summary is the session's own when its leaf is one of its records: this run's, or one
  // archived before it (the run's own turns are written first, in the same transaction)
  const leaf = db.prepare("SELECT 1 FROM turns WHERE uuid = ? AND session_no = ? LIMIT 1");
  settleSummary(t, (uuid) => leaf.get(uuid, sessionNo) !== undefined);
  if (!t.customTitle && !t.aiTitle && !t.summary && !t.firstPrompt) return;
  db.prepare(
    `INSERT INTO session_titles (session_no, custom_title, ai_title, summary, first_prompt)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(session_no) DO UPDATE SET
       custom_title = COALESCE(excluded.custom_title, custom_title),
       ai_title = COALESCE(excluded.ai_title, ai_title),
       summary = COALESCE(excluded.summary, summary),
       first_prompt = COALESCE(first_prompt, excluded.first_prompt)`,
  ).run(sessionNo, t.customTitle, t.aiTitle, t.summary, t.firstPrompt);
}

/** Replaces a session's transcript titles whole (reindex, or filling a store made before them). */
export function replaceTranscriptTitles(db: Db, sessionNo: number, t: TranscriptTitles): void {
  db.prepare("DELETE FROM session_titles WHERE session_no = ?").run(sessionNo);
  writeTranscriptTitles(db, sessionNo, t);
}

/** Sessions whose transcript titles a fill must read: every one that still has blocks. */
export function titleFillTargets(db: Db): { sessionNo: number }[] {
  return db.prepare(
    `SELECT s.session_no AS sessionNo FROM sessions s
       LEFT JOIN session_meta m ON m.session_no = s.session_no
     WHERE COALESCE(m.is_evicted, 0) = 0 ORDER BY s.session_no`,
  ).all() as { sessionNo: number }[];
}

export function titlesFillPending(db: Db): boolean {
  return !!db.prepare("SELECT 1 FROM meta WHERE key = 'titles_fill_pending'").get();
}

export function markTitlesFillPending(db: Db): void {
  db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('titles_fill_pending', '1')").run();
}

export function clearTitlesFillPending(db: Db): void {
  db.prepare("DELETE FROM meta WHERE key = 'titles_fill_pending'").run();
}

export function setName(db: Db, sessionNo: number, name: string, at: string): void {
  db.prepare(
    `INSERT INTO session_names (session_no, name, named_at) VALUES (?, ?, ?)
     ON CONFLICT(session_no) DO UPDATE SET name = excluded.name, named_at = excluded.named_at`,
  ).run(sessionNo, name, at);
}

/** Returns whether there was a name to clear. */
export function clearName(db: Db, sessionNo: number): boolean {
  return Number(
    db.prepare("DELETE FROM session_names WHERE session_no = ?").run(sessionNo)
      .changes,
  ) > 0;
}

/** Adds tags; returns the ones that were new. */
export function addTags(db: Db, sessionNo: number, tags: string[]): string[] {
  const ins = db.prepare("INSERT OR IGNORE INTO session_tags (session_no, tag) VALUES (?, ?)");
  return tags.filter((t) => Number(ins.run(sessionNo, t).changes) > 0);
}

/** Removes tags; returns the ones that were there. */
export function removeTags(db: Db, sessionNo: number, tags: string[]): string[] {
  const del = db.prepare("DELETE FROM session_tags WHERE session_no = ? AND tag = ?");
  return tags.filter((t) => Number(del.run(sessionNo, t).changes) > 0);
}

export function tagsOf(db: Db, sessionNo: number): string[] {
  return (db.prepare("SELECT tag FROM session_tags WHERE session_no = ? ORDER BY tag").all(
    sessionNo,
  ) as { tag: string }[]).map((r) => r.tag);
}

/** Retention's delete: the session's names, tags and titles go with it. */
export function deleteSessionHandles(db: Db, sessionNo: number): void {
  if (!hasSessionTables(db)) return;
  db.prepare("DELETE FROM session_names WHERE session_no = ?").run(sessionNo);
  db.prepare("DELETE FROM session_tags WHERE session_no = ?").run(sessionNo);
  db.prepare("DELETE FROM session_titles WHERE session_no = ?").run(sessionNo);
}

export interface HandleCounts {
  named: number;
  tagged: number;
  tags: number;
}

/** For `usage`: named sessions, tagged sessions, and tag rows, over visible sessions. */
export function handleCounts(db: Db, visibleSql: string, params: string[]): HandleCounts {
  if (!hasSessionTables(db)) return { named: 0, tagged: 0, tags: 0 };
  const from = `FROM sessions s LEFT JOIN session_meta m ON m.session_no = s.session_no
    WHERE ${visibleSql}`;
  const one = (sql: string) => (db.prepare(sql).get(...params) as { n: number }).n;
  return {
    named: one(
      `SELECT count(*) AS n ${from} AND s.session_no IN (SELECT session_no FROM session_names)`,
    ),
    tagged: one(
      `SELECT count(*) AS n ${from} AND s.session_no IN (SELECT session_no FROM session_tags)`,
    ),
    tags: one(
      `SELECT count(*) AS n FROM session_tags g WHERE g.session_no IN (SELECT s.session_no ${from})`,
    ),
  };
}

/** The columns a listing joins in, or NULLs on a store made before these tables. */
export function handleColumns(db: Db): { select: string; join: string } {
  if (!hasSessionTables(db)) {
    return {
      select: `NULL AS name, NULL AS custom_title, NULL AS ai_title, NULL AS summary,
        NULL AS first_prompt, NULL AS tags`,
      join: "",
    };
  }
  return {
    select: `nm.name AS name, ti.custom_title AS custom_title, ti.ai_title AS ai_title,
      ti.summary AS summary, ti.first_prompt AS first_prompt,
      (SELECT group_concat(tag, ' ') FROM (SELECT tag FROM session_tags g
         WHERE g.session_no = s.session_no ORDER BY tag)) AS tags`,
    join: `LEFT JOIN session_names nm ON nm.session_no = s.session_no
      LEFT JOIN session_titles ti ON ti.session_no = s.session_no`,
  };
}

/** A WHERE fragment: the session carries every one of these tags. */
export function tagsWhere(tags: string[]): { sql: string; params: string[] } {
  return {
    sql:
      tags.map(() =>
        "EXISTS (SELECT 1 FROM session_tags g WHERE g.session_no = s.session_no AND g.tag = ?)"
      ).join(" AND ") || "1",
    params: tags,
  };
}

/** Title facts (name and transcript titles) of these sessions, keyed by number. */
export function titleFactsOf(
  db: Db,
  sessionNos: number[],
): Map<
  number,
  {
    name: string | null;
    custom_title: string | null;
    ai_title: string | null;
    summary: string | null;
    first_prompt: string | null;
  }
> {
  const out = new Map();
  if (sessionNos.length === 0 || !hasSessionTables(db)) return out;
  const rows = db.prepare(
    `SELECT s.session_no AS no, nm.name AS name, ti.custom_title AS custom_title,
       ti.ai_title AS ai_title, ti.summary AS summary, ti.first_prompt AS first_prompt
     FROM sessions s LEFT JOIN session_names nm ON nm.session_no = s.session_no
       LEFT JOIN session_titles ti ON ti.session_no = s.session_no
     WHERE s.session_no IN (${sessionNos.map(() => "?").join(",")})`,
  ).all(...sessionNos) as Record<string, unknown>[];
  for (const r of rows) {
    const { no, ...facts } = r;
    out.set(no as number, facts);
  }
  return out;
}

/**
 * Visible sessions any of whose titles holds `word` (case-insensitive): the cheap first cut
 * of a title search; the caller checks every word against the title the session shows.
 * `visible` is a WHERE fragment over session_meta `m` and sessions `s`.
 */
export function sessionsWithTitleWord(
  db: Db,
  visible: { sql: string; params: string[] },
  word: string,
): number[] {
  if (!hasSessionTables(db)) return [];
  const like = `%${word.toLowerCase().replace(/[\\%_]/g, (c) => "\\" + c)}%`;
  // The titles are read first and only their sessions joined, where a join of every session to
  // its name and titles took 1.3-2.5 ms at ~3 GB for none; LIKE folds ASCII case itself. UNION
  // ALL, since IN needs no distinct list: a UNION was merged in session order, which scanned the
  // table (first prompts and all) instead of the titles' own index (pass_indexes.ts).
  return (db.prepare(
    `SELECT s.session_no AS no FROM sessions s
       LEFT JOIN session_meta m ON m.session_no = s.session_no
     WHERE s.session_no IN (
         SELECT session_no FROM session_titles
         WHERE custom_title LIKE ?1 ESCAPE '\\' OR ai_title LIKE ?1 ESCAPE '\\'
           OR summary LIKE ?1 ESCAPE '\\'
         UNION ALL SELECT session_no FROM session_names WHERE name LIKE ?1 ESCAPE '\\')
       AND ${visible.sql}
     ORDER BY s.session_no`,
  ).all(like, ...visible.params) as { no: number }[]).map((r) => r.no);
}

/** The first turn of a session (its lowest turn id), or null when it has none. */
export function firstTurnId(db: Db, sessionNo: number): number | null {
  const r = db.prepare("SELECT min(id) AS id FROM turns WHERE session_no = ?").get(sessionNo) as {
    id: number | null;
  };
  return r.id;
}

/** A session's turn ids by record uuid (`sessions changes` names each change's turn). */
export function turnIdsByUuid(db: Db, sessionNo: number): Map<string, number> {
  const rows = db.prepare(
    "SELECT uuid, id FROM turns WHERE session_no = ? AND uuid IS NOT NULL ORDER BY id",
  ).all(sessionNo) as { uuid: string; id: number }[];
  const out = new Map<string, number>();
  // a resumed file copies earlier records in: a uuid names its first turn
  for (const r of rows) if (!out.has(r.uuid)) out.set(r.uuid, r.id);
  return out;
}
