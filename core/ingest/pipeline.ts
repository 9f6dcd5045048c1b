/**
 * The windowed archive pipeline: each file's new bytes read a bounded window at a time,
 * derived (on a worker for a large pass) up to DERIVE_QUEUE_BYTES ahead of the window being
 * written, and written one savepoint per window inside the batch writer's transaction. A file
 * that fails is reported and the rest go on; nothing archived is ever rewritten except the
 * trailing partial block.
 */
import { basename } from "../posix.ts";
import { type Config, isExcluded } from "../config.ts";
import {
  CLOSE_AFTER_MS,
  LINE_CAP_BYTES,
  LINEAGE_MARK,
  PASS_WINDOW_BYTES,
  REWRITE_CHECK_BYTES,
} from "../constants.ts";
import type { Db } from "../store/db.ts";
import {
  appendSession,
  markDiverged,
  readsTrailingBlock,
  type SessionState,
  sessionState,
} from "../store/blocks.ts";
import { initFramer, initReader } from "../store/codec.ts";
import { release } from "../bytes.ts";
import { heldAt, putHeld, putTail, type Tail, tailHash, tailOf } from "../store/tails.ts";
import { SEEN_DIVERGED, SEEN_EVICTED, type SeenRow } from "../store/seen.ts";
import { keepFacts } from "../store/observations_sql.ts";
import { folderExcluded, type Found } from "../transcript/discover.ts";
import { keyFor, type KeyInfo } from "../transcript/session_key.ts";
import { ProjectResolver } from "../transcript/project.ts";
import type { ChunkInput } from "./chunk.ts";
import type { Derived, DeriveJob } from "./derive_job.ts";
import { InlineDeriver, type Outcome, PassDeriver } from "./deriver.ts";
import { Batch, type FileOutcome } from "./batch.ts";
import { nextWindow, readRange } from "./window.ts";
import type { Tombstone } from "../store/tombstones_sql.ts";
import { buried } from "./tombstone.ts";
import { fileKind, NotPlainFile } from "../plain_file.ts";

/** What the pipeline needs of the pass's input. */
export interface ArchiverInput {
  cfg: Config;
  /** Archive just this file (`terminus ingest <path>`). */
  only?: string;
  /** The pass's clock, for the closing rule. */
  now?: Date;
}

/** A file with nothing to archive: one shared outcome (an idle pass returns it per file). */
const NOTHING_NEW: FileOutcome = Object.freeze({ committed: false, bytesRead: 0, turnsAdded: 0 });
/** A file in an excluded project, skipped unread: one shared outcome too. */
const EXCLUDED: FileOutcome = Object.freeze({ ...NOTHING_NEW, excluded: true });

export class Archiver {
  resolver = new ProjectResolver();
  notes: string[] = [];
  errors: string[] = [];
  /** Every archived session as the pass last saw it, read once (see store/seen.ts). */
  seen = new Map<string, SeenRow>();
  /** Sessions' full states, read for a file with something new or written by this pass. */
  states = new Map<string, SessionState>();
  /** Tails read for a file whose size or mtime moved, or written by this pass. */
  tails = new Map<number, Tail | null>();
  /** Session keys whose earlier window this pass was observed and written. */
  observing = new Set<string>();
  /** Sessions `terminus sessions delete` removed, by key, and the files this pass skipped for them. */
  tombstones = new Map<string, Tombstone>();
  buriedFiles = new Set<string>();

  /** Lines of this pass's windows that could not be read as records. */
  unreadable = 0;
  readonly now: Date;

  constructor(readonly db: Db, readonly input: ArchiverInput) {
    this.now = input.now ?? new Date();
  }

  /** Whether the store holds the session (read at the pass's start, or archived by it). */
  known(key: string): boolean {
    return this.states.has(key) || this.seen.has(key);
  }

  /** The session's full state: one indexed read, the first time a file of it has news. */
  stateOf(key: string): SessionState | null {
    let s = this.states.get(key);
    if (s === undefined && this.seen.has(key)) {
      const read = sessionState(this.db, key);
      if (read) this.states.set(key, s = read);
    }
    return s ?? null;
  }

