/**
 * The archive pass: recovery, discovery, files committed in batches (a savepoint each), then lineage and closing.
 * A file that fails is recorded and the pass goes on; nothing archived is ever rewritten
 * except the trailing partial block.
 */
import { basename, dirname } from "../posix.ts";
import { type Config, isExcluded } from "../config.ts";
import {
  CLOSE_AFTER_MS,
  LINE_CAP_BYTES,
  LINEAGE_MARK,
  PASS_BATCH_BYTES,
  PASS_BATCH_MS,
  PASS_WINDOW_BYTES,
  READY_OBSERVATION_CHARS,
  REWRITE_CHECK_BYTES,
  RUN_PROGRESS_MS,
} from "../constants.ts";
import {
  beginWrite,
  checkpoint,
  clearRebuildPending,
  commitWrite,
  type Db,
  DERIVED_SHAPE_SINCE,
  rebuildPendingFrom,
  transaction,
} from "../store/db.ts";
import {
  allSessionStates,
  appendSession,
  markDiverged,
  readsTrailingBlock,
  type SessionState,
} from "../store/blocks.ts";
import { beginRun, finishRun, progressRun, recordStopCause, type RunRow } from "../store/runs.ts";
import {
  closeSessions,
  recoverWatermarks,
  recoveryDue,
  resolveContinuations,
} from "../store/lineage.ts";
import { fillTitles, rebuildDerived } from "../index/reindex.ts";
import { titlesFillPending } from "../store/sessions_sql.ts";
import { initCodec, initFramer, initReader } from "../store/codec.ts";
import { discover, folderExcluded, type Found } from "../transcript/discover.ts";
import { archiveOrder } from "./order.ts";
import { notePassFinished } from "./stall.ts";
import { keyFor, type KeyInfo } from "../transcript/session_key.ts";
import type { ChunkInput } from "./chunk.ts";
import type { Derived, DeriveJob } from "./derive_job.ts";
import { InlineDeriver, type Outcome, PassDeriver } from "./deriver.ts";
import type { ReadyObservation } from "../observe/step.ts";
import { ProjectResolver } from "../transcript/project.ts";
import { storePath } from "../paths.ts";
import { LOCK_HELD, withLockedStore } from "./lock.ts";
import { migrateAgentKeys } from "./migrate.ts";
import { clearLeftovers } from "./leftovers.ts";
import { reserveFailureRecord, takeFailureRecord, writeFailureRecord } from "./failure.ts";
import { missingTranscript } from "./missing.ts";
import { type FtsRow, insertFts } from "../store/derived.ts";
import { allTails, ensureTails, putTail, type Tail, tailHash } from "../store/tails.ts";
import { ensurePassIndexes } from "../store/pass_indexes.ts";
import { rollback } from "../store/rollback.ts";
import { nextWindow, readRange } from "./window.ts";
import type { ProgressFactory } from "../progress.ts";
import { allTombstones, type Tombstone } from "../store/tombstones_sql.ts";
import { buried } from "./tombstone.ts";

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
  /**
   * Facts taken while archiving, carried from pass to pass by a process that runs several
   * (the backfill's worker), so a session closed and left for a later pass is observed
   * without reading its blocks back. Entries are taken out once observed.
   */
  ready?: Map<number, ReadyObservation>;
  /** Wraps the store connection the pass uses (tests count the statements it runs). */
  instrument?: (db: Db) => Db;
}

