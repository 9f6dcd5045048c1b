/**
 * What a `data move` killed part way leaves, and how the next run finds it. The move writes two
 * records before it records the new location: in the new place, inside its staging folder,
 * where the data came from (MOVED_FROM); in the old place, where it went (MOVED_AWAY). Once the
 * location is recorded the old copy is stale; a move killed before it is deleted leaves both
 * records, and the next `data move` or pass at the new place deletes the old copy, but only
 * while it still carries the record naming this place and its store was not written since.
 */
import { join } from "../posix.ts";
import { syncDir } from "../fs.ts";
import { FILE_MODE } from "../constants.ts";
import { canonical, MOVE_STAGING } from "./target.ts";

/** In the staging folder of the new place: JSON `{ from, link }` (link: a symlink to `from`). */
export const MOVED_FROM = "moved-from.json";
/** In the old data directory: the path it was copied to, one line. */
export const MOVED_AWAY = ".terminus-moved-away";

interface MovedFrom {
  from: string;
  link: string | null;
}

function writeSynced(path: string, text: string): void {
  const f = Deno.openSync(path, { write: true, create: true, truncate: true, mode: FILE_MODE });
  try {
    const bytes = new TextEncoder().encode(text);
    let off = 0;
    while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
    f.syncSync();
  } finally {
    f.close();
  }
}

/** Both records, written and synced before the new location is. */
export function markMove(real: string, link: string | null, target: string): void {
  const rec: MovedFrom = { from: real, link };
  writeSynced(join(target, MOVE_STAGING, MOVED_FROM), JSON.stringify(rec) + "\n");
  writeSynced(join(real, MOVED_AWAY), target + "\n");
  syncDir(real);
}

/**
 * Deletes the old copy: everything but its record first, then the record, then the folder and
 * the link to it. A kill at any point leaves the record (or an empty folder) for the next run.
 */
export function deleteOldCopy(real: string, link: string | null): void {
  for (const e of [...Deno.readDirSync(real)]) {
    if (e.name !== MOVED_AWAY) Deno.removeSync(join(real, e.name), { recursive: true });
  }
  try {
    Deno.removeSync(join(real, MOVED_AWAY));
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  Deno.removeSync(real);
  if (link !== null) removeLinkTo(link, real);
}

function removeLinkTo(link: string, real: string): void {
  try {
    if (!Deno.lstatSync(link).isSymlink) return;
    const to = Deno.readLinkSync(link);
    if (to === real || canonical(to) === real) Deno.removeSync(link);
  } catch { /* gone already */ }
}

/** The staging folder and its record, once the old copy is dealt with. */
export function clearStaging(target: string): void {
  try {
    Deno.removeSync(join(target, MOVE_STAGING, MOVED_FROM));
  } catch { /* not there */ }
  try {
    Deno.removeSync(join(target, MOVE_STAGING));
  } catch { /* not there, or holds something else: left alone */ }
}

function mtime(path: string): number | null {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? null;
  } catch {
    return null;
  }
}

/** True when `dir` is a folder with nothing in it. */
function emptyDir(dir: string): boolean {
  try {
    for (const _ of Deno.readDirSync(dir)) return false;
    return true;
  } catch {
    return false;
  }
}

/**
 * Run by `data move` and by every pass, holding the ingest lock, on the current data directory.
 * Finishes a move that recorded this place but was killed before the old copy was deleted, and
 * drops a stale MOVED_AWAY here (a move from here that never recorded its new place: this is
 * still the data directory). Returns notes for the run; a copy it will not delete is one.
 */
export function finishInterruptedMove(dataDir: string): string[] {
  const notes: string[] = [];
  const here = canonical(dataDir);
  try {
    Deno.removeSync(join(dataDir, MOVED_AWAY));
    notes.push(
      `a data move from ${dataDir} stopped before recording its new place; ${dataDir} is still the data directory`,
    );
  } catch { /* none: the usual case */ }
  const staging = join(dataDir, MOVE_STAGING);
  const recFile = join(staging, MOVED_FROM);
  let rec: MovedFrom;
  try {
    rec = JSON.parse(Deno.readTextFileSync(recFile));
  } catch {
    // no record: an empty staging folder alone (the last step of a move killed) goes too
    if (emptyDir(staging)) clearStaging(dataDir);
    return notes;
  }
  if (typeof rec?.from !== "string" || canonical(rec.from) === here) {
    clearStaging(dataDir);
    return notes;
  }
  const away = (() => {
    try {
      return Deno.readTextFileSync(join(rec.from, MOVED_AWAY)).trim();
    } catch {
      return null;
    }
  })();
  // strictly earlier: a store written in the same clock tick as the note counts as written since
  const marked = mtime(recFile) ?? 0;
  const written = Math.max(
    mtime(join(rec.from, "terminus.db")) ?? 0,
    mtime(join(rec.from, "terminus.db-wal")) ?? 0,
  );
  let gone = false;
  try {
    Deno.lstatSync(rec.from);
  } catch {
    gone = true;
  }
  if (gone) {
    if (rec.link !== null) removeLinkTo(rec.link, rec.from);
    notes.push(`finished an earlier data move to ${dataDir}: its old copy was already deleted`);
  } else if (away !== null && canonical(away) === here && written < marked) {
    deleteOldCopy(rec.from, rec.link);
    notes.push(`finished an earlier data move to ${dataDir}: deleted the old copy at ${rec.from}`);
  } else if (away === null && emptyDir(rec.from)) {
    Deno.removeSync(rec.from);
    if (rec.link !== null) removeLinkTo(rec.link, rec.from);
    notes.push(`finished an earlier data move to ${dataDir}: removed the emptied ${rec.from}`);
  } else {
    notes.push(
      `an earlier data move to ${dataDir} left ${rec.from}, which was written to since or no longer names this place; it was kept: delete it by hand once you have checked it`,
    );
  }
  clearStaging(dataDir);
  return notes;
}
