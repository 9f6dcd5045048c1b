/**
 * Indexes that let a pass with nothing to do answer each of its steps with one indexed look:
 * the sessions still open (closing), the closed ones not observed yet (observing), the
 * decisions not labelled yet and their sessions (labelling), and a run left in flight. Each is
 * partial where it can be, so it holds only the rows still waiting. `blocks_bytes` answers
 * `usage`'s archive table (each session's block bytes) from the index alone; SQLite keeps it
 * exact with every write, so the totals reconcile without a running total of our own.
 * `session_meta_project_recency` hands the brief a project's newest session from the index's
 * end instead of sorting every session of the project, and its totals from the index alone.
 * `session_meta_pre_worktree` lets scope find a folder's project by its path (a few looks, not a
 * walk of every session). `session_meta_seen` and `watermarks_seen` hold the few columns of
 * those wide rows that a pass reads of every session before its walk (seen.ts), so that read
 * touches some forty pages rather than some seven hundred. Two serve every search: the
 * archive's turn total (the entities' idf) sums `session_meta_turns`, and the title words scan
 * `session_titles_titles`, which leaves out the first prompts; at ~3 GB 11 pages each, where the
 * narrowest index holding the counts had 78 and the table 35. Created on a pass's first
 * use (IF NOT EXISTS), so a store from an earlier build needs no migration and no version.
 */
import type { Db } from "./db.ts";
import { PASS_INDEXES_DDL } from "./schema.ts";

export function ensurePassIndexes(db: Db): void {
  db.exec(PASS_INDEXES_DDL);
}
