/** Recovery of watermarks, closing sessions, and linking a session to the one it continues. */
import type { Db } from "./db.ts";
import { truncateToLine } from "./blocks.ts";
import { deleteDerivedFrom } from "./derived.ts";

// Recovery's candidates: a watermark whose stream length disagrees with what its session
// records (or with no session at all). Only those are summed over their blocks; damage inside
// blocks that agree on length is `verify`'s to find. Every pass's first look is readSeen's
// (store/seen.ts), which asks the same of the rows it reads anyway; keep the two in step.
const CANDIDATES_SQL = `SELECT w.session_no AS no FROM watermarks w
     LEFT JOIN sessions s USING (session_no) LEFT JOIN session_meta m USING (session_no)
   WHERE s.session_no IS NULL OR (COALESCE(m.is_evicted, 0) = 0 AND
     COALESCE(m.uncompressed_len, 0) != w.stream_len)`;

/**
 * Recovery, at the top of every pass: a watermark whose stream the blocks do not hold is
 * lowered to what they hold (full capture: file offset = stream offset), and a watermark with
 * no session is removed. Returns the notes to record. Needs the codec (a lowered stream is
 * cut back to its last whole line, and its trailing block rewritten).
 */
export function recoverWatermarks(db: Db): string[] {
  const notes: string[] = [];
  const candidates = db.prepare(CANDIDATES_SQL).all() as { no: number }[];
  if (candidates.length === 0) return notes;
  const rows = db.prepare(
    `SELECT w.session_no AS no, w.offset AS offset, w.stream_len AS streamLen, s.session_key AS key,
       COALESCE(m.capture_mode, 'full') AS mode, COALESCE(m.is_evicted, 0) AS evicted,
       (SELECT COALESCE(SUM(raw_len), 0) FROM blocks b WHERE b.session_no = w.session_no) AS held
     FROM watermarks w LEFT JOIN sessions s USING (session_no) LEFT JOIN session_meta m USING (session_no)
     WHERE w.session_no IN (${candidates.map(() => "?").join(",")})`,
  ).all(...candidates.map((c) => c.no)) as {
    no: number;
    offset: number;
    streamLen: number;
    key: string | null;
    mode: string;
    evicted: number;
    held: number;
  }[];
  for (const r of rows) {
    if (r.key === null) {
      db.prepare("DELETE FROM watermarks WHERE session_no = ?").run(r.no);
      notes.push(`recovery removed a watermark for session ${r.no}, which has no archived session`);
      continue;
    }
    if (r.evicted === 1 || r.held >= r.streamLen) continue;
    if (r.mode === "full") {
      // The stream is cut back to its last whole line, so the file is re-read from a line
      // start; the rows of turns past the cut go, or the re-read would add them a second time.
      const cut = truncateToLine(db, r.no);
      const left = deleteDerivedFrom(db, r.no, cut);
      db.prepare("UPDATE watermarks SET offset = ?, stream_len = ? WHERE session_no = ?").run(
        cut,
        cut,
        r.no,
      );
      db.prepare("UPDATE session_meta SET turn_count = ? WHERE session_no = ?").run(left, r.no);
      notes.push(
        `recovery lowered the watermark of ${r.key} from ${r.offset} to ${cut} byte(s), what its blocks hold`,
      );
    } else {
      notes.push(
        `recovery found ${r.key} holding ${r.held} of ${r.streamLen} byte(s); captured as ${r.mode}, so its watermark is kept`,
      );
    }
  }
  return notes;
}

/** Marks sessions final whose last turn is before `cutoff`; returns their session_nos. */
export function closeSessions(db: Db, cutoffIso: string): number[] {
  const rows = db.prepare(
    "SELECT session_no AS no FROM session_meta WHERE is_final = 0 AND last_turn_at IS NOT NULL AND last_turn_at < ?",
  ).all(cutoffIso) as { no: number }[];
  const upd = db.prepare("UPDATE session_meta SET is_final = 1 WHERE session_no = ?");
  for (const r of rows) upd.run(r.no);
  return rows.map((r) => r.no);
}

/** Fills continues_from from the first turn's parentUuid once the predecessor is archived. */
export function resolveContinuations(db: Db): number {
  const rows = db.prepare(
    `SELECT m.session_no AS no, m.first_parent_uuid AS parent, m.session_id AS sid
     FROM session_meta m WHERE m.continues_from IS NULL AND m.first_parent_uuid IS NOT NULL`,
  ).all() as { no: number; parent: string; sid: string | null }[];
  let n = 0;
  const find = db.prepare(
    `SELECT m.session_id AS sid FROM turns t JOIN session_meta m ON m.session_no = t.session_no
     WHERE t.uuid = ? AND t.session_no != ? AND m.session_id IS NOT NULL LIMIT 1`,
  );
  const upd = db.prepare("UPDATE session_meta SET continues_from = ? WHERE session_no = ?");
  for (const r of rows) {
    const hit = find.get(r.parent, r.no) as { sid: string } | undefined;
    if (hit && hit.sid !== r.sid) {
      upd.run(hit.sid, r.no);
      n++;
    }
  }
  return n;
}
