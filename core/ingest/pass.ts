/**
 * The archive pass: housekeeping (recovery and upgrades), discovery, the windowed archive
 * pipeline committing files in batches, then lineage, closing and the caller's steps, with
 * one run row recording it. The pieces are in housekeeping.ts, pipeline.ts and batch.ts.
 */
import { dirname } from "../posix.ts";
import type { Config } from "../config.ts";
import { RUN_PROGRESS_MS } from "../constants.ts";
import { checkpoint, type Db } from "../store/db.ts";
import { beginRun, finishRun, progressRun, recordStopCause, type RunRow } from "../store/runs.ts";
import { discover, type Found, listSorted } from "../transcript/discover.ts";
import { Listings } from "../transcript/listing.ts";
import { ensureListings, readListings, writeListings } from "../store/listings.ts";
import { archiveOrder } from "./order.ts";
import { notePassFinished } from "./stall.ts";
import { keyFor } from "../transcript/session_key.ts";
import { storePath } from "../paths.ts";
import { LOCK_HELD, withLockedStore } from "../store/lock.ts";
import { clearLeftovers } from "./leftovers.ts";
import {
  dropFailureRecords,
  readFailureRecords,
  reserveFailureRecord,
  type StopCause,
  writeFailureRecord,
} from "./failure.ts";
import { missingTranscript } from "./missing.ts";
import { ensureTails } from "../store/tails.ts";
import { ensureFacts } from "../store/observations_sql.ts";
import { readSeen } from "../store/seen.ts";
import { ensurePassIndexes } from "../store/pass_indexes.ts";
import type { ProgressFactory } from "../progress.ts";
import { allTombstones } from "../store/tombstones_sql.ts";
import {
  afterArchiving,
  type AfterCloseContext,
  beforeArchiving,
  mergeAfterBulk,
} from "./housekeeping.ts";
import { Archiver } from "./pipeline.ts";
import { NotPlainFile } from "../plain_file.ts";

export type { AfterCloseContext };

export interface PassInput {
  cfg: Config;
  dataDir: string;
  roots: string[];
  /** Archive just this file (`terminus ingest <path>`), skipping the whole-tree steps. */
  only?: string;
  now?: Date;
  /** Extra whole-tree steps (observe, retention, snapshot) run after closing. */
  afterClose?: (db: Db, ctx: AfterCloseContext) => Promise<void> | void;
  /** Bytes archived of those waiting, for a person watching a terminal. */
  progress?: ProgressFactory;
  /** Wraps the store connection the pass uses (tests count the statements it runs). */
  instrument?: (db: Db) => Db;
}

export interface PassResult {
  /** False when another process held the lock: nothing was done. */
  ran: boolean;
  run: RunRow | null;
  /** Lines for stderr: files that could not be read, folders that could not be listed. */
  problems: string[];
  /** `ingest <path>` on a file inside an excluded project. */
  excludedOnly: boolean;
  /** `ingest <path>`: the file could not be archived. */
  onlyFailed: boolean;
  /** The data directory was removed or replaced during the pass: why, for the exit-1 reason. */
  lost?: string;
  /** Closed sessions left for a later pass to observe. */
  backlog: number;
}

/** Runs one pass. Returns `ran: false` at once when another process holds the lock. */
export async function runPass(input: PassInput): Promise<PassResult> {
  const now = input.now ?? new Date();
  let r;
  try {
    r = await withLockedStore(
      input.dataDir,
      storePath(input.dataDir),
      (db) => passUnderLock(input.instrument ? input.instrument(db) : db, { ...input, now }),
    );
  } catch (e) {
    // the store refused even the run row (a full disk): the cause goes where it fits
    writeFailureRecord(input.dataDir, now.toISOString(), (e as Error).message);
    throw e;
  }
  if (r === LOCK_HELD) {
    return {
      ran: false,
      run: null,
      problems: [],
      excludedOnly: false,
      onlyFailed: false,
      backlog: 0,
    };
  }
  notePassFinished(input.dataDir);
  return r;
}

