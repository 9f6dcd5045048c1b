/**
 * The pass's housekeeping around the archive pipeline. Before: recovery of watermarks the
 * blocks do not back, subagent keys from earlier builds, derived tables of an older schema,
 * titles of sessions archived before they were kept. After (whole-tree passes only):
 * continuations linked, idle sessions closed, then the caller's steps (observe, retention,
 * snapshot), and the search index merged after a pass that added much of the archive. Each
 * step that finds nothing to do costs one indexed look.
 */
import { CLOSE_AFTER_MS, SEARCH_MERGE_SHARE } from "../constants.ts";
import { clearRebuildPending, type Db, rebuildPendingFrom, transaction } from "../store/db.ts";
import { DERIVED_SHAPE_SINCE } from "../store/schema.ts";
import { closeSessions, recoverWatermarks, resolveContinuations } from "../store/lineage.ts";
import { fillTitles, rebuildDerived } from "../index/reindex.ts";
import { titlesFillPending } from "../store/sessions_sql.ts";
import { initCodec } from "../store/codec.ts";
import { totalTurns } from "../store/entities_sql.ts";
import { mergeSearchSegments, searchSegmentCount } from "../store/maintenance.ts";
import { migrateAgentKeys, migrateWindowsProjects } from "./migrate.ts";
import { markSearchMerged, owesSearchMerge, searchMergeOwed } from "../store/migrate.ts";

/**
 * Recovery (when `recoveryDue`: see store/seen.ts) and the one-off upgrades, before any file
 * is read. Returns whether any of them ran, so the pass reads its sessions again.
 */
export async function beforeArchiving(
  db: Db,
  recoveryDue: boolean,
  notes: string[],
  errors: string[],
): Promise<boolean> {
  const before = notes.length + errors.length;
  let ran = false;
  try {
    if (recoveryDue) {
      ran = true;
      await initCodec(); // a lowered stream's trailing block is rewritten
      notes.push(...transaction(db, () => recoverWatermarks(db)));
    }
  } catch (e) {
    errors.push(`recovery could not run: ${(e as Error).message}`);
  }
  try {
    const migrated = await migrateAgentKeys(db);
    if (migrated !== null) ran = true;
    notes.push(...(migrated ?? []));
  } catch (e) {
    errors.push(`subagent keys could not be migrated: ${(e as Error).message}`);
  }
  try {
    const moved = migrateWindowsProjects(db);
    if (moved !== null) ran = true;
    if (moved) {
      notes.push(`${moved} session(s) from Windows filed under their project's / spelling`);
    }
  } catch (e) {
    errors.push(`Windows projects could not be migrated: ${(e as Error).message}`);
  }
  const rebuilt = await rebuildDerivedIfStale(db);
  if (rebuilt) notes.push(rebuilt);
  const titled = await fillTitlesIfPending(db);
  if (titled) notes.push(titled);
  return ran || notes.length + errors.length > before;
}

export interface AfterCloseContext {
  closed: number[];
  now: Date;
  notes: string[];
  errors: string[];
  /** Set by the observe step: closed sessions it left for a later pass. */
  backlog: number;
}

export interface AfterArchiving {
  /** The caller's steps after closing (observe, retention, snapshot). */
  afterClose?: (db: Db, ctx: AfterCloseContext) => Promise<void> | void;
  now: Date;
  /** Files this pass committed. */
  committed: number;
  /** An earlier pass died (its work may have stopped before these steps). */
  died: boolean;
  notes: string[];
  errors: string[];
}

/** Lineage and closing, then the caller's steps; returns the observe step's backlog. */
export async function afterArchiving(db: Db, a: AfterArchiving): Promise<number> {
  try {
    // a link appears only when a session or its predecessor's turns arrive: a pass that
    // committed nothing has none to find (one that died before this step is made up for)
    if (a.committed > 0 || a.died) {
      const n = resolveContinuations(db);
      if (n > 0) a.notes.push(`${n} session(s) linked to the session they continue from`);
    }
    const cutoff = new Date(a.now.getTime() - CLOSE_AFTER_MS).toISOString();
    const closed = closeSessions(db, cutoff);
    if (closed.length > 0) a.notes.push(`${closed.length} session(s) closed`);
    if (!a.afterClose) return 0;
    const c: AfterCloseContext = {
      closed,
      now: a.now,
      notes: a.notes,
      errors: a.errors,
      backlog: 0,
    };
    await a.afterClose(db, c);
    return c.backlog;
  } catch (e) {
    a.errors.push(`closing sessions could not run: ${(e as Error).message}`);
    return 0;
  }
}

/**
 * A pass that added at least SEARCH_MERGE_SHARE of the archive's turns leaves the search index
 * in the several segments its commits and FTS5's automerge made (8 at ~3 GB), and a search
 * seeks every word it asks for in each. A merge rewrites the index once (2.5 s at ~3 GB); with
 * the share, the archive grows by a quarter between two merges, so all of them together cost a
 * few merges of the final index. The small segment each later pass adds is left to FTS5's
 * automerge (docs/design/performance.md, "One segment after a bulk pass"). The merge is owed
 * until it commits (a mark in `meta`), so a store an earlier build made, an index a reindex
 * refilled and a pass killed mid-merge are merged by the next pass.
 */
export function mergeAfterBulk(db: Db, turnsAdded: number, errors: string[]): void {
  try {
    // owed first, in a commit of its own: a pass killed in the merge leaves it owed
    if (turnsAdded > 0 && turnsAdded >= SEARCH_MERGE_SHARE * totalTurns(db)) owesSearchMerge(db);
    if (!searchMergeOwed(db)) return;
    // the merge and its mark commit together
    transaction(db, () => {
      if (searchSegmentCount(db) > 1) mergeSearchSegments(db);
      markSearchMerged(db);
    });
  } catch (e) {
    errors.push(`the search index could not be merged: ${(e as Error).message}`);
    try {
      markSearchMerged(db); // a merge that fails (a full disk) is not tried by every pass
    } catch { /* the store takes no write: the error above says why */ }
  }
}

/**
 * A store made before titles were kept, or under older title rules (SESSIONS_SCHEMA), reads
 * them once from its blocks.
 */
async function fillTitlesIfPending(db: Db): Promise<string | null> {
  if (!titlesFillPending(db)) return null;
  await initCodec();
  const r = fillTitles(db);
  return `titles read for ${r.sessions} session(s) from their blocks, by this build's title rules${
    r.skipped ? `; ${r.skipped} could not be read` : ""
  }`;
}

async function rebuildDerivedIfStale(db: Db): Promise<string | null> {
  const from = rebuildPendingFrom(db);
  if (from === null) return null;
  await initCodec();
  // the mark is cleared in the rebuild's own transaction: a pass killed midway rebuilds again
  const r = rebuildDerived(db, () => clearRebuildPending(db));
  let note =
    `derived tables rebuilt for a new schema: ${r.sessions} session(s), ${r.turns} turn(s)`;
  if (r.preserved > 0 && from < DERIVED_SHAPE_SINCE.turns_fts) {
    // a contentless index cannot hand its rows over to a new one
    note +=
      `; ${r.preserved} evicted session(s) kept their rows, but not their search index rows, so search no longer finds them`;
  } else if (r.preserved > 0) {
    note += `; ${r.preserved} evicted session(s) kept their rows as they were`;
  }
  return note;
}