export interface AfterCloseContext {
  closed: number[];
  /** Sessions observed as this pass archived them whole, by session_no. */
  observed: Map<number, ReadyObservation>;
  now: Date;
  notes: string[];
  errors: string[];
  /** Set by the observe step: closed sessions it left for a later pass. */
  backlog: number;
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

interface FileOutcome {
  committed: boolean;
  bytesRead: number;
  turnsAdded: number;
  note?: string;
  excluded?: boolean;
}

class Pass {
  resolver = new ProjectResolver();
  notes: string[] = [];
  errors: string[] = [];
  states: Map<string, SessionState>;
  tails = new Map<number, Tail>();
  observed: Map<number, ReadyObservation>;
  /** Characters of JSON `observed` holds (READY_OBSERVATION_CHARS at most). */
  observedChars = 0;
  /** The batch's search-index rows, written just before it commits (see `writeDerived`). */
  fts: FtsRow[] = [];
  /** Session keys whose earlier window this pass was observed and written. */
  observing = new Set<string>();
  /** Sessions `terminus sessions delete` removed, by key, and the files this pass skipped for them. */
  tombstones = new Map<string, Tombstone>();
  buriedFiles = new Set<string>();

  constructor(readonly db: Db, readonly input: PassInput) {
    this.states = new Map(); // read after recovery, which may change watermarks
    this.observed = input.ready ?? new Map();
    for (const r of this.observed.values()) this.observedChars += r.mechanical.length;
  }

  /** Steps 1-2 of a file: what is new in it, read (no record parsed yet), or why nothing is. */
  prepare(found: Found, key: KeyInfo): Prepared | FileOutcome {
    const { cfg } = this.input;
    if (this.input.only && folderExcluded(basename(found.projectFolder), cfg.exclude)) {
      return { committed: false, bytesRead: 0, turnsAdded: 0, excluded: true };
    }
    const state = this.states.get(key.sessionKey) ?? null;
    const tomb = state ? undefined : this.tombstones.get(key.sessionKey);
    if (tomb && buried(tomb, found.path)) {
      this.buriedFiles.add(found.path);
      return { committed: false, bytesRead: 0, turnsAdded: 0 };
    }
    if (state && isExcluded(cfg, state.project)) {
      return { committed: false, bytesRead: 0, turnsAdded: 0, excluded: true };
    }
    // an evicted session's stream is gone: new bytes would be appended after missing ones
    if (state?.evicted) return { committed: false, bytesRead: 0, turnsAdded: 0 };
    const info = Deno.statSync(found.path);
    const size = info.size;
    const mtimeMs = info.mtime?.getTime() ?? null;
    const offset = state?.offset ?? 0;
    if (state?.diverged) {
      // the file no longer holds what was archived: it goes on as a new lineage, from byte 0
      return this.prepare(found, { ...key, sessionKey: nextLineage(key.sessionKey) });
    }
    const changed = state ? this.rewritten(state, found.path, size, mtimeMs) : null;
    if (state && changed) {
      markDiverged(this.db, state.sessionNo);
      this.states.set(key.sessionKey, { ...state, diverged: true });
      const next = nextLineage(key.sessionKey);
      this.notes.push(
        `${key.sessionKey}: the transcript ${changed}; flagged as diverged, the archive keeps what it held, and the file is archived again from its start as ${next}`,
      );
      return this.prepare(found, { ...key, sessionKey: next });
    }
    if (size === offset) return { committed: false, bytesRead: 0, turnsAdded: 0 };

    // one bounded window at a time: the caller comes back for the next one
    const w = nextWindow(found.path, offset, size);
    if (w.kind === "wait") return { committed: false, bytesRead: w.seen, turnsAdded: 0 };
    if (w.kind === "raw" && w.starts) {
      this.notes.push(
        `${key.sessionKey}: a line with no newline in its first ${LINE_CAP_BYTES} bytes starts at byte ${offset}; it is archived as bytes and not parsed`,
      );
    }
    // the bytes before the new watermark, kept now: the window itself goes to the deriver
    const upTo = offset + w.end;
    const len = Math.min(REWRITE_CHECK_BYTES, upTo);
    const tail = w.end >= len
      ? w.chunk.slice(w.end - len, w.end)
      : readRange(found.path, upTo - len, upTo);
    return {
      found,
      key,
      state,
      offset,
      size,
      mtimeMs,
      tail,
      raw: w.kind === "raw",
      input: {
        chunk: w.chunk,
        end: w.end,
        // The mode applies as records are archived; a session archived under two modes is
        // recorded as "mixed" (its file and stream offsets no longer line up for recovery).
        mode: cfg.capture.mode,
        streamOffset: state?.uncompressedLen ?? 0,
        turnSeq: state?.turnCount ?? 0,
        sidecar: key.isSidecar,
        sessionId: state?.sessionId ?? key.fileSessionId,
        cwd: state?.cwd ?? null,
      },
    };
  }