async function passUnderLock(db: Db, input: PassInput): Promise<PassResult> {
  const now = input.now ?? new Date();
  const t0 = performance.now();
  const pass = new Archiver(db, input);
  const home = homeOf(input.dataDir);
  const start = await beforeTheWalk(db, input, pass, now);
  const problems: string[] = [];
  const found = filesToWalk(db, input, pass, problems);
  const run: RunRow = {
    startedAt: now.toISOString(),
    durationMs: 0,
    filesSeen: found.walked,
    filesCommitted: 0,
    filesFailed: 0,
    bytesRead: 0,
    turnsAdded: 0,
    error: null,
    notes: null,
  };
  const walked = await walk(db, input, pass, found.files, start.runId, run, problems);
  noteSkipped(input, pass, found.excluded + walked.excluded);

  // Removed mid-pass, the store is an unlinked file: every later step would write into nothing
  // (and the snapshot would make the folder again), so the pass stops and says so.
  let lost = homeLost(input.dataDir, home);
  const backlog = input.only || lost ? 0 : await afterArchiving(db, {
    afterClose: input.afterClose,
    now,
    committed: run.filesCommitted,
    died: start.died,
    notes: pass.notes,
    errors: pass.errors,
  });

  lost ??= homeLost(input.dataDir, home);
  if (!input.only && !lost) mergeAfterBulk(db, run.turnsAdded, pass.errors);
  if (lost) pass.errors.push(lost);
  run.durationMs = Math.round(performance.now() - t0);
  run.error = pass.errors.length ? pass.errors.join("\n") : null;
  run.notes = pass.notes.length ? pass.notes.join("\n") : null;
  finishRun(db, start.runId, run);
  dropFailureRecords(input.dataDir, start.unrecorded); // this run's error names them now
  if (run.filesCommitted > 0) checkpoint(db);
  // every error the run row records is shown as well, a failed step's included
  const shown = [...problems, ...pass.errors.filter((e) => !problems.includes(e))];
  return {
    ran: true,
    run,
    problems: shown,
    excludedOnly: walked.excludedOnly,
    onlyFailed: walked.onlyFailed,
    lost: lost ?? undefined,
    backlog,
  };
}

/** What the pass found before it walked the files: its run row, and earlier passes' ends. */
interface Start {
  runId: number;
  /** An earlier pass's row was still in flight: it died or was killed. */
  died: boolean;
  /** Causes the store could not take yet (their passes left no row); the run's error names them. */
  unrecorded: StopCause[];
}

/**
 * Before the walk: the run row, the causes earlier passes left, leftovers, the tables a pass
 * makes on first use, recovery and upgrades, and what the pass last saw of every session.
 */
async function beforeTheWalk(
  db: Db,
  input: PassInput,
  pass: Archiver,
  now: Date,
): Promise<Start> {
  reserveFailureRecord(input.dataDir);
  const begun = beginRun(db, now.toISOString());
  // every cause recorded since the last pass that finished, each over its row's "died" mark
  // where it has one; a cause leaves the record only once the store keeps it
  const stopped = readFailureRecords(input.dataDir);
  const inRows: StopCause[] = [];
  const unrecorded: StopCause[] = [];
  for (const s of stopped) {
    if (recordStopCause(db, s.startedAt, `this pass stopped: ${s.error}`)) {
      inRows.push(s);
      pass.errors.push(`the pass started at ${s.startedAt} stopped: ${s.error}`);
    } else {
      unrecorded.push(s);
      pass.errors.push(
        `the pass started at ${s.startedAt} stopped before recording its run: ${s.error}`,
      );
    }
  }
  dropFailureRecords(input.dataDir, inRows);
  for (const at of begun.died) {
    if (stopped.some((s) => s.startedAt === at)) continue;
    pass.errors.push(`the pass started at ${at} did not finish: its process died or was killed`);
  }
  const left = clearLeftovers(input.dataDir);
  pass.notes.push(...left.notes);
  pass.errors.push(...left.errors);

  ensureTails(db);
  ensurePassIndexes(db);
  ensureFacts(db);
  ensureListings(db);
  // what the pass last saw of every session, which also says whether recovery is due; read
  // again only when recovery or an upgrade changed something
  const withProject = input.cfg.exclude.length > 0;
  let seen = readSeen(db, withProject);
  if (await beforeArchiving(db, seen.recoveryDue, pass.notes, pass.errors)) {
    seen = readSeen(db, withProject);
  }
  pass.seen = seen.rows;
  pass.tombstones = allTombstones(db);
  return { runId: begun.id, died: begun.died.length > 0, unrecorded };
}

