/**
 * Looking at the store without leaving a trace, for doctor, install and uninstall.
 *
 * A read-only SQLite connection still creates `-wal` and `-shm` beside a WAL database and
 * leaves them there, and the runtime refuses `immutable` URIs under Terminus's permissions,
 * so `openRead` is not "writes nothing". When the `-wal` file is missing or empty the main
 * file holds every committed page, so its bytes are read and deserialized into an
 * in-memory database (with the header's WAL flag cleared in that copy). When the `-wal`
 * holds pages a writer is about: the sidecars are already there, and a plain read-only
 * connection reads through them.
 */
import { DatabaseSync } from "node:sqlite";
import { exists } from "../posix.ts";
import { ARCHIVE_FORMAT, BUSY_TIMEOUT_READ_MS } from "../constants.ts";
import {
  type Db,
  newerArchiveMessage,
  olderArchiveMessage,
  readFormat,
  type StoreFormat,
} from "./db.ts";
import { type Counts, counts } from "./inspect.ts";
import { lastRun, type RunRow } from "./runs.ts";

export type Probe =
  | { kind: "absent" }
  | { kind: "empty" }
  | { kind: "older"; found: number; message: string }
  | { kind: "newer"; found: number; message: string }
  | { kind: "unreadable"; message: string }
  | { kind: "ok"; db: Db; format: StoreFormat };

/** SQLite's header bytes 18 and 19: the file format versions, 2 when the file is in WAL mode. */
const WRITE_VERSION_OFFSET = 18;
const READ_VERSION_OFFSET = 19;

function walBytes(path: string): number {
  try {
    return Deno.statSync(path + "-wal").size;
  } catch {
    return 0;
  }
}

/** null for an empty file. */
function openQuiet(path: string): Db | null {
  if (walBytes(path) > 0) {
    const db = new DatabaseSync(path, { readOnly: true });
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_READ_MS}`);
    return db;
  }
  const bytes = Deno.readFileSync(path);
  if (bytes.length === 0) return null;
  if (bytes.length > READ_VERSION_OFFSET && bytes[WRITE_VERSION_OFFSET] === 2) {
    bytes[WRITE_VERSION_OFFSET] = 1;
    bytes[READ_VERSION_OFFSET] = 1;
  }
  const db = new DatabaseSync(":memory:");
  db.deserialize(bytes);
  return db;
}

/** Opens the store for reading without creating any file. The caller closes an `ok` db. */
export function probeStore(path: string): Probe {
  if (!exists(path)) return { kind: "absent" };
  let db: Db;
  try {
    const opened = openQuiet(path);
    if (!opened) return { kind: "empty" };
    db = opened;
  } catch (e) {
    return { kind: "unreadable", message: `${path} cannot be opened: ${(e as Error).message}` };
  }
  let format;
  try {
    format = readFormat(db);
  } catch (e) {
    db.close();
    return { kind: "unreadable", message: `${path} cannot be opened: ${(e as Error).message}` };
  }
  if (!format) {
    let tables = 1;
    let detail = "is not a Terminus store (no archive format recorded)";
    try {
      tables = (db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number }).n;
    } catch (e) {
      detail = `cannot be opened: ${(e as Error).message}`;
    }
    db.close();
    if (tables === 0) return { kind: "empty" };
    return { kind: "unreadable", message: `${path} ${detail}` };
  }
  if (format.archiveFormat < ARCHIVE_FORMAT) {
    db.close();
    return {
      kind: "older",
      found: format.archiveFormat,
      message: olderArchiveMessage(path, format.archiveFormat),
    };
  }
  if (format.archiveFormat > ARCHIVE_FORMAT) {
    db.close();
    return {
      kind: "newer",
      found: format.archiveFormat,
      message: newerArchiveMessage(path, format.archiveFormat),
    };
  }
  return { kind: "ok", db, format };
}

/** Counts, or the reason they could not be read. */
export function probeCounts(db: Db): Counts | string {
  try {
    return counts(db);
  } catch (e) {
    return (e as Error).message;
  }
}

/** The last run (null when none), or the reason the runs table could not be read. */
export function probeLastRun(db: Db): { row: RunRow | null } | { failure: string } {
  try {
    return { row: lastRun(db) };
  } catch (e) {
    return { failure: (e as Error).message };
  }
}
