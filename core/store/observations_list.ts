/** Observed sessions as `observations` lists them, visible to a scope, in ingest order. */
import type { Db } from "./db.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";

export interface ObservationRow {
  sessionNo: number;
  sessionKey: string;
  sessionId: string | null;
  generatedAt: string | null;
  mechanical: string | null;
  branch: string | null;
  project: string | null;
  lastTurnAt: string | null;
  evicted: boolean;
  hasMeta: boolean;
}

/** Observed sessions visible to `vis`, in ingest order; `since` bounds last_turn_at. */
export function listObservations(
  db: Db,
  vis: Visibility,
  since: string | null = null,
): ObservationRow[] {
  const w = visibleWhere(vis);
  const where = [w.sql];
  const params: string[] = [...w.params];
  if (since) {
    where.push("m.last_turn_at IS NOT NULL AND m.last_turn_at >= ?");
    params.push(since);
  }
  return (db.prepare(
    `SELECT o.session_no AS sessionNo, s.session_key AS sessionKey, m.session_id AS sessionId,
       o.generated_at AS generatedAt, o.mechanical AS mechanical, m.branch AS branch,
       m.project AS project, m.last_turn_at AS lastTurnAt, COALESCE(m.is_evicted, 0) AS evicted,
       m.session_no IS NOT NULL AS hasMeta
     FROM observations o JOIN sessions s ON s.session_no = o.session_no
       LEFT JOIN session_meta m ON m.session_no = o.session_no
     WHERE ${where.join(" AND ")} ORDER BY o.session_no`,
  ).all(...params) as Record<string, unknown>[]).map((r) => ({
    sessionNo: r.sessionNo as number,
    sessionKey: r.sessionKey as string,
    sessionId: (r.sessionId as string | null) ?? null,
    generatedAt: (r.generatedAt as string | null) ?? null,
    mechanical: (r.mechanical as string | null) ?? null,
    project: (r.project as string | null) ?? null,
    branch: (r.branch as string | null) ?? null,
    lastTurnAt: (r.lastTurnAt as string | null) ?? null,
    evicted: r.evicted === 1,
    hasMeta: r.hasMeta === 1,
  }));
}
