/**
 * The pass's batch writer: the outer transaction a pass commits its files in, so FTS5 flushes
 * its segments once per batch instead of once per file, and a file's outcome is reported only
 * once the commit that holds it succeeded.
 */
import { FTS_PENDING_BYTES } from "../constants.ts";
import { beginWrite, commitWrite, type Db } from "../store/db.ts";
import { type FtsRow, insertFts, setFtsPendingBytes } from "../store/derived.ts";
import { rollback } from "../store/rollback.ts";
import type { Found } from "../transcript/discover.ts";

/**
 * A batch closes after this many bytes read or this long: each COMMIT rewrites the random-keyed
 * index pages it touched, so fewer, larger batches write less (performance.md).
 */
const PASS_BATCH_BYTES = 16 * 1024 * 1024;
const PASS_BATCH_MS = 500;

/** What archiving one file (or one window of it) came to. */
export interface FileOutcome {
  committed: boolean;
  bytesRead: number;
  turnsAdded: number;
  note?: string;
  excluded?: boolean;
}

/**
 * The outer transaction files are committed in, closed after PASS_BATCH_BYTES or _MS. A file's
 * outcome is reported only once its batch has committed, so nothing is counted as archived
 * that a failed commit took back.
 */
export class Batch {
  #open = false;
  #bytes = 0;
  #since = 0;
  #pending: [Found, FileOutcome][] = [];
  /** The files' search-index rows, written with the commit: one FTS5 segment per batch. */
  #fts: FtsRow[] = [];
  constructor(
    readonly db: Db,
    readonly done: (f: Found, r: FileOutcome | Error) => void,
  ) {}
  open(): void {
    if (this.#open) return;
    beginWrite(this.db);
    try {
      // a batch's terms in one segment (a store made before this setting gets it here)
      setFtsPendingBytes(this.db, FTS_PENDING_BYTES);
    } catch (e) {
      rollback(this.db);
      throw e;
    }
    this.#open = true;
    this.#bytes = 0;
    this.#since = performance.now();
  }
  /** Search rows of an append that stands, written just before this batch commits. */
  keepFts(rows: FtsRow[]): void {
    for (const row of rows) this.#fts.push(row);
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
    const fts = this.#fts;
    this.#fts = [];
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