  tailOf(sessionNo: number): Tail | null {
    let t = this.tails.get(sessionNo);
    if (t === undefined) this.tails.set(sessionNo, t = tailOf(this.db, sessionNo));
    return t;
  }

  /** Steps 1-2 of a file: what is new in it, read (no record parsed yet), or why nothing is. */
  prepare(found: Found, key: KeyInfo): Prepared | FileOutcome {
    const { cfg } = this.input;
    if (this.input.only && folderExcluded(basename(found.projectFolder), cfg.exclude)) {
      return EXCLUDED;
    }
    // A file of a session the pass has not touched yet is judged from what it last saw of it:
    // the same answers as below, with no read of the session's state, in the usual case of a
    // file whose size and mtime are the ones the last look kept
    const seen = this.states.has(key.sessionKey) ? undefined : this.seen.get(key.sessionKey);
    let info: Deno.FileInfo | undefined;
    if (seen) {
      const [, sessionNo, , flags, project] = seen;
      if (isExcluded(cfg, project)) {
        return EXCLUDED;
      }
      if (flags & SEEN_EVICTED) return NOTHING_NEW;
      // lstat first, about 0.3 µs a transcript less than a stat; a link (or whatever is no
      // longer a plain file) is then followed
      info = Deno.lstatSync(found.path);
      if (!info.isFile) info = plainInfo(found.path);
      if (flags & SEEN_DIVERGED) {
        return this.prepare(found, { ...key, sessionKey: nextLineage(key.sessionKey) });
      }
      if (!this.tails.has(sessionNo) && asLastSeen(seen, info)) return NOTHING_NEW;
    }
    const state = this.stateOf(key.sessionKey);
    const tomb = state ? undefined : this.tombstones.get(key.sessionKey);
    if (tomb && buried(tomb, found.path)) {
      this.buriedFiles.add(found.path);
      return NOTHING_NEW;
    }
    if (state && isExcluded(cfg, state.project)) {
      return EXCLUDED;
    }
    // an evicted session's stream is gone: new bytes would be appended after missing ones
    if (state?.evicted) return NOTHING_NEW;
    info ??= plainInfo(found.path);
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
    if (size === offset) return NOTHING_NEW;

    // A file nobody has written for as long as the closing rule's idle time is closed: a last
    // line still without its newline will not get one, so it is judged now (and once: what
    // stays out is remembered with the file's size and mtime, and not read again)
    const closed = mtimeMs !== null && mtimeMs < this.now.getTime() - CLOSE_AFTER_MS;
    if (closed && heldAt(this.db, key.sessionKey, offset, size, mtimeMs)) return NOTHING_NEW;
    // one bounded window at a time: the caller comes back for the next one
    const w = nextWindow(found.path, offset, size, closed);
    if (w.kind === "wait") return { committed: false, bytesRead: w.seen, turnsAdded: 0 };
    if (w.kind === "held") {
      putHeld(this.db, key.sessionKey, offset, size, mtimeMs);
      this.notes.push(
        `${key.sessionKey}: its transcript is closed, and its last ${w.seen} byte(s), a line with no newline, are not a complete record; they stay out of the archive`,
      );
      return { committed: false, bytesRead: w.seen, turnsAdded: 0 };
    }
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
        unterminated: w.kind === "last",
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
    const t = this.tailOf(state.sessionNo);
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
  async finish(p: Prepared, derived: Derived, batch: Batch): Promise<FileOutcome> {
    const d = derived.out;
    this.unreadable += d.unreadable;
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
      return EXCLUDED;
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
      deferFts: true,
    });
    // the append's search rows go to the batch as soon as the append stands, written with its commit
    batch.keepFts(r.fts);
    this.rememberTail(p, r.sessionNo);
    // kept for the observe step of this pass or a later one, in the batch's transaction
    if (derived.mechanical) {
      keepFacts(this.db, r.sessionNo, {
        streamLen: d.streamOffset,
        mechanical: JSON.stringify(derived.mechanical),
      });
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

  /**
   * The files left to prepare once those exactly as the last look left them are passed over,
   * one lstat each: what `prepare` would find first for them, without the pipeline's work per
   * file. Only a file whose session no other discovered file shares is passed over here, so
   * the rest are archived in the same order, and see one another, as before.
   */
  unsettled(files: Found[]): Found[] {
    if (this.seen.size === 0) return files;
    const { cfg } = this.input;
    const keys = new Set<string>();
    let shared: Set<string> | null = null;
    const passed: boolean[] = [];
    for (const f of files) {
      const k = this.keyOf(f).sessionKey;
      if (keys.has(k)) (shared ??= new Set()).add(k);
      keys.add(k);
      passed.push(this.asLeft(f.path, this.seen.get(k), cfg));
    }
    // a session two files share goes the whole way with both (the rare case: a link, a copy)
    return files.filter((f, i) => !passed[i] || shared?.has(f.key!.sessionKey) === true);
  }

  /** One file of `unsettled`: whether it is exactly as the last look left it (one lstat). */
  asLeft(path: string, seen: SeenRow | undefined, cfg: Config): boolean {
    // read by index: destructuring walks the iterator protocol until the loop is compiled
    if (!seen || seen[3] & SEEN_DIVERGED || isExcluded(cfg, seen[4])) return false;
    if (seen[3] & SEEN_EVICTED) return true;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch {
      return false; // gone or unreadable: `prepare` reports it
    }
    // a link, a FIFO or anything else that is not a plain file goes the whole way
    return info.isFile && asLastSeen(seen, info);
  }

  /** The file's key, read off its path once per pass (ordering and archiving both ask). */
  keyOf(found: Found): KeyInfo {
    return found.key ??= keyFor(found.path, this.input.only !== undefined || found.link === true);
  }

  /** Archives the files in order, one transaction each, reporting each file's outcome. */
  /** The bytes past the watermarks, for progress (one stat per file). */
  waiting(files: Found[]): number {
    let n = 0;
    for (const f of files) {
      try {
        const size = Deno.statSync(f.path).size;
        const key = this.keyOf(f).sessionKey;
        const offset = this.states.get(key)?.offset ?? this.seen.get(key)?.[2];
        if (offset === undefined && this.tombstones.has(key)) continue; // deleted: skipped, unread
        n += Math.max(0, size - (offset ?? 0));
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
    const batch = new Batch(this.db, done);
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
          r = await this.finish(s.p, o.derived, batch);
        } catch (e) {
          this.observing.delete(s.p.key.sessionKey);
          done(s.f, e as Error);
          continue;
        } finally {
          // written or failed, the window's bytes, its stream and its frames are read no more
          // (the store copied what it keeps): their memory goes back now, not at the next GC
          release(s.p.input.chunk);
          if (!("error" in o)) {
            release(o.derived.out.stream);
            for (const fr of o.derived.framed?.frames ?? []) release(fr.bytes);
          }
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

/**
 * Whether the file is as the last look left it: its size is the watermark, and its size and
 * mtime are the ones kept with the tail. (`prepare` asks only before reading any tail itself.)
 */
function asLastSeen(seen: SeenRow, info: Deno.FileInfo): boolean {
  const offset = seen[2];
  const tailMtimeMs = seen[7];
  return info.size === offset && seen[5] === offset && seen[6] === info.size &&
    tailMtimeMs !== null && tailMtimeMs === (info.mtime?.getTime() ?? null);
}

/**
 * The file's stat, following links; anything but a regular file (a link to a FIFO, a device)
 * is refused here unopened. What is read is decided again by fstat on the descriptor opened
 * for it (core/plain_file.ts), so a name swapped in between is refused too.
 */
function plainInfo(path: string): Deno.FileInfo {
  const info = Deno.statSync(path);
  if (!info.isFile) throw new NotPlainFile(path, fileKind(info));
  return info;
}

/** `<key>` -> `<key>#2`, `<key>#2` -> `<key>#3`. */
function nextLineage(key: string): string {
  const m = new RegExp(`^(.*)${LINEAGE_MARK}(\\d+)$`).exec(key);
  return m ? `${m[1]}${LINEAGE_MARK}${Number(m[2]) + 1}` : `${key}${LINEAGE_MARK}2`;
}