  /**
   * How the file's archived bytes changed, or null when they did not: it is shorter than the
   * watermark, or the bytes just before the watermark no longer hash as they did. Read only
   * when the size or mtime moved since the last look.
   */
  rewritten(state: SessionState, path: string, size: number, mtimeMs: number | null) {
    const offset = state.offset ?? 0;
    if (size < offset) return `is now ${size} byte(s), shorter than the ${offset} archived`;
    const t = this.tails.get(state.sessionNo);
    if (!t || t.offset !== offset) {
      // archived by an earlier build, or recovery moved the watermark: take the baseline now
      if (offset > 0) {
        const len = Math.min(REWRITE_CHECK_BYTES, offset);
        const bytes = readRange(path, offset - len, offset);
        const now = {
          sessionNo: state.sessionNo,
          offset,
          len,
          hash: tailHash(bytes),
          size,
          mtimeMs,
        };
        putTail(this.db, now);
        this.tails.set(state.sessionNo, now);
      }
      return null;
    }
    if (t.size === size && t.mtimeMs !== null && t.mtimeMs === mtimeMs) return null;
    const before = readRange(path, offset - t.len, offset);
    if (before.length !== t.len || tailHash(before) !== t.hash) {
      return `was rewritten: its bytes before ${offset} are not the ones archived`;
    }
    // unchanged: remember this look, unless the new bytes' commit is about to record a tail
    if (size === offset) {
      const seen = { ...t, size, mtimeMs };
      putTail(this.db, seen);
      this.tails.set(state.sessionNo, seen);
    }
    return null;
  }

  /** Records what the file held just before its new watermark, for the next pass to compare. */
  rememberTail(p: Prepared, sessionNo: number): void {
    const upTo = p.offset + p.input.end;
    const bytes = p.tail;
    const t = {
      sessionNo,
      offset: upTo,
      len: bytes.length,
      hash: tailHash(bytes),
      size: p.size,
      mtimeMs: p.mtimeMs,
    };
    putTail(this.db, t);
    this.tails.set(sessionNo, t);
  }

