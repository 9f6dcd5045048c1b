/**
 * What a pass needs of every archived session to pass over an unchanged transcript after one
 * stat: its watermark, whether it is evicted or diverged, its project (for exclusion), and the
 * size and mtime its file had at the last look (file_tails). One narrow query, its rows kept as
 * the arrays node:sqlite returns; a session's full state and tail are read one at a time, and
 * only for a file with something new (`sessionState`, `tailOf`).
 *
 * The same query says whether recovery has anything to look at (a watermark whose stream
 * length disagrees with its session's), so a pass with nothing to recover asks nothing more.
 */
import { cachedArrays, type Db } from "./db.ts";

export type SeenRow = [
  sessionKey: string,
  sessionNo: number,
  offset: number | null,
  /** SEEN_EVICTED | SEEN_DIVERGED | SEEN_RECOVER */
  flags: number,
  /** null unless read `withProject` */
  project: string | null,
  /** The tail's watermark, file size and mtime at the last look; null when none was kept. */
  tailOffset: number | null,
  tailSize: number | null,
  tailMtimeMs: number | null,
];

export const SEEN_EVICTED = 1;
export const SEEN_DIVERGED = 2;
/** Recovery's first look (lineage.ts CANDIDATES_SQL) would pick this session's watermark. */
export const SEEN_RECOVER = 4;

/**
 * Named, the narrow indexes (pass_indexes.ts) stand in for the wide rows: SQLite would look each
 * session up by its rowid in the table. The project is not in them, so a read that needs it
 * reads session_meta's rows.
 */
const seenSql = (project: string, meta: string) => `
SELECT s.session_key, s.session_no, w.offset,
       COALESCE(m.is_evicted, 0) + (COALESCE(m.transcript_diverged, 0) << 1) +
       ((w.session_no IS NOT NULL AND COALESCE(m.is_evicted, 0) = 0 AND
         COALESCE(m.uncompressed_len, 0) != w.stream_len) << 2),
       ${project}, t.offset, t.size, t.mtime_ms
FROM sessions s LEFT JOIN session_meta m ${meta} USING (session_no)
  LEFT JOIN watermarks w INDEXED BY watermarks_seen USING (session_no)
  LEFT JOIN file_tails t USING (session_no)`;
const SEEN_WITH_PROJECT = seenSql("m.project", "");
const SEEN_SQL = seenSql("NULL", "INDEXED BY session_meta_seen");

export interface Seen {
  rows: Map<string, SeenRow>;
  /** Some watermark needs recovery's look: one disagrees with its session, or has none. */
  recoveryDue: boolean;
}

/**
 * Every session as the pass last saw it, keyed by session_key. Needs file_tails (ensureTails)
 * and the pass's indexes (ensurePassIndexes).
 * The project is read only `withProject` (some project is excluded): it is the row's longest
 * value, and without an exclude nothing asks for it.
 */
export function readSeen(db: Db, withProject: boolean): Seen {
  const rows = new Map<string, SeenRow>();
  let recoveryDue = false;
  let watermarked = 0;
  const sql = withProject ? SEEN_WITH_PROJECT : SEEN_SQL;
  for (const r of cachedArrays(db, sql).all() as unknown as SeenRow[]) {
    rows.set(r[0], r);
    if (r[3] & SEEN_RECOVER) recoveryDue = true;
    if (r[2] !== null) watermarked++;
  }
  if (!recoveryDue) {
    // a watermark whose session is gone: more watermarks than the sessions that have one (a
    // count of one table's b-tree, where joining the two looked up every watermark's session)
    const all = cachedArrays(db, "SELECT count(*) FROM watermarks").get() as unknown as [number];
    recoveryDue = all[0] !== watermarked;
  }
  return { rows, recoveryDue };
}
