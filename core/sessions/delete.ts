/**
 * `terminus sessions delete`: one session (and a parent's subagent sessions) removed for good,
 * exactly as retention's delete removes it, with a tombstone so the next pass does not archive
 * Claude Code's transcript again. The plan is read first, shown, and re-read under the ingest
 * lock before anything is removed; the store's part is one transaction.
 */
import type { Config } from "../config.ts";
import { NotFoundError, TerminusError } from "../errors.ts";
import { checkpoint, closeWrite, type Db, openRead, openWrite } from "../store/db.ts";
import { compactStore } from "../store/maintenance.ts";
import type { FileSizes } from "../store/inspect.ts";
import type { Resolved } from "../resolve.ts";
import { predatesBuild } from "../open.ts";
import { listSessions, type SessionRow } from "../store/session_listing.ts";
import {
  clearFromSnapshot,
  deleteFacts,
  deleteWithTombstones,
  snapshotHolds,
} from "../store/delete_sql.ts";
import { type Tombstone, tombstonesOf } from "../store/tombstones_sql.ts";
import { listSnapshots } from "../store/snapshot.ts";
import { transcriptHead } from "../ingest/tombstone.ts";
import { exists } from "../posix.ts";
import { resolveRef } from "./ref.ts";
import { viewOf } from "./list.ts";

/** One session the plan removes. */
export interface DeleteItem {
  session_no: number | null;
  session_key: string;
  session_id: string | null;
  title: string | null;
  turns: number;
  bytes: number;
  /** Logged prompts the decision log holds under its id (a subagent's are its parent's). */
  prompts: number;
  sidecar: boolean;
  /** Claude Code's transcript, when it is still on disk. */
  transcript: string | null;
  /** Deleted from the store earlier: only snapshots may still hold it. */
  already_deleted: boolean;
}

/** What one reference names: the session and, for a parent, its subagent sessions. */
export interface DeleteTarget {
  session: DeleteItem;
  subagents: DeleteItem[];
}

export interface DeletePlan {
  targets: DeleteTarget[];
  /** Every session key, each parent after its subagents. */
  keys: string[];
  /** The session numbers in the store, in the same order. */
  sessionNos: number[];
  /** Snapshots holding any of them, with how many each holds. */
  snapshots: { path: string; sessions: number }[];
  /** Snapshot files that could not be read. */
  problems: string[];
  /** The tombstones of sessions deleted earlier, for the snapshots still holding them. */
  buried: Tombstone[];
}

function itemOf(db: Db, r: SessionRow, filter: (s: string) => string): DeleteItem {
  const f = deleteFacts(db, r.session_no, r.session_id);
  const v = viewOf(r, filter);
  return {
    session_no: r.session_no,
    session_key: r.session_key,
    session_id: r.session_id,
    title: v.title,
    turns: r.turns,
    bytes: f.bytes,
    prompts: r.sidecar ? 0 : f.prompts,
    sidecar: r.sidecar,
    transcript: f.transcriptPath !== null && exists(f.transcriptPath) ? f.transcriptPath : null,
    already_deleted: false,
  };
}

function buriedItem(t: Tombstone): DeleteItem {
  return {
    session_no: null,
    session_key: t.sessionKey,
    session_id: t.sessionId,
    title: null,
    turns: 0,
    bytes: 0,
    prompts: 0,
    sidecar: t.sessionKey.includes("/subagents/"),
    transcript: null,
    already_deleted: true,
  };
}

/**
 * Reads the plan. A reference that names no archived session but the id of one deleted
 * earlier names its tombstones, so `--snapshots` can still clear the snapshots of it.
 */
export function planDelete(
  db: Db,
  cfg: Config,
  cwd: string,
  refs: string[],
  dataDir: string,
  filter: (s: string) => string,
): DeletePlan {
  const vis = { project: null, exclude: cfg.exclude };
  const targets: DeleteTarget[] = [];
  const buried: Tombstone[] = [];
  const seen = new Set<string>();
  for (const ref of refs) {
    let row: SessionRow;
    try {
      row = resolveRef(db, cfg, cwd, ref);
    } catch (e) {
      const gone = e instanceof NotFoundError ? tombstonesOf(db, ref.toLowerCase()) : [];
      if (gone.length === 0) throw e;
      const parent = gone.find((t) => !t.sessionKey.includes("/subagents/")) ?? gone[0];
      const rest = gone.filter((t) => t !== parent && !seen.has(t.sessionKey));
      if (seen.has(parent.sessionKey)) continue;
      for (const t of gone) seen.add(t.sessionKey);
      buried.push(parent, ...rest);
      targets.push({ session: buriedItem(parent), subagents: rest.map(buriedItem) });
      continue;
    }
    if (seen.has(row.session_key)) continue;
    seen.add(row.session_key);
    const subs = row.sidecar ? [] : listSessions(db, vis, { parentKey: row.session_key })
      .filter((s) => !seen.has(s.session_key))
      .sort((a, b) => a.session_no - b.session_no);
    for (const s of subs) seen.add(s.session_key);
    targets.push({
      session: itemOf(db, row, filter),
      subagents: subs.map((s) => itemOf(db, s, filter)),
    });
  }
  const ordered = targets.flatMap((t) => [...t.subagents, t.session]);
  const keys = ordered.map((i) => i.session_key);
  const sessionNos = ordered.filter((i) => i.session_no !== null).map((i) => i.session_no!);
  const snapshots: DeletePlan["snapshots"] = [];
  const problems: string[] = [];
  for (const s of listSnapshots(dataDir)) {
    try {
      const n = snapshotHolds(s.path, keys);
      if (n > 0) snapshots.push({ path: s.path, sessions: n });
    } catch (e) {
      problems.push(`${s.path} could not be read: ${(e as Error).message}`);
    }
  }
  return { targets, keys, sessionNos, snapshots, problems, buried };
}

