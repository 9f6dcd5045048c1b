/**
 * Snapshots: rolling complete copies of the store in `<data>/snapshots`. The time is in the
 * file name, so the folder alone says which is newest.
 */
import { join } from "../posix.ts";
import { backup, DatabaseSync } from "node:sqlite";
import type { Db } from "./db.ts";
import { DIR_MODE, FILE_MODE, HOUR_MS } from "../constants.ts";
import { SNAPSHOT_DIR } from "../paths.ts";

const NAME = /^terminus-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2}\.\d{3})Z\.db$/;
/** Written under this suffix and renamed when complete, so a killed copy is never a snapshot. */
const PARTIAL = ".partial";

export interface Snapshot {
  name: string;
  path: string;
  at: Date;
}

export function snapshotDir(dataDir: string): string {
  return join(dataDir, SNAPSHOT_DIR);
}

/** `terminus-2026-11-30T03-04-05.123Z.db`: sorts by time and has no ':' in it. */
export function snapshotName(at: Date): string {
  return `terminus-${at.toISOString().replaceAll(":", "-")}.db`;
}

/** The snapshots in the folder, oldest first; names of any other shape are not ours. */
export function listSnapshots(dataDir: string): Snapshot[] {
  const dir = snapshotDir(dataDir);
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => e.isFile).map((e) => e.name);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  const out: Snapshot[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const at = new Date(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`);
    if (!Number.isNaN(at.getTime())) out.push({ name, path: join(dir, name), at });
  }
  return out.sort((a, b) => a.at.getTime() - b.at.getTime() || (a.name < b.name ? -1 : 1));
}

/** Due when no snapshot is younger than the interval. */
export function snapshotDue(dataDir: string, intervalHours: number, now: Date): boolean {
  const list = listSnapshots(dataDir);
  if (list.length === 0) return true;
  return now.getTime() - list[list.length - 1].at.getTime() >= intervalHours * HOUR_MS;
}

/**
 * Copies the store into the snapshots folder (0700) as a 0600 file, with SQLite's online
 * backup. (VACUUM INTO would attach a database, which node:sqlite refuses without
 * --allow-all.) The file is created first with its mode, the copy written into it under a
 * partial name, set to a rollback journal so it stands alone, then renamed. Returns its path.
 */
export async function takeSnapshot(db: Db, dataDir: string, now: Date): Promise<string> {
  const dir = snapshotDir(dataDir);
  // never `recursive`: a data directory removed during the pass must not be made again here
  try {
    Deno.mkdirSync(dir, { mode: DIR_MODE });
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
  }
  for (const e of Deno.readDirSync(dir)) {
    // a copy a killed pass left half-written; we hold the ingest lock, so none is in progress
    if (e.isFile && e.name.startsWith("terminus-") && e.name.includes(PARTIAL)) {
      Deno.removeSync(join(dir, e.name));
    }
  }
  const path = join(dir, snapshotName(now));
  const partial = path + PARTIAL;
  Deno.openSync(partial, { write: true, createNew: true, mode: FILE_MODE }).close();
  try {
    await backup(db, partial);
    const copy = new DatabaseSync(partial);
    try {
      copy.exec("PRAGMA journal_mode = DELETE");
    } finally {
      copy.close();
    }
    Deno.renameSync(partial, path);
  } catch (e) {
    // On a full disk the half copy is what keeps it full: the next pass could archive
    // nothing and record no run. It goes now, with any journal SQLite left beside it.
    for (const f of [partial, `${partial}-journal`, `${partial}-wal`, `${partial}-shm`]) {
      try {
        Deno.removeSync(f);
      } catch { /* never written */ }
    }
    throw e;
  }
  return path;
}

/** Deletes the oldest snapshots past `keep`; returns how many went. */
export function pruneSnapshots(dataDir: string, keep: number): number {
  const list = listSnapshots(dataDir);
  const gone = list.slice(0, Math.max(0, list.length - keep));
  for (const s of gone) Deno.removeSync(s.path);
  return gone.length;
}
