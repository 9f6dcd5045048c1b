/**
 * What `terminus sessions restore` needs to know of a session besides its listing row: where
 * its transcript was, how it was captured, whether it was flagged as diverged, and a sidecar's
 * `.meta.json` as it was archived.
 */
import type { Db } from "./db.ts";

export interface RestoreFacts {
  transcriptPath: string | null;
  captureMode: string;
  diverged: boolean;
  agentMeta: Uint8Array | null;
}

export function restoreFacts(db: Db, sessionNo: number): RestoreFacts | null {
  const r = db.prepare(
    `SELECT transcript_path AS p, capture_mode AS mode, transcript_diverged AS d,
       agent_meta AS meta FROM session_meta WHERE session_no = ?`,
  ).get(sessionNo) as
    | { p: string | null; mode: string; d: number; meta: Uint8Array | null }
    | undefined;
  if (!r) return null;
  return {
    transcriptPath: r.p,
    captureMode: r.mode,
    diverged: r.d === 1,
    agentMeta: r.meta ? new Uint8Array(r.meta) : null,
  };
}
