/**
 * Rebuilding the derived tables from the archived blocks, with the same turn ids. An evicted
 * session has no blocks, so its rows are carried across untouched.
 */
import type { ProgressFactory } from "../progress.ts";
import { type Db, transaction } from "../store/db.ts";
import { readCheckedStream } from "../store/blocks.ts";
import { streamLines } from "../store/lines.ts";
import { LINE_CAP_BYTES } from "../constants.ts";
import {
  clearSearchIndex,
  deleteDerived,
  deleteDerivedTurns,
  type DerivedRows,
  rebuildTargets,
  setTurnCount,
  turnSpans,
  writeDerived,
} from "../store/derived.ts";
import { isTurn, parseLine } from "../transcript/records.ts";
import { deriveTurn } from "./derive.ts";
import {
  clearTitlesFillPending,
  replaceTranscriptTitles,
  titleFillTargets,
} from "../store/sessions_sql.ts";
import { emptyTitles, noteTitle, type TranscriptTitles } from "../transcript/titles.ts";

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

/**
 * Rebuilds every non-evicted session in ONE transaction, so a rebuild that is interrupted
 * (killed, Ctrl-C) leaves the index exactly as it was, and readers see the old index until the
 * new one is whole. A session that fails is rolled back alone (a savepoint) and named. `also`
 * runs inside the same transaction (the pass clears its rebuild-pending mark there).
 * Caller holds the ingest lock.
 */
export function rebuildDerived(
  db: Db,
  also?: () => void,
  progress?: ProgressFactory,
): RebuildResult {
  return transaction(db, () => {
    const out: RebuildResult = { sessions: 0, turns: 0, preserved: 0, skipped: [] };
    const targets = rebuildTargets(db);
    const shown = progress?.("reindexing", targets.length, "sessions");
    // A contentless FTS5 table cannot take a deleted row's tokens out of its BM25 totals, so
    // row-by-row rebuilding would skew every later score. With no evicted session (whose
    // search rows are the only copy left) the index is emptied whole and refilled instead.
    const wholesale = !targets.some((t) => t.evicted);
    if (wholesale) clearSearchIndex(db);
    for (const t of targets) {
      shown?.add(1);
      if (t.evicted) {
        out.preserved++;
        continue;
      }
      try {
        const damage = transaction(db, () => rebuildSession(db, t, wholesale, out));
        if (damage) out.skipped.push({ session_key: t.sessionKey, reason: damage });
      } catch (e) {
        const lost = wholesale ? "; its search rows could not be rebuilt" : "";
        out.skipped.push({ session_key: t.sessionKey, reason: (e as Error).message + lost });
      }
    }
    shown?.finish();
    also?.();
    return out;
  });
}

/**
 * One session. Every block is checked against its hash first: when one fails, only the turns
 * lying wholly in sound blocks are rebuilt, the other turns keep the rows they had, and the
 * damage is returned to be reported.
 */
function rebuildSession(
  db: Db,
  { sessionNo, sidecar }: { sessionNo: number; sidecar: boolean },
  wholesale: boolean,
  out: RebuildResult,
): string | null {
  const { stream, damaged } = readCheckedStream(db, sessionNo);
  if (damaged.length === 0) {
    const titles = emptyTitles();
    const rows = deriveStream(stream, sidecar, titles);
    deleteDerived(db, sessionNo);
    writeDerived(db, sessionNo, rows);
    replaceTranscriptTitles(db, sessionNo, titles);
    setTurnCount(db, sessionNo, rows.length);
    out.sessions++;
    out.turns += rows.length;
    return null;
  }
  const hit = (from: number, to: number) => damaged.some((d) => from < d.to && to > d.from);
  const spans = turnSpans(db, sessionNo);
  let rows: DerivedRows[];
  let kept: number;
  if (spans.length > 0) {
    // the turn rows say where each turn lies; a turn's line ends with its newline
    const sound = spans.filter((s) => !hit(s.streamOffset, s.streamOffset + s.byteLen + 1));
    rows = [];
    for (const s of sound) {
      const line = stream.subarray(s.streamOffset, s.streamOffset + s.byteLen);
      const rec = parseLine(line);
      if (!rec || !isTurn(rec)) continue;
      rows.push(deriveTurn({ ...s, rec, sidecar }));
    }
    deleteDerivedTurns(db, sessionNo, sound.map((s) => s.turnSeq));
    kept = spans.length - sound.length;
  } else {
    // no rows to go by (the derived tables were recreated): only the lines before the first
    // damaged block have known turn numbers
    const first = Math.min(...damaged.map((d) => d.from));
    rows = deriveStream(stream.subarray(0, stream.lastIndexOf(0x0a, first - 1) + 1), sidecar);
    deleteDerived(db, sessionNo);
    kept = 0;
  }
  writeDerived(db, sessionNo, rows);
  out.turns += rows.length;
  const blocks = damaged.map((d) => `block ${d.block} ${d.detail}`).join("; ");
  return `${blocks}: ${rows.length} turn(s) rebuilt from the sound blocks` +
    (kept > 0
      ? `, ${kept} turn(s) in damaged blocks keep the rows they had` +
        (wholesale ? " but not their search rows" : "")
      : "") +
    "; terminus verify names the damage";
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
      // line by line off the blocks: a multi-GB session costs this pass no more memory
      for (const line of streamLines(db, t.sessionNo, LINE_CAP_BYTES)) {
        const rec = parseLine(line);
        if (rec) noteTitle(titles, rec);
      }
    } catch {
      skipped++; // damaged blocks: verify's to report; the session simply has no title yet
      continue;
    }
    transaction(db, () => replaceTranscriptTitles(db, t.sessionNo, titles));
    sessions++;
  }
  clearTitlesFillPending(db);
  return { sessions, skipped };
}
