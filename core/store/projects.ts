/**
 * Which archived project covers a directory: the longest of `project` and
 * `project_pre_worktree` that holds it, looked up by index.
 */
import { cached, type Db } from "./db.ts";
import { hasHistoryTables, historyHolds } from "./history_sql.ts";

/**
 * The archived project that covers `dir` (a resolved absolute path), by the longest stored
 * path that does: a project, a pre-worktree path (the project it was folded onto), or a project
 * only imported history knows. Each prefix of `dir` that could cover it is looked up by index,
 * longest first, so the cost follows the directory's depth, not how many sessions the store
 * holds (listing every distinct path walked every session's row: 1.2 ms at 4,000 sessions).
 * Where one path files under several projects, the least (SQLite's own order) is taken.
 */
export function projectCovering(db: Db, dir: string): { path: string; project: string } | null {
  const history = hasHistoryTables(db);
  // a store no pass has opened since the worktree index was added: its worktree paths are
  // read in one walk instead of one per prefix, until the next pass makes the index
  const walked = hasIndex(db, "session_meta_pre_worktree") ? null : preWorktreeProjects(db);
  for (const path of coveringPrefixes(dir)) {
    let project: string | null;
    if (walked === null) {
      project = (cached(
        db,
        `SELECT min(p) AS project FROM (
           SELECT (SELECT project FROM session_meta WHERE project = ?1 LIMIT 1) AS p
           UNION ALL SELECT (SELECT min(project) FROM session_meta WHERE project_pre_worktree = ?1))`,
      ).get(path) as { project: string | null }).project;
    } else {
      const own = cached(db, "SELECT project FROM session_meta WHERE project = ? LIMIT 1").get(
        path,
      ) as { project: string } | undefined;
      const folded = walked.get(path);
      project = own && folded !== undefined
        ? (cached(db, "SELECT min(?, ?) AS m").get(own.project, folded) as { m: string }).m
        : own?.project ?? folded ?? null;
    }
    if (project !== null) return { path, project };
    if (history && historyHolds(db, path)) return { path, project: path };
  }
  return null;
}

function hasIndex(db: Db, name: string): boolean {
  return !!cached(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(name);
}

/** Each worktree path the sessions were folded from, with the least project it filed under. */
function preWorktreeProjects(db: Db): Map<string, string> {
  const rows = db.prepare(
    `SELECT project_pre_worktree AS path, min(project) AS project FROM session_meta
     WHERE project_pre_worktree IS NOT NULL AND project IS NOT NULL GROUP BY project_pre_worktree`,
  ).all() as { path: string; project: string }[];
  return new Map(rows.map((r) => [r.path, r.project]));
}

/** Every prefix of `dir` that `covers` it (itself, each parent, each parent with its "/"), longest first. */
export function coveringPrefixes(dir: string): string[] {
  const out = [dir];
  for (let i = dir.length - 1; i >= 0; i--) {
    if (dir[i] !== "/") continue;
    if (i + 1 < dir.length) out.push(dir.slice(0, i + 1));
    if (i > 0) out.push(dir.slice(0, i));
  }
  return out;
}
