/**
 * Session listings: the visible sessions in an order, their active time, the sessions that match
 * a search's words, and how many a scope holds.
 */
import { cached, type Db } from "./db.ts";
import { ACTIVE_GAP_CAP_SECONDS, TURN_SEQ_SPAN } from "../constants.ts";
import { handleColumns, tagsWhere } from "./sessions_sql.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";

/** Every session row a read may see, subagents' included (search's title weight scales with it). */
export function visibleSessionRows(db: Db, vis: Visibility): number {
  const w = visibleWhere(vis);
  return (db.prepare(
    `SELECT count(*) AS n FROM sessions s LEFT JOIN session_meta m ON m.session_no = s.session_no
     WHERE ${w.sql}`,
  ).get(...w.params) as { n: number }).n;
}

export interface SessionRow {
  session_key: string;
  session_no: number;
  session_id: string | null;
  /** The first working directory the session's records named. */
  cwd: string | null;
  project: string | null;
  project_pre_worktree: string | null;
  branch: string | null;
  first_turn_at: string | null;
  last_turn_at: string | null;
  turns: number;
  watermark: number | null;
  sidecar: boolean;
  evicted: boolean;
  /** Where the transcript was archived from (Claude Code may have deleted it since). */
  transcript_path: string | null;
  /** Active time (activeSeconds); null when not asked for or the session has no timed turn. */
  active_seconds: number | null;
  /** The session's name and transcript titles, for the title's priority order. */
  name: string | null;
  custom_title: string | null;
  ai_title: string | null;
  summary: string | null;
  first_prompt: string | null;
  tags: string[];
}

export interface SessionFilters {
  since?: string | null;
  until?: string | null;
  limit?: number | null;
  /** Every one of these tags must be on the session. */
  tags?: string[];
  /** Only this session. */
  sessionNo?: number;
  /** Only the subagent sessions of this session key. */
  parentKey?: string;
  /**
   * "newest" (the default): by first turn, newest first, as a person reads a list;
   * "number": by session_no, the order the JSON contract names. `limit` keeps the newest n
   * in either.
   */
  order?: "newest" | "number";
  /** False skips the active-time query (the browser's list, redrawn on every key, shows none). */
  durations?: boolean;
}

/**
 * Each session's active time in whole seconds: the gaps between its consecutive turns, each
 * capped at `capSeconds`, summed, so a session resumed months later is not months long. A
 * session whose first and last turn are at most the cap apart has no gap to cap: its active
 * time is that span, read off the row, and only the longer ones read their turns' times (by
 * id range: a session's turn ids are contiguous).
 */
export function activeSeconds(
  db: Db,
  sessions: { session_no: number; first_turn_at: string | null; last_turn_at: string | null }[],
  capSeconds: number,
): Map<number, number> {
  const out = new Map<number, number>();
  const cap = capSeconds * 1000;
  const times = db.prepare(
    "SELECT ts FROM turns WHERE id >= ? AND id < ? AND ts IS NOT NULL ORDER BY id",
  );
  for (const r of sessions) {
    if (r.first_turn_at === null || r.last_turn_at === null) continue;
    const span = Date.parse(r.last_turn_at) - Date.parse(r.first_turn_at);
    if (!Number.isFinite(span)) continue;
    if (span <= cap) {
      out.set(r.session_no, Math.round(Math.max(0, span) / 1000));
      continue;
    }
    let prev = NaN;
    let sum = 0;
    const from = r.session_no * TURN_SEQ_SPAN;
    for (const t of times.all(from, from + TURN_SEQ_SPAN) as { ts: string }[]) {
      const at = Date.parse(t.ts);
      if (Number.isNaN(at)) continue;
      if (!Number.isNaN(prev)) sum += Math.min(Math.max(at - prev, 0), cap);
      prev = at;
    }
    out.set(r.session_no, Math.round(sum / 1000));
  }
  return out;
}

/** The WHERE clause of a listing's filters, with its parameters; null: nothing can match. */
function listingWhere(
  db: Db,
  vis: Visibility,
  f: SessionFilters,
): { where: string[]; params: (string | number)[] } | null {
  const w = visibleWhere(vis);
  const where = [w.sql];
  const params: (string | number)[] = [...w.params];
  if (f.since) {
    where.push("m.last_turn_at IS NOT NULL AND m.last_turn_at >= ?");
    params.push(f.since);
  }
  if (f.until) {
    where.push("m.first_turn_at IS NOT NULL AND m.first_turn_at <= ?");
    params.push(f.until);
  }
  if (f.tags && f.tags.length) {
    if (handleColumns(db).join === "") return null; // a store with no tags table has no tagged session
    const t = tagsWhere(f.tags);
    where.push(t.sql);
    params.push(...t.params);
  }
  if (f.sessionNo !== undefined) {
    where.push("s.session_no = ?");
    params.push(f.sessionNo);
  }
  if (f.parentKey !== undefined) {
    where.push("m.parent_session_key = ?");
    params.push(f.parentKey);
  }
  return { where, params };
}

/** How many sessions a listing with these filters holds, before any limit. */
export function countSessions(db: Db, vis: Visibility, f: SessionFilters = {}): number {
  const lw = listingWhere(db, vis, f);
  if (!lw) return 0;
  return (db.prepare(
    `SELECT count(*) AS n FROM sessions s LEFT JOIN session_meta m ON m.session_no = s.session_no
     WHERE ${lw.where.join(" AND ")}`,
  ).get(...lw.params) as { n: number }).n;
}

