/**
 * Which project a read sees: the archived project the directory sits in (longest match over
 * `project` and `project_pre_worktree`, looked up by index), a `--project <path>`, or `*` for every project.
 * Exclusion is always applied, `*` included.
 */
import { resolve } from "../posix.ts";
import type { Config } from "../config.ts";
import { isExcluded } from "../config.ts";
import type { Db } from "../store/db.ts";
import { projectCovering, type Visibility } from "../store/query.ts";
import type { Context } from "../context.ts";
import type { Resolved } from "../setup_context.ts";
import { type OpenOptions, openStore } from "../open.ts";

export type Scope =
  | { ok: true; vis: Visibility; label: string }
  | { ok: false; reason: string };

/** How each caller asks for every project, for the reason a directory with no project gets. */
export const EVERY_PROJECT_CLI = "pass --project '*' for every project";
export const EVERY_PROJECT_MCP = 'pass the argument project: "*" for every project';

export function resolveScope(
  db: Db,
  cfg: Config,
  cwd: string,
  flag: string | undefined,
  everyProject: string = EVERY_PROJECT_CLI,
): Scope {
  if (flag === "*") return { ok: true, vis: { project: null, exclude: cfg.exclude }, label: "*" };
  const dir = resolve(cwd, flag ?? ".");
  if (isExcluded(cfg, dir)) return { ok: false, reason: `${dir} is in an excluded project` };
  const best = projectCovering(db, dir);
  if (!best) {
    return {
      ok: false,
      reason: `no archived project covers ${dir}; ${everyProject}`,
    };
  }
  if (isExcluded(cfg, best.project)) {
    return { ok: false, reason: `${best.project} is an excluded project` };
  }
  return { ok: true, vis: { project: best.project, exclude: cfg.exclude }, label: best.project };
}

/** What a read in scope found, or why it could not be asked (no store, no project here). */
export type InScope<T> =
  | { value: T; reason: null; warnings: string[] }
  | { value: null; reason: string; warnings: string[] };

/**
 * Opens the store read-only, resolves the scope from where the command was typed (or the
 * named project) and runs `read` in it. No store: its reason, no warnings; a scope that
 * cannot be resolved: its reason with the store's warnings.
 */
export async function readInScope<T>(
  ctx: Context,
  project: string | undefined,
  read: (db: Db, vis: Visibility, r: Resolved) => T | Promise<T>,
  o: OpenOptions = {},
): Promise<InScope<T>> {
  const opened = await openStore(ctx, o);
  if (!opened.db) return { value: null, reason: opened.reason, warnings: [] };
  try {
    const scope = resolveScope(opened.db, opened.r.cfg, ctx.cwd, project);
    if (!scope.ok) return { value: null, reason: scope.reason, warnings: opened.warnings };
    return {
      value: await read(opened.db, scope.vis, opened.r),
      reason: null,
      warnings: opened.warnings,
    };
  } finally {
    opened.db.close();
  }
}
