/**
 * The one way a use case opens the store: resolve the config and paths once, open the store
 * read-only (in a project's scope, below), and say "no store yet" the same way everywhere. A
 * use case that writes opens its own connection under the ingest lock (core/store/lock.ts).
 */
import type { Context } from "./context.ts";
import { resolveAll, type Resolved } from "./resolve.ts";
import { type Db, openRead, type StoreFormat } from "./store/db.ts";
import { initReader } from "./store/codec.ts";
import { noStoreYet } from "./errors.ts";
import { DERIVED_SCHEMA } from "./constants.ts";
import { resolve, windowsPath } from "./posix.ts";
import type { Config } from "./config.ts";
import { isExcluded } from "./config.ts";
import { projectCovering } from "./store/projects.ts";
import { type Visibility } from "./store/visibility.ts";

export type StoreOpen =
  | { db: Db; r: Resolved; format: StoreFormat; warnings: string[] }
  | { db: null; r: Resolved; reason: string };

export interface OpenOptions {
  /** Load the zstd decoder too: only for reads of archived blocks (a listing never needs it). */
  readsBlocks?: boolean;
}

/**
 * Opens the store for reading. `db: null` with the one "no store yet" reason (naming backfill)
 * when there is none (nothing is created); a command adds what that means for it. Throws StoreError for a file
 * that is not a store this build reads.
 */
export async function openStore(ctx: Context, o: OpenOptions = {}): Promise<StoreOpen> {
  const r = resolveAll(ctx);
  const opened = openRead(r.store);
  if (!opened) return { db: null, r, reason: noStoreYet(r.store) };
  if (o.readsBlocks) await initReader();
  return { db: opened.db, r, format: opened.format, warnings: opened.warnings };
}

/**
 * Whether the store's derived tables (by the format its opening read) are older than this
 * build's: a command that would write into them asks for a pass first rather than rebuild
 * them without the lock.
 */
export function predatesBuild(format: StoreFormat | null): boolean {
  return format?.derivedSchema !== DERIVED_SCHEMA;
}

/*
 * Which project a read sees: the archived project the directory sits in (longest match over
 * `project` and `project_pre_worktree`, looked up by index), a `--project <path>`, or `*` for every project.
 * Exclusion is always applied, `*` included.
 */
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
  // `--project 'D:\repo'` names a project archived from Windows: absolute, `/`-separated
  const dir = (flag !== undefined ? windowsPath(flag) : null) ?? resolve(cwd, flag ?? ".");
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
