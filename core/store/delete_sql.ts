/**
 * The SQL of `terminus sessions delete`: the facts its plan prints, the one transaction that
 * removes the sessions (retention's delete for each) with their tombstones, and the same done
 * to a snapshot file.
 */
import { DatabaseSync } from "node:sqlite";
import { type Db, transaction } from "./db.ts";
import { deleteSession } from "./retention_sql.ts";
import { putTombstone, type Tombstone } from "./tombstones_sql.ts";
import { mergeSearchIndex, pragmaNumber } from "./maintenance.ts";
import { BUSY_TIMEOUT_WRITE_MS } from "../constants.ts";
import { syncDir } from "../fs.ts";
import { dirname } from "../posix.ts";

export interface DeleteFacts {
  /** Bytes of archived blocks (what the store holds for it, compressed). */
  bytes: number;
  transcriptPath: string | null;
  /** Prompts the decision log holds under the session's id. */
  prompts: number;
}

export function deleteFacts(db: Db, sessionNo: number, sessionId: string | null): DeleteFacts {
  const b = db.prepare(
    "SELECT COALESCE(sum(length(bytes)), 0) AS n FROM blocks WHERE session_no = ?",
  ).get(sessionNo) as { n: number };
  const m = db.prepare("SELECT transcript_path AS p FROM session_meta WHERE session_no = ?")
    .get(sessionNo) as { p: string | null } | undefined;
  const prompts = sessionId === null ? 0 : (db.prepare(
    "SELECT count(*) AS n FROM decisions WHERE session_id = ?",
  ).get(sessionId) as { n: number }).n;
  return { bytes: b.n, transcriptPath: m?.p ?? null, prompts };
}

/**
 * Removes the sessions (children before their parent, so the parent's prompts go once no
 * other top-level transcript carries its id) and writes a tombstone for each, in one
 * transaction: a kill at any point leaves all of them or none. Returns the logged prompts
 * that went. `secure_delete` zeroes the removed cells, so the free pages hold no text.
 */
export function deleteWithTombstones(
  db: Db,
  sessionNos: number[],
  tombstones: Tombstone[],
): number {
  db.exec("PRAGMA secure_delete = ON");
  try {
    return transaction(db, () => {
      let prompts = 0;
      for (const no of sessionNos) {
        prompts += deleteSession(db, no);
        dropTail(db, no);
      }
      for (const t of tombstones) putTombstone(db, t);
      return prompts;
    });
  } finally {
    db.exec("PRAGMA secure_delete = OFF");
  }
}

/** The pass's record of the file's last bytes goes with the session (a later one may reuse the number). */
function dropTail(db: Db, sessionNo: number): void {
  const has = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'file_tails'")
    .get();
  if (has) db.prepare("DELETE FROM file_tails WHERE session_no = ?").run(sessionNo);
}

function openSnapshot(path: string, readOnly: boolean): Db {
  // a plain connection: a snapshot stands alone in a rollback journal, and openWrite would
  // switch it to WAL and run the schema steps
  const db = new DatabaseSync(path, { readOnly });
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_WRITE_MS}`);
  return db;
}

/** The session numbers a snapshot holds under these keys. */
function heldIn(db: Db, keys: string[]): { no: number; key: string }[] {
  if (keys.length === 0) return [];
  return db.prepare(
    `SELECT session_no AS no, session_key AS key FROM sessions
     WHERE session_key IN (${keys.map(() => "?").join(",")}) ORDER BY session_no`,
  ).all(...keys) as { no: number; key: string }[];
}

/**
 * A journal beside a snapshot is what an earlier build left when it was killed while changing
 * the snapshot in place (this one never does): SQLite refuses a read-only open while that
 * journal is hot. It is rolled back here, by a read-write open's first read, so the snapshot
 * is again what it was before that change. Returns whether there was one.
 */
export function rollBackJournal(path: string): boolean {
  try {
    if (Deno.statSync(`${path}-journal`).size === 0) return false;
  } catch {
    return false;
  }
  const db = openSnapshot(path, false);
  try {
    db.prepare("SELECT count(*) FROM sqlite_master").get();
  } finally {
    db.close();
  }
  return true;
}

/** How many of these session keys a snapshot file holds. */
export function snapshotHolds(path: string, keys: string[]): number {
  rollBackJournal(path);
  const db = openSnapshot(path, true);
  try {
    return heldIn(db, keys).length;
  } finally {
    db.close();
  }
}

export interface SnapshotCleared {
  sessions: number;
  /** Free pages left because the snapshot was made without incremental vacuum. */
  stranded: number;
}

/** Where a snapshot's cleared copy is written before it is renamed over the snapshot. */
const CLEARING = ".partial";

/**
 * Deletes these sessions from one snapshot as from the store (tombstones included, so a
 * restored snapshot does not archive them again), zeroing their cells, then gives the freed
 * pages back (incremental vacuum; VACUUM needs permissions Terminus never runs with).
 * Children are deleted before their parents, as `keys` orders them.
 *
 * The snapshot is never changed in place: the deletion is made in a copy beside it, which is
 * synced and renamed over it, so a kill at any point leaves the old snapshot or the new one,
 * whole, and no journal. What a killed run left (the copy, its journal) goes first; the caller
 * holds the ingest lock, so no other run is making it.
 */
export function clearFromSnapshot(
  path: string,
  keys: string[],
  tombstones: Tombstone[],
): SnapshotCleared {
  rollBackJournal(path);
  const copy = path + CLEARING;
  for (const f of [copy, `${copy}-journal`]) {
    try {
      Deno.removeSync(f);
    } catch { /* none left */ }
  }
  {
    const db = openSnapshot(path, true);
    try {
      if (heldIn(db, keys).length === 0) return { sessions: 0, stranded: 0 };
    } finally {
      db.close();
    }
  }
  Deno.copyFileSync(path, copy);
  try {
    const db = openSnapshot(copy, false);
    let out: SnapshotCleared;
    try {
      out = clearIn(db, keys, tombstones);
    } finally {
      db.close();
    }
    const f = Deno.openSync(copy, { read: true, write: true });
    try {
      f.syncSync();
    } finally {
      f.close();
    }
    Deno.renameSync(copy, path);
    syncDir(dirname(path));
    return out;
  } catch (e) {
    for (const f of [copy, `${copy}-journal`]) {
      try {
        Deno.removeSync(f);
      } catch { /* never written */ }
    }
    throw e;
  }
}

function clearIn(db: Db, keys: string[], tombstones: Tombstone[]): SnapshotCleared {
  const order = new Map(keys.map((k, i) => [k, i]));
  const held = heldIn(db, keys).sort((a, b) => order.get(a.key)! - order.get(b.key)!);
  if (held.length === 0) return { sessions: 0, stranded: 0 };
  deleteWithTombstones(db, held.map((h) => h.no), tombstones);
  mergeSearchIndex(db);
  if (pragmaNumber(db, "PRAGMA auto_vacuum") === 0) {
    return { sessions: held.length, stranded: pragmaNumber(db, "PRAGMA freelist_count") };
  }
  for (const _ of db.prepare("PRAGMA incremental_vacuum").iterate()) { /* stepping */ }
  return { sessions: held.length, stranded: 0 };
}