/** Every item of the plan, each parent after its subagents. */
export function planItems(p: DeletePlan): DeleteItem[] {
  return p.targets.flatMap((t) => [...t.subagents, t.session]);
}

/** Whether two readings of the plan name the same sessions in the same state. */
export function samePlan(a: DeletePlan, b: DeletePlan): boolean {
  const sig = (p: DeletePlan) =>
    JSON.stringify(planItems(p).map((i) => [i.session_no, i.session_key, i.turns, i.bytes]));
  return sig(a) === sig(b);
}

/**
 * The tombstones the deletion writes (the key, the id, and the transcript's first bytes), and
 * those of sessions deleted earlier, which the snapshots cleared of them get too.
 */
export function tombstonesFor(p: DeletePlan, at: Date): Tombstone[] {
  return [
    ...p.buried,
    ...planItems(p).filter((i) => !i.already_deleted).map((i) => {
      const head = i.transcript ? transcriptHead(i.transcript) : null;
      return {
        sessionKey: i.session_key,
        sessionId: i.session_id,
        transcriptPath: i.transcript,
        headLen: head?.len ?? null,
        headHash: head?.hash ?? null,
        deletedAt: at.toISOString(),
      };
    }),
  ];
}

export interface SnapshotsCleared {
  snapshots: number;
  sessions: number;
  stranded: number;
  problems: string[];
}

/** Removes the plan's sessions from every snapshot holding them, one transaction each. */
export function clearSnapshots(p: DeletePlan, tombstones: Tombstone[]): SnapshotsCleared {
  const out: SnapshotsCleared = { snapshots: 0, sessions: 0, stranded: 0, problems: [] };
  for (const s of p.snapshots) {
    try {
      const c = clearFromSnapshot(s.path, p.keys, tombstones);
      out.snapshots++;
      out.sessions += c.sessions;
      out.stranded += c.stranded;
    } catch (e) {
      out.problems.push(`${s.path}: the session could not be removed: ${(e as Error).message}`);
    }
  }
  return out;
}

/**
 * The store's part: every session and its tombstone in one transaction, then a checkpoint so
 * the deletion is in the main file. Returns the prompts removed. The caller holds the lock.
 */
export function deleteFromStore(store: string, p: DeletePlan, tombstones: Tombstone[]): number {
  const { db } = openWrite(store);
  try {
    const prompts = deleteWithTombstones(db, p.sessionNos, tombstones);
    checkpoint(db);
    return prompts;
  } finally {
    closeWrite(db);
  }
}

/**
 * The plan read from the store read-only. Throws NotFoundError with no store, and asks for a
 * pass first when the store predates this build (that pass rebuilds derived tables under its
 * own lock).
 */
export function readDeletePlan(
  r: Resolved,
  cwd: string,
  refs: string[],
  filter: (s: string) => string,
): { plan: DeletePlan; warnings: string[] } {
  const o = openRead(r.store);
  if (!o) throw new NotFoundError(`no store yet at ${r.store}; there is nothing to delete`);
  try {
    if (predatesBuild(o.format)) {
      throw new TerminusError(
        `${r.store} predates this build; run terminus ingest once, then sessions delete again`,
      );
    }
    return { plan: planDelete(o.db, r.cfg, cwd, refs, r.dataDir, filter), warnings: o.warnings };
  } finally {
    o.db.close();
  }
}

export interface DeleteCompacted {
  before: FileSizes;
  after: FileSizes;
  reclaimed_bytes: number;
}

/** `--compact`: the store file compacted (the search index merged first), as compact does. */
export function compactAfterDelete(store: string): DeleteCompacted {
  const c = compactStore(store);
  return { before: c.before, after: c.after, reclaimed_bytes: c.before.total - c.after.total };
}

/** Deletes the transcripts on disk; returns each path with whether it went. */
export function deleteTranscripts(
  p: DeletePlan,
): { path: string; deleted: boolean; error: string | null }[] {
  return planItems(p).filter((i) => i.transcript !== null).map((i) => {
    try {
      Deno.removeSync(i.transcript!);
      return { path: i.transcript!, deleted: true, error: null };
    } catch (e) {
      return { path: i.transcript!, deleted: false, error: (e as Error).message };
    }
  });
}