  /** Steps 3-4: the project, the exclusion check, and the file's one transaction. */
  async finish(p: Prepared, derived: Derived): Promise<FileOutcome> {
    const d = derived.out;
    const { cfg } = this.input;
    const { found, key, state, offset } = p;
    const mode = p.input.mode;
    let project = state?.project ?? null;
    let preWorktree: string | null = null;
    if (!project && d.cwd) {
      const info = await this.resolver.resolve(d.cwd);
      project = info.project;
      preWorktree = info.preWorktree;
    }
    if (isExcluded(cfg, project)) {
      return { committed: false, bytesRead: 0, turnsAdded: 0, excluded: true };
    }

    // a sidecar's agent-*.meta.json is not read: nothing but transcripts is opened
    let parentKey = key.parentKey;
    if (key.isSidecar && !parentKey && d.recordSessionId) {
      parentKey = `${d.recordSessionId}.jsonl`;
    }

    // loaded only once a file has bytes to write: a no-op pass never pays for them, and a
    // backfill of new sessions never loads the decoder
    await initFramer();
    if (readsTrailingBlock(this.db, key.sessionKey)) await initReader();
    const r = appendSession(this.db, {
      sessionKey: key.sessionKey,
      stream: d.stream,
      offset: offset + p.input.end,
      meta: {
        sessionId: d.sessionId,
        transcriptPath: found.path,
        firstTurnAt: d.firstTurnAt,
        lastTurnAt: d.lastTurnAt,
        cwd: d.cwd,
        project,
        projectPreWorktree: preWorktree,
        branch: d.branch,
        parentSessionKey: parentKey,
        agentMeta: null,
        continuesFrom: d.continuesFrom,
        firstParentUuid: d.firstParentUuid,
        captureMode: mode,
      },
      derived: d.derived,
      titles: d.titles,
      framed: derived.framed,
      fts: this.fts,
    });
    this.rememberTail(p, r.sessionNo);
    // kept for the observe step of this pass or (in the backfill's worker) a later one, up to
    // READY_OBSERVATION_CHARS, so the memory stays bounded however many sessions are archived;
    // a session past that is read back from its blocks when its turn comes
    if (derived.mechanical) {
      const old = this.observed.get(r.sessionNo);
      if (old) {
        this.observed.delete(r.sessionNo);
        this.observedChars -= old.mechanical.length;
      }
      const json = JSON.stringify(derived.mechanical);
      if (this.observedChars + json.length <= READY_OBSERVATION_CHARS) {
        this.observed.set(r.sessionNo, { streamLen: d.streamOffset, mechanical: json });
        this.observedChars += json.length;
      }
    }

    // keep the in-memory view current for files that share a key later in this pass
    this.states.set(key.sessionKey, {
      sessionNo: r.sessionNo,
      sessionKey: key.sessionKey,
      sessionId: d.sessionId,
      project,
      cwd: d.cwd,
      uncompressedLen: d.streamOffset,
      turnCount: d.turnSeq,
      offset: offset + p.input.end,
      streamLen: d.streamOffset,
      diverged: false,
      evicted: false,
      firstTurnAt: state?.firstTurnAt ?? d.firstTurnAt,
      captureMode: state && state.captureMode !== mode ? "mixed" : mode,
    });
    return { committed: true, bytesRead: p.input.end, turnsAdded: r.turnsAdded };
  }

  keyOf(found: Found): KeyInfo {
    return keyFor(found.path, this.input.only !== undefined || found.link === true);
  }

  /** Archives the files in order, one transaction each, reporting each file's outcome. */
  /** The bytes past the watermarks, for progress (one stat per file). */
  waiting(files: Found[]): number {
    let n = 0;
    for (const f of files) {
      try {
        const size = Deno.statSync(f.path).size;
        const key = this.keyOf(f).sessionKey;
        const state = this.states.get(key);
        if (!state && this.tombstones.has(key)) continue; // deleted: skipped, unread
        n += Math.max(0, size - (state?.offset ?? 0));
      } catch { /* it is reported when it is archived */ }
    }
    return n;
  }

  /** What the deriver is asked for one prepared window. */
  job(p: Prepared, last: boolean): DeriveJob {
    const k = p.key.sessionKey;
    return {
      key: k,
      input: p.input,
      raw: p.raw,
      observe: p.input.streamOffset === 0 ? "start" : this.observing.has(k) ? "continue" : "none",
      last,
    };
  }

