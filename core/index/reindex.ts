/**
 * Rebuilding the derived tables from the archived blocks, with the same turn ids. An evicted
 * session has no blocks, so its rows are carried across untouched.
 */
import type { Db } from "../store/db.ts";
import {
  clearSearchIndex,
  deleteDerived,
  type DerivedRows,
  readWholeStream,
  rebuildTargets,
  setTurnCount,
  writeDerived,
} from "../store/archive.ts";
import { isTurn, parseLine } from "../transcript/records.ts";
import { deriveTurn } from "./derive.ts";
import {
  clearTitlesFillPending,
  replaceTranscriptTitles,
  titleFillTargets,
  type TranscriptTitles,
} from "../store/sessions_sql.ts";
import { emptyTitles, noteTitle } from "../sessions/titles.ts";

export interface RebuildResult {
  sessions: number;
  turns: number;
  preserved: number;
  skipped: { session_key: string; reason: string }[];
}

/**
 * Derives every turn row of one session's stream, in byte order; with `titles`, also notes
 * the titles the stream's records carry.
 */
export function deriveStream(
  stream: Uint8Array,
  sidecar: boolean,
  titles?: TranscriptTitles,
): DerivedRows[] {
  const rows: DerivedRows[] = [];
  let start = 0;
  let seq = 0;
  while (start < stream.length) {
    let nl = stream.indexOf(0x0a, start);
    if (nl < 0) nl = stream.length;
    const line = stream.subarray(start, nl);
    const rec = parseLine(line);
    if (rec && titles) noteTitle(titles, rec);
    if (rec && isTurn(rec)) {
      rows.push(
        deriveTurn({ rec, streamOffset: start, byteLen: line.length, turnSeq: seq++, sidecar }),
      );
    }
    start = nl + 1;
  }
  return rows;
}

/** Rebuilds every non-evicted session, one transaction each. Caller holds the ingest lock. */
export function rebuildDerived(db: Db): RebuildResult {
  const out: RebuildResult = { sessions: 0, turns: 0, preserved: 0, skipped: [] };
  const targets = rebuildTargets(db);
  // A contentless FTS5 table cannot take a deleted row's tokens out of its BM25 totals, so
  // row-by-row rebuilding would skew every later score. With no evicted session (whose
  // search rows are the only copy left) the index is emptied whole and refilled instead.
  const wholesale = !targets.some((t) => t.evicted);
  if (wholesale) clearSearchIndex(db);
  for (const t of targets) {
    if (t.evicted) {
      out.preserved++;
      continue;
    }
    let rows: DerivedRows[];
    const titles = emptyTitles();
    try {
      rows = deriveStream(readWholeStream(db, t.sessionNo), t.sidecar, titles);
    } catch (e) {
      const lost = wholesale ? "; its search rows could not be rebuilt" : "";
      out.skipped.push({ session_key: t.sessionKey, reason: (e as Error).message + lost });
      continue;
    }
    db.exec("BEGIN IMMEDIATE");
    try {
      deleteDerived(db, t.sessionNo);
      writeDerived(db, t.sessionNo, rows);
      replaceTranscriptTitles(db, t.sessionNo, titles);
      setTurnCount(db, t.sessionNo, rows.length);
      db.exec("COMMIT");
    } catch (e) {
      db.exec("ROLLBACK");
      out.skipped.push({ session_key: t.sessionKey, reason: (e as Error).message });
      continue;
    }
    out.sessions++;
    out.turns += rows.length;
  }
  return out;
}

/**
 * Reads the titles of every session that still has blocks, for a store made before titles
 * were kept. Evicted sessions have nothing left to read them from. Caller holds the ingest lock.
 */
export function fillTitles(db: Db): { sessions: number; skipped: number } {
  let sessions = 0;
  let skipped = 0;
  for (const t of titleFillTargets(db)) {
    const titles = emptyTitles();
    try {
      const stream = readWholeStream(db, t.sessionNo);
      let start = 0;
      while (start < stream.length) {
        let nl = stream.indexOf(0x0a, start);
        if (nl < 0) nl = stream.length;
        const rec = parseLine(stream.subarray(start, nl));
        if (rec) noteTitle(titles, rec);
        start = nl + 1;
      }
    } catch {
      skipped++; // damaged blocks: verify's to report; the session simply has no title yet
      continue;
    }
    db.exec("BEGIN IMMEDIATE");
    try {
      replaceTranscriptTitles(db, t.sessionNo, titles);
      db.exec("COMMIT");
    } catch (e) {
      db.exec("ROLLBACK");
      throw e;
    }
    sessions++;
  }
  clearTitlesFillPending(db);
  return { sessions, skipped };
}