/** The files to walk, in archive order, and how many excluded folders discovery passed over. */
function filesToWalk(
  db: Db,
  input: PassInput,
  pass: Archiver,
  problems: string[],
): { files: Found[]; walked: number; excluded: number } {
  if (input.only) {
    // the project folder comes from the path's shape, so a sidecar below an excluded
    // project's folder is skipped before it is opened, as the whole-tree pass skips it
    const folder = keyFor(input.only).projectFolder ?? dirname(input.only);
    return { files: [{ path: input.only, projectFolder: folder }], walked: 1, excluded: 0 };
  }
  // folders whose names cannot have changed since the last pass are not listed again
  const listings = new Listings(readListings(db), listSorted);
  const d = discover(input.roots, input.cfg.exclude, listings.entries);
  const kept = listings.changes();
  try {
    writeListings(db, kept.put, kept.drop);
  } catch {
    // only a saving for the next pass, which then lists those folders again
  }
  // a deleted session's transcript counts as known: it is skipped unread, not numbered
  // files exactly as the last look left them are passed over here, one lstat each
  const files = archiveOrder(pass.unsettled(d.files), (f) => {
    const k = pass.keyOf(f).sessionKey;
    return pass.known(k) || pass.tombstones.has(k);
  });
  for (const p of d.problems) {
    pass.errors.push(p);
    problems.push(p);
  }
  return { files, walked: d.files.length, excluded: d.excludedFolders };
}

/** What the walk tallied beyond the run row's counts. */
interface Walked {
  excluded: number;
  excludedOnly: boolean;
  onlyFailed: boolean;
}

/** Archives the files, counting into `run` and writing its progress now and then. */
async function walk(
  db: Db,
  input: PassInput,
  pass: Archiver,
  files: Found[],
  runId: number,
  run: RunRow,
  problems: string[],
): Promise<Walked> {
  const w: Walked = { excluded: 0, excludedOnly: false, onlyFailed: false };
  // the run row shows a running pass's progress to `status`, written now and then as it goes
  let progressAt = performance.now();
  progressRun(db, runId, run);
  const committedFiles = new Set<string>();
  const progress = input.progress
    ? input.progress("archiving", pass.waiting(files), "bytes")
    : null;
  await pass.archiveAll(files, (f, r) => {
    if (!(r instanceof Error)) progress?.add(r.bytesRead);
    if (r instanceof Error) {
      run.filesFailed++;
      const msg = r instanceof Deno.errors.NotFound
        ? missingTranscript(f.path)
        : r instanceof NotPlainFile
        ? r.message // a link to a FIFO, a device or a folder: never opened for reading
        : `${f.path}: ${r.message}`;
      pass.errors.push(msg);
      problems.push(msg);
      if (input.only) w.onlyFailed = true;
      return;
    }
    if (r.excluded) {
      w.excluded++;
      if (input.only) w.excludedOnly = true;
    }
    // a file read in several windows is reported once per window: count the file once
    if (r.committed && !committedFiles.has(f.path)) {
      committedFiles.add(f.path);
      run.filesCommitted++;
    }
    run.bytesRead += r.bytesRead;
    run.turnsAdded += r.turnsAdded;
    if (performance.now() - progressAt >= RUN_PROGRESS_MS) {
      progressAt = performance.now();
      progressRun(db, runId, run);
    }
  });
  progress?.finish();
  progressRun(db, runId, run); // every file done; closing and observing may still take a while
  return w;
}

/** The walk's notes: unreadable lines, files of deleted sessions, excluded files skipped. */
function noteSkipped(input: PassInput, pass: Archiver, excluded: number): void {
  if (pass.unreadable > 0) {
    pass.notes.push(
      `${pass.unreadable} line(s) are neither a JSON record nor records glued together; they are archived as they are, and nothing is read from them`,
    );
  }
  if (pass.buriedFiles.size > 0) {
    pass.notes.push(
      `${pass.buriedFiles.size} transcript(s) skipped: their sessions were deleted with terminus sessions delete`,
    );
  }
  if (excluded > 0 && !input.only) {
    pass.notes.push(`${excluded} transcript folder(s) or file(s) in excluded projects skipped`);
  }
}

/** The data directory's and the store's identity as the pass starts. */
function homeOf(dataDir: string): { dir: Deno.FileInfo | null; store: Deno.FileInfo | null } {
  const info = (p: string) => {
    try {
      return Deno.statSync(p);
    } catch {
      return null;
    }
  };
  return { dir: info(dataDir), store: info(storePath(dataDir)) };
}

/** Why the pass no longer writes where it started (the folder or store gone or replaced), or null. */
function homeLost(dataDir: string, was: ReturnType<typeof homeOf>): string | null {
  const now = homeOf(dataDir);
  const same = (a: Deno.FileInfo | null, b: Deno.FileInfo | null) =>
    a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;
  if (was.dir === null || was.store === null) return null; // nothing to compare with
  if (now.dir === null) {
    return `the data directory ${dataDir} was removed during the pass; what it archived is lost with it, and nothing was made again (the next pass starts a new store)`;
  }
  if (!same(was.dir, now.dir) || !same(was.store, now.store)) {
    return `the data directory ${dataDir} was replaced during the pass (its store is not the one the pass opened); what it archived went to the old store`;
  }
  return null;
}