  async archiveAll(
    files: Found[],
    done: (f: Found, r: FileOutcome | Error) => void,
  ): Promise<void> {
    // Files are committed in batches: each file's rows and watermark still go in together
    // (its own savepoint, so a file that fails takes nothing else with it), but FTS5 flushes
    // its segments once per batch instead of once per file. A pass killed mid-batch loses
    // only that batch's uncommitted work, which the next pass redoes from the watermarks; a
    // batch whose commit fails (a full disk) reports each of its files as failed.
    // A file is read one bounded window at a time, each window its own savepoint with its
    // rows and watermark, so a pass's memory does not grow with the file.
    // Windows are derived up to DERIVE_QUEUE_BYTES ahead of the one being written (on a worker
    // for a large pass). A window is prepared only once every earlier window of its session
    // is written, so it always starts from the watermark the store holds.
    const batch = new Batch(this.db, done, this.fts);
    const deriver = new PassDeriver();
    const queue: Slot[] = [];
    // prepares a file's next window and hands it to the deriver, or reports why none is due
    const enqueue = (f: Found, key: KeyInfo, windows: number, upTo: number): void => {
      // an unchanged file (a stat and a compare) opens no transaction: a pass with nothing new
      // writes nothing but its run row; the few writes `prepare` makes (a tail, a divergence
      // flag) commit on their own
      let p: Prepared | FileOutcome;
      try {
        p = this.prepare(f, key);
      } catch (e) {
        done(f, e as Error);
        return;
      }
      if (!("input" in p)) {
        // a partial line after committed windows is not news: count it once, as before
        if (windows === 0) batch.add(f, p);
        return;
      }
      batch.open();
      const until = Math.min(upTo, p.size);
      const last = p.offset + p.input.end >= until;
      const job = this.job(p, last);
      // a long line's window is derived here, so the queue never holds one; the deriver's
      // observer of this session does not see its record, so the session is read back instead
      const long = p.input.chunk.length > PASS_WINDOW_BYTES;
      if (long) job.observe = "none";
      const d = long ? new InlineDeriver().derive(job) : deriver.derive(job);
      queue.push({
        f,
        key,
        windows,
        upTo: until,
        last,
        observed: job.observe !== "none",
        p,
        derived: d,
      });
    };
    try {
      let next = 0;
      // keep the deriver up to DERIVE_QUEUE_BYTES ahead of the window being written; a file of
      // a session already queued or being written waits its turn
      const queued = () => queue.reduce((n, q) => n + q.p.input.end, 0);
      const topUp = (writing?: string) => {
        while (next < files.length && (queue.length === 0 || queued() < deriver.ahead())) {
          const f = files[next];
          const key = this.keyOf(f);
          const k = key.sessionKey;
          if (k === writing || queue.some((q) => q.key.sessionKey === k)) break;
          next++;
          enqueue(f, key, 0, Infinity);
        }
      };
      for (;;) {
        topUp();
        const s = queue.shift();
        if (!s) break;
        topUp(s.key.sessionKey);
        const o: Outcome = await s.derived;
        let r: FileOutcome;
        try {
          if ("error" in o) throw o.error;
          batch.open();
          r = await this.finish(s.p, o.derived);
        } catch (e) {
          this.observing.delete(s.p.key.sessionKey);
          done(s.f, e as Error);
          continue;
        }
        batch.add(s.f, r);
        // the deriver's observer has seen every record of the session so far: the next window
        // may carry it on
        if (r.committed && !s.last && s.observed) this.observing.add(s.p.key.sessionKey);
        else this.observing.delete(s.p.key.sessionKey);
        if (r.committed && !s.last) enqueue(s.f, s.key, s.windows + 1, s.upTo);
      }
    } finally {
      if (deriver.stopped) {
        this.notes.push(
          `the derive worker stopped (${deriver.stopped}); windows were derived inline`,
        );
      }
      deriver.close();
      batch.close();
    }
  }
}

/** A window handed to the deriver and waiting to be written. */
interface Slot {
  f: Found;
  key: KeyInfo;
  windows: number;
  /** The file's size when first seen: the pass does not chase a file still growing. */
  upTo: number;
  last: boolean;
  /** The window went to the deriver's observer of its session (see `DeriveJob.observe`). */
  observed: boolean;
  p: Prepared;
  derived: Promise<Outcome>;
}

/**
 * The outer transaction files are committed in, closed after PASS_BATCH_BYTES or _MS. A file's
 * outcome is reported only once its batch has committed, so nothing is counted as archived
 * that a failed commit took back.
 */
class Batch {
  #open = false;
  #bytes = 0;
  #since = 0;
  #pending: [Found, FileOutcome][] = [];
  constructor(
    readonly db: Db,
    readonly done: (f: Found, r: FileOutcome | Error) => void,
    /** The files' search-index rows, written with the commit: one FTS5 segment per batch. */
    readonly fts: FtsRow[],
  ) {}
  open(): void {
    if (this.#open) return;
    beginWrite(this.db);
    this.#open = true;
    this.#bytes = 0;
    this.#since = performance.now();
  }
  add(f: Found, r: FileOutcome): void {
    // nothing open: nothing of this file waits on a commit
    if (!this.#open) {
      this.done(f, r);
      return;
    }
    this.#pending.push([f, r]);
    this.#bytes += r.bytesRead;
    if (this.#bytes >= PASS_BATCH_BYTES || performance.now() - this.#since >= PASS_BATCH_MS) {
      this.close();
    }
  }
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    const pending = this.#pending;
    this.#pending = [];
    const fts = this.fts.splice(0);
    try {
      if (this.db.isTransaction) {
        insertFts(this.db, fts);
        commitWrite(this.db);
      }
    } catch (e) {
      rollback(this.db);
      for (const [f, r] of pending) this.done(f, r.committed ? e as Error : r);
      return;
    }
    for (const [f, r] of pending) this.done(f, r);
  }
}

interface Prepared {
  found: Found;
  key: KeyInfo;
  state: SessionState | null;
  offset: number;
  size: number;
  mtimeMs: number | null;
  /** The file's last bytes before the new watermark (REWRITE_CHECK_BYTES at most). */
  tail: Uint8Array;
  /** The window holds an oversized line's bytes: archived as they are, not parsed. */
  raw: boolean;
  input: ChunkInput;
}

/** `<key>` -> `<key>#2`, `<key>#2` -> `<key>#3`. */
function nextLineage(key: string): string {
  const m = new RegExp(`^(.*)${LINEAGE_MARK}(\\d+)$`).exec(key);
  return m ? `${m[1]}${LINEAGE_MARK}${Number(m[2]) + 1}` : `${key}${LINEAGE_MARK}2`;
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
  reserveFailureRecord(input.dataDir);
  const begun = beginRun(db, now.toISOString());
  const pass = new Pass(db, input);
  const stopped = takeFailureRecord(input.dataDir);
  for (const at of begun.died) {
    if (stopped?.startedAt === at) {
      const cause = `this pass stopped: ${stopped.error}`;
      recordStopCause(db, at, cause);
      pass.errors.push(`the pass started at ${at} stopped: ${stopped.error}`);
    } else {
      pass.errors.push(`the pass started at ${at} did not finish: its process died or was killed`);
    }
  }
  if (stopped && !begun.died.includes(stopped.startedAt)) {
    pass.errors.push(
      `the pass started at ${stopped.startedAt} stopped before recording its run: ${stopped.error}`,
    );
  }
  const left = clearLeftovers(input.dataDir);
  pass.notes.push(...left.notes);
  pass.errors.push(...left.errors);
  const problems: string[] = [];
  const run: RunRow = {
    startedAt: now.toISOString(),
    durationMs: 0,
    filesSeen: 0,
    filesCommitted: 0,
    filesFailed: 0,
    bytesRead: 0,
    turnsAdded: 0,
    error: null,
    notes: null,
  };
  let excludedOnly = false;
  let onlyFailed = false;
  const home = homeOf(input.dataDir);

  try {
    if (recoveryDue(db)) {
      await initCodec(); // a lowered stream's trailing block is rewritten
      pass.notes.push(...transaction(db, () => recoverWatermarks(db)));
    }
  } catch (e) {
    pass.errors.push(`recovery could not run: ${(e as Error).message}`);
  }
  try {
    pass.notes.push(...(await migrateAgentKeys(db)));
  } catch (e) {
    pass.errors.push(`subagent keys could not be migrated: ${(e as Error).message}`);
  }
  const rebuilt = await rebuildDerivedIfStale(db);
  if (rebuilt) pass.notes.push(rebuilt);
  const titled = await fillTitlesIfPending(db);
  if (titled) pass.notes.push(titled);
  pass.states = allSessionStates(db);
  pass.tombstones = allTombstones(db);
  ensureTails(db);
  ensurePassIndexes(db);
  pass.tails = allTails(db);

  let files: Found[];
  let excludedCount = 0;
  if (input.only) {
    // the project folder comes from the path's shape, so a sidecar below an excluded
    // project's folder is skipped before it is opened, as the whole-tree pass skips it
    const folder = keyFor(input.only).projectFolder ?? dirname(input.only);
    files = [{ path: input.only, projectFolder: folder }];
  } else {
    const d = discover(input.roots, input.cfg.exclude);
    // a deleted session's transcript counts as known: it is skipped unread, not numbered
    files = archiveOrder(d.files, (f) => {
      const k = pass.keyOf(f).sessionKey;
      return pass.states.has(k) || pass.tombstones.has(k);
    });
    excludedCount += d.excludedFolders;
    for (const p of d.problems) {
      pass.errors.push(p);
      problems.push(p);
    }
  }

  run.filesSeen = files.length;
  // the run row shows a running pass's progress to `status`, written now and then as it goes
  let progressAt = performance.now();
  progressRun(db, begun.id, run);
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
        : `${f.path}: ${r.message}`;
      pass.errors.push(msg);
      problems.push(msg);
      if (input.only) onlyFailed = true;
      return;
    }
    if (r.excluded) {
      excludedCount++;
      if (input.only) excludedOnly = true;
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
      progressRun(db, begun.id, run);
    }
  });
  progress?.finish();
  progressRun(db, begun.id, run); // every file done; closing and observing may still take a while
  if (pass.buriedFiles.size > 0) {
    pass.notes.push(
      `${pass.buriedFiles.size} transcript(s) skipped: their sessions were deleted with terminus sessions delete`,
    );
  }
  if (excludedCount > 0 && !input.only) {
    pass.notes.push(
      `${excludedCount} transcript folder(s) or file(s) in excluded projects skipped`,
    );
  }

  // Removed mid-pass, the store is an unlinked file: every later step would write into nothing
  // (and the snapshot would make the folder again), so the pass stops and says so.
  let lost = homeLost(input.dataDir, home);
  let backlog = 0;
  if (!input.only && !lost) {
    try {
      // a link appears only when a session or its predecessor's turns arrive: a pass that
      // committed nothing has none to find (one that died before this step is made up for)
      if (run.filesCommitted > 0 || begun.died.length > 0) {
        const n = resolveContinuations(db);
        if (n > 0) pass.notes.push(`${n} session(s) linked to the session they continue from`);
      }
      const cutoff = new Date(now.getTime() - CLOSE_AFTER_MS).toISOString();
      const closed = closeSessions(db, cutoff);
      if (closed.length > 0) pass.notes.push(`${closed.length} session(s) closed`);
      if (input.afterClose) {
        const c: AfterCloseContext = {
          closed,
          observed: pass.observed,
          now,
          notes: pass.notes,
          errors: pass.errors,
          backlog: 0,
        };
        await input.afterClose(db, c);
        backlog = c.backlog;
      }
    } catch (e) {
      pass.errors.push(`closing sessions could not run: ${(e as Error).message}`);
    }
  }

  lost ??= homeLost(input.dataDir, home);
  if (lost) pass.errors.push(lost);
  run.durationMs = Math.round(performance.now() - t0);
  run.error = pass.errors.length ? pass.errors.join("\n") : null;
  run.notes = pass.notes.length ? pass.notes.join("\n") : null;
  finishRun(db, begun.id, run);
  if (run.filesCommitted > 0) checkpoint(db);
  // every error the run row records is shown as well, a failed step's included
  const shown = [...problems, ...pass.errors.filter((e) => !problems.includes(e))];
  return {
    ran: true,
    run,
    problems: shown,
    excludedOnly,
    onlyFailed,
    lost: lost ?? undefined,
    backlog,
  };
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

/** A store made before titles were kept reads them once from its blocks. */
async function fillTitlesIfPending(db: Db): Promise<string | null> {
  if (!titlesFillPending(db)) return null;
  await initCodec();
  const r = fillTitles(db);
  return `titles read for ${r.sessions} session(s) archived before titles were kept${
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