/**
 * Visible sessions in `f.order`. `limit` keeps the newest n (by first turn, as a person's list
 * shows them), whichever order they are then listed in: `--limit 1` is the latest session,
 * in the human list and in the JSON document alike.
 */
export function listSessions(db: Db, vis: Visibility, f: SessionFilters = {}): SessionRow[] {
  const lw = listingWhere(db, vis, f);
  if (!lw) return [];
  const { where, params } = lw;
  const h = handleColumns(db);
  const newest = "ORDER BY m.first_turn_at IS NULL, m.first_turn_at DESC, s.session_no DESC";
  // With a limit the page is chosen first and only its rows get their turn counts and titles:
  // computed for every row before the sort, they cost 36-155 ms over 3,960 sessions.
  const filtered = `WHERE ${where.join(" AND ")}`;
  const from = f.limit == null ? "sessions s" : `(SELECT s.session_no AS pick FROM sessions s
       LEFT JOIN session_meta m ON m.session_no = s.session_no ${filtered} ${newest} LIMIT ?) page
     JOIN sessions s ON s.session_no = page.pick`;
  if (f.limit != null) params.push(f.limit);
  let sql =
    `SELECT s.session_key, s.session_no, m.session_id, m.cwd, m.project, m.project_pre_worktree,
      m.branch, m.first_turn_at, m.last_turn_at,
      (SELECT count(*) FROM turns t WHERE t.session_no = s.session_no) AS turns,
      w.offset AS watermark, m.parent_session_key IS NOT NULL AS sidecar,
      COALESCE(m.is_evicted, 0) AS evicted, m.transcript_path, ${h.select}
    FROM ${from} LEFT JOIN session_meta m ON m.session_no = s.session_no
      LEFT JOIN watermarks w ON w.session_no = s.session_no ${h.join}
    ${f.limit == null ? filtered : ""}
    ${newest}`;
  if (f.order === "number") sql = `SELECT * FROM (${sql}) ORDER BY session_no`;
  const n = (v: unknown) => (v as string | null) ?? null;
  const rows = db.prepare(sql).all(...params) as Record<string, unknown>[];
  const active = f.durations === false ? new Map<number, number>() : activeSeconds(
    db,
    rows as { session_no: number; first_turn_at: string | null; last_turn_at: string | null }[],
    ACTIVE_GAP_CAP_SECONDS,
  );
  return rows.map((r) => ({
    session_key: r.session_key as string,
    session_no: r.session_no as number,
    session_id: n(r.session_id),
    cwd: n(r.cwd),
    project: n(r.project),
    project_pre_worktree: n(r.project_pre_worktree),
    branch: n(r.branch),
    first_turn_at: n(r.first_turn_at),
    last_turn_at: n(r.last_turn_at),
    turns: r.turns as number,
    watermark: (r.watermark as number | null) ?? null,
    sidecar: r.sidecar === 1,
    evicted: r.evicted === 1,
    transcript_path: n(r.transcript_path),
    active_seconds: active.get(r.session_no as number) ?? null,
    name: n(r.name),
    custom_title: n(r.custom_title),
    ai_title: n(r.ai_title),
    summary: n(r.summary),
    first_prompt: n(r.first_prompt),
    tags: r.tags ? String(r.tags).split(" ") : [],
  }));
}

/**
 * Sessions a reference could name, regardless of visibility (the caller applies it): by
 * number, by Claude Code session id, by a prefix of the session key, or by transcript path.
 */
export function sessionsMatching(
  db: Db,
  by: {
    no?: number;
    keyPrefix?: string;
    sessionId?: string;
    key?: string;
    path?: string;
    /** A transcript's file name: a top-level key, or a sidecar's last part. */
    fileName?: string;
  },
): number[] {
  const q = (sql: string, ...p: (string | number)[]) =>
    (db.prepare(sql).all(...p) as { n: number }[]).map((r) => r.n);
  if (by.no !== undefined) {
    return q("SELECT session_no AS n FROM sessions WHERE session_no = ?", by.no);
  }
  if (by.key !== undefined) {
    return q("SELECT session_no AS n FROM sessions WHERE session_key = ?", by.key);
  }
  if (by.path !== undefined) {
    return q("SELECT session_no AS n FROM session_meta WHERE transcript_path = ?", by.path);
  }
  if (by.fileName !== undefined) {
    const tail = "/" + by.fileName;
    return q(
      `SELECT session_no AS n FROM sessions
       WHERE session_key = ? OR substr(session_key, -?) = ? ORDER BY session_no`,
      by.fileName,
      tail.length,
      tail,
    );
  }
  const out = new Set<number>();
  if (by.keyPrefix !== undefined) {
    // a top-level key is `<uuid>.jsonl`; a sidecar's starts with its parent's id and a slash
    for (
      const n of q(
        "SELECT session_no AS n FROM sessions WHERE substr(session_key, 1, ?) = ? AND instr(session_key, '/') = 0",
        by.keyPrefix.length,
        by.keyPrefix,
      )
    ) out.add(n);
  }
  if (by.sessionId !== undefined) {
    for (
      const n of q(
        "SELECT session_no AS n FROM session_meta WHERE session_id = ? AND parent_session_key IS NULL",
        by.sessionId,
      )
    ) out.add(n);
  }
  return [...out].sort((a, b) => a - b);
}

/** How many sessions the visible scope holds (the base of "too common to fire alone"). */
export function visibleSessionCount(db: Db, vis: Visibility): number {
  const w = visibleWhere(vis);
  return (cached(
    db,
    `SELECT count(*) AS n FROM session_meta m WHERE m.parent_session_key IS NULL AND ${w.sql}`,
  ).get(...w.params) as { n: number }).n;
}
