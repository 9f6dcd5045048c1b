/**
 * Backfill: size the work before it starts, then hand it to a detached process.
 * Sizing opens no transcript: it lists the folders (excluded projects skipped before any of
 * their files is looked at), stats each file and subtracts the watermark the store holds.
 * `terminus install` reuses both halves as its last step.
 */
import { type Config, isExcluded } from "../config.ts";
import { allTombstones, type Tombstone } from "../store/tombstones_sql.ts";
import { BACKFILL_NICENESS, BACKFILL_RATE_MB_S, RATE_SAMPLE_MIN_BYTES } from "../constants.ts";
import { measuredRate } from "../store/runs.ts";
import { progressLine } from "../progress.ts";
import type { Resolved } from "../resolve.ts";
import { backfillWorkArgv } from "../context.ts";
import { openRead } from "../store/db.ts";
import { allSessionStates, type SessionState } from "../store/archive.ts";
import { discover } from "../transcript/discover.ts";
import { keyFor } from "../transcript/session_key.ts";
import { ownSessionArgv, spawnDetached } from "../spawn.ts";

export interface BackfillSize {
  /** Transcripts found under the roots, outside excluded projects. */
  transcripts: number;
  /** Bytes past each transcript's watermark (the whole file for a session the store lacks). */
  bytes: number;
  /** The transcripts with bytes past their watermark: what the pass will archive. */
  pendingFiles: number;
  /** Folders that could not be listed and files that could not be sized, one line each. */
  problems: string[];
  /** The estimate, in seconds, at `rate`. */
  seconds: number;
  /** Bytes per second: what the last sizeable pass measured, else BACKFILL_RATE_MB_S. */
  rate: number;
  /** Where `rate` came from. */
  rateFrom: "last pass" | "bench";
}

/**
 * Counts what a whole-tree pass would read. Throws when the store cannot be opened (a newer
 * archive format, a file that is not a store); callers say the backfill could not be sized.
 */
export function sizeBackfill(r: Resolved): BackfillSize {
  let states = new Map<string, SessionState>();
  let tombstones = new Map<string, Tombstone>();
  let measured: number | null = null;
  const opened = openRead(r.store);
  if (opened) {
    try {
      states = allSessionStates(opened.db);
      tombstones = allTombstones(opened.db);
      measured = measuredRate(opened.db, RATE_SAMPLE_MIN_BYTES);
    } finally {
      opened.db.close();
    }
  }
  const size = sizeAgainst(r.cfg, r.roots, states, tombstones);
  if (measured === null) return size;
  return { ...size, rate: measured, rateFrom: "last pass", seconds: size.bytes / measured };
}

/** The one sizing rule, against the sessions a store holds (keyed by session_key, as the pass). */
export function sizeAgainst(
  cfg: Config,
  roots: string[],
  states: Map<string, SessionState>,
  /** Deleted sessions' tombstones, by key: the pass skips their transcripts. */
  tombstones: Map<string, Tombstone> = new Map(),
): BackfillSize {
  const r = { cfg, roots };
  const found = discover(r.roots, r.cfg.exclude);
  const problems = found.problems.map((p) => `${p}; nothing under it is counted or archived`);
  let transcripts = 0;
  let bytes = 0;
  let pendingFiles = 0;
  for (const f of found.files) {
    const key = keyFor(f.path).sessionKey;
    const state = states.get(key);
    // a session already filed under an excluded project is skipped by the pass, unread
    if (state && isExcluded(r.cfg, state.project)) continue;
    // a deleted session's transcript is skipped too (by key: sizing opens no file, and a
    // different transcript under a deleted key is too rare to be worth reading for)
    if (!state && tombstones.has(key)) continue;
    let size: number;
    try {
      size = Deno.statSync(f.path).size;
    } catch (e) {
      problems.push(`${f.path} cannot be sized: ${(e as Error).message}`);
      continue;
    }
    transcripts++;
    // the pass never re-reads an evicted or diverged session, so nothing of it is left to do
    if (state?.evicted || state?.diverged) continue;
    const left = Math.max(0, size - (state?.offset ?? 0));
    bytes += left;
    if (left > 0) pendingFiles++;
  }
  return {
    transcripts,
    bytes,
    pendingFiles,
    problems,
    seconds: estimateSeconds(bytes),
    rate: BACKFILL_RATE_MB_S * 1_000_000,
    rateFrom: "bench",
  };
}

/**
 * How far a pass in flight has got, from what its run row says (files walked, done, failed,
 * bytes read so far) and what is still past the watermarks now: one line for `status`, such
 * as "412 of 3100 files  120.3 of 900.2 MB  8.1 MB/s  ETA 1:36".
 */
export function runningProgress(
  r: Resolved,
  states: Map<string, SessionState>,
  run: {
    startedAt: string;
    filesSeen: number;
    filesCommitted: number;
    filesFailed: number;
    bytesRead: number;
  },
  now = Date.now(),
): string {
  const left = sizeAgainst(r.cfg, r.roots, states).bytes;
  const elapsed = Math.max(0, now - Date.parse(run.startedAt));
  const files = `${run.filesCommitted + run.filesFailed} of ${run.filesSeen} files`;
  return `${files}  ${
    progressLine("", "bytes", run.bytesRead, run.bytesRead + left, elapsed).trim()
  }`;
}

export function estimateSeconds(bytes: number): number {
  return bytes / (BACKFILL_RATE_MB_S * 1_000_000);
}

/** "nothing to read", "under a second", "about 42 s", "about 3 min 5 s", "about 2 h 10 min". */
export function humanEstimate(secs: number): string {
  if (secs === 0) return "nothing to read";
  if (secs < 1) return "under a second";
  return `about ${humanDuration(Math.round(secs))}`;
}

function humanDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/**
 * Starts `<self> backfill --work` in its own session and process group with no stdio, so it
 * outlives the command that started it, and returns without waiting. At BACKFILL_NICENESS, as
 * is its session's scheduling group (core/spawn.ts): the worker also lowers its own priority
 * first thing, for a worker started some other way.
 */
export function startBackfill(self: string[]): void {
  spawnDetached(backfillWorkArgv(self), { niceness: BACKFILL_NICENESS });
}

/** What setsid(1) runs for `startBackfill` (the deadline bench waits on it with `setsid -w`). */
export function backfillSessionArgv(self: string[]): string[] {
  return ownSessionArgv(backfillWorkArgv(self), BACKFILL_NICENESS);
}

/**
 * Install's first backfill: the same worker, started at normal priority with `--first`, so it
 * keeps it. A whole history read at the lowest priority starved behind the person's own work
 * (8 minutes for 331 files beside a test run), while the hooks' passes waited on its lock.
 */
export function startFirstBackfill(argv: string[], env?: Record<string, string>): void {
  spawnDetached(backfillWorkArgv(argv, true), env ? { env } : {});
}
