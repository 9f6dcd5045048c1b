/**
 * One-time fixes to stores written by earlier builds, each recorded in `meta` once done so a
 * pass looks for it with a single lookup.
 */
import type { Db } from "./db.ts";

const AGENT_KEYS_DONE = "agent_keys_canonical";

export interface BareAgentSession {
  sessionNo: number;
  sessionKey: string;
  transcriptPath: string | null;
  uncompressedLen: number;
  evicted: boolean;
}

/**
 * Sessions an earlier build keyed by a bare `agent-*.jsonl` (2.0.x's subagent files directly in
 * a project folder), or null when the store has been migrated already.
 */
export function bareAgentSessions(db: Db): BareAgentSession[] | null {
  if (db.prepare("SELECT 1 FROM meta WHERE key = ?").get(AGENT_KEYS_DONE)) return null;
  return (db.prepare(
    `SELECT s.session_no AS sessionNo, s.session_key AS sessionKey,
       m.transcript_path AS transcriptPath, COALESCE(m.uncompressed_len, 0) AS uncompressedLen,
       COALESCE(m.is_evicted, 0) AS evicted
     FROM sessions s LEFT JOIN session_meta m USING (session_no)
     WHERE s.session_key LIKE 'agent-%.jsonl' AND instr(s.session_key, '/') = 0`,
  ).all() as (Omit<BareAgentSession, "evicted"> & { evicted: number })[]).map((r) => ({
    ...r,
    evicted: r.evicted === 1,
  }));
}

/**
 * Gives a session its new key, and lifts a diverged flag the merge caused: the stream is its
 * file's own. False when another session holds that key already.
 */
export function rekeySession(db: Db, sessionNo: number, key: string): boolean {
  if (db.prepare("SELECT 1 FROM sessions WHERE session_key = ?").get(key)) return false;
  db.prepare("UPDATE sessions SET session_key = ? WHERE session_no = ?").run(key, sessionNo);
  db.prepare("UPDATE session_meta SET transcript_diverged = 0 WHERE session_no = ?").run(sessionNo);
  return true;
}

export function markAgentKeysMigrated(db: Db): void {
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')").run(AGENT_KEYS_DONE);
}

const WINDOWS_PROJECTS_DONE = "windows_projects_slashed";

/**
 * Sessions an earlier build filed under a Windows cwd as written (`D:\\repo`, worktrees not
 * folded), or null when the store has been migrated already.
 */
export function windowsProjectRows(db: Db): { sessionNo: number; project: string }[] | null {
  if (db.prepare("SELECT 1 FROM meta WHERE key = ?").get(WINDOWS_PROJECTS_DONE)) return null;
  return db.prepare(
    `SELECT session_no AS sessionNo, project FROM session_meta
     WHERE project GLOB '[A-Za-z]:*' AND (instr(project, '\\') > 0 OR project GLOB '[a-z]:*')`,
  ).all() as { sessionNo: number; project: string }[];
}

export function setProject(
  db: Db,
  sessionNo: number,
  project: string,
  preWorktree: string | null,
): void {
  db.prepare(
    "UPDATE session_meta SET project = ?, project_pre_worktree = ? WHERE session_no = ?",
  ).run(project, preWorktree, sessionNo);
}

export function markWindowsProjectsMigrated(db: Db): void {
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')").run(
    WINDOWS_PROJECTS_DONE,
  );
}

const SEARCH_MERGE_DONE = "search_index_merged_once";

/**
 * Whether this store predates the merge after a bulk pass (its index may still be in the
 * segments its first passes left): merged once by the next pass.
 */
export function searchMergeOwed(db: Db): boolean {
  return !db.prepare("SELECT 1 FROM meta WHERE key = ?").get(SEARCH_MERGE_DONE);
}

export function markSearchMerged(db: Db): void {
  db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, '1')").run(SEARCH_MERGE_DONE);
}

/** The index is in the segments a refill or a bulk pass wrote: a merge is owed until one commits. */
export function owesSearchMerge(db: Db): void {
  db.prepare("DELETE FROM meta WHERE key = ?").run(SEARCH_MERGE_DONE);
}
