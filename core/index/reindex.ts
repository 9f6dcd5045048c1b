/**
 * Rebuilding the derived tables from the archived blocks, with the same turn ids. An evicted
 * session has no blocks, so its rows are carried across untouched.
 */
import type { ProgressFactory } from "../progress.ts";
import { type Db, transaction } from "../store/db.ts";
import { owesSearchMerge } from "../store/migrate.ts";
import { BlockCache, checkedBlocks, readStream } from "../store/blocks.ts";
import { streamLines } from "../store/lines.ts";
import { LINE_CAP_BYTES, PASS_WINDOW_BYTES } from "../constants.ts";
import { concat } from "../bytes.ts";
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
import { isTurn, lineRecords, parseLine } from "../transcript/records.ts";
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
 * the titles the stream's records carry. Records glued on one line are each read, as the pass
 * reads them.
 */
export function deriveStream(
  stream: Uint8Array,
  sidecar: boolean,
  titles?: TranscriptTitles,
): DerivedRows[] {
  const rows: DerivedRows[] = [];
  let start = 0;
  const seq = { n: 0 };
  while (start < stream.length) {
    let nl = stream.indexOf(0x0a, start);
    if (nl < 0) nl = stream.length;
    deriveLine(stream.subarray(start, nl), start, sidecar, seq, rows, titles);
    start = nl + 1;
  }
  return rows;
}

function deriveLine(
  line: Uint8Array,
  offset: number,
  sidecar: boolean,
  seq: { n: number },
  rows: DerivedRows[],
  titles?: TranscriptTitles,
): void {
  for (const r of lineRecords(line) ?? []) {
    if (titles) noteTitle(titles, r.rec);
    if (!isTurn(r.rec)) continue;
    rows.push(deriveTurn({
      rec: r.rec,
      streamOffset: offset + r.start,
      byteLen: r.end - r.start,
      turnSeq: seq.n++,
      sidecar,
    }));
  }
}

/** A checked block failed: the session is rebuilt the damaged way (see rebuildDamaged). */
class Damaged extends Error {}
/** A damaged session met while the index was being refilled whole: start again, row by row. */
class NotWholesale extends Error {}

/**
 * The lines of a session's stream, off its checked blocks one block at a time: the line and
 * the stream offset it starts at. A line longer than LINE_CAP_BYTES is passed over unjoined, as
 * the pass leaves such a line unparsed. Throws Damaged at the first damaged block.
 */
function* checkedLines(
  db: Db,
  sessionNo: number,
): Generator<{ offset: number; line: Uint8Array }> {
  let parts: Uint8Array[] = [];
  let held = 0;
  let skipping = false;
  let lineStart = 0;
  for (const b of checkedBlocks(db, sessionNo)) {
    if (b.raw === null) throw new Damaged(`block ${b.block} ${b.detail}`);
    const raw = b.raw;
    let start = 0;
    while (start < raw.length) {
      const nl = raw.indexOf(0x0a, start);
      const end = nl < 0 ? raw.length : nl;
      if (!skipping) {
        parts.push(raw.subarray(start, end));
        held += end - start;
        if (held >= LINE_CAP_BYTES) {
          skipping = true;
          parts = [];
        }
      }
      if (nl < 0) break;
      if (!skipping) {
        yield { offset: lineStart, line: parts.length === 1 ? parts[0] : concat(parts) };
      }
      parts = [];
      held = 0;
      skipping = false;
      start = nl + 1;
      lineStart = b.from + start;
    }
  }
  if (!skipping && held > 0) {
    yield { offset: lineStart, line: parts.length === 1 ? parts[0] : concat(parts) };
  }
}

/**
 * Rebuilds every non-evicted session in ONE transaction, so a rebuild that is interrupted
 * (killed, Ctrl-C) leaves the index exactly as it was, and readers see the old index until the
 * new one is whole. A session that fails is rolled back alone (a savepoint) and named. `also`
 * runs inside the same transaction (the pass clears its rebuild-pending mark there).
 * Caller holds the ingest lock.
 *
 * Each session is read a block at a time, and its rows written a window's worth at a time, so
 * memory stays bounded whatever a session holds (a 300 MB line included).
 */
export function rebuildDerived(
  db: Db,
  also?: () => void,
  progress?: ProgressFactory,
): RebuildResult {
  return transaction(db, () => {
    const targets = rebuildTargets(db);
    // A contentless FTS5 table cannot take a deleted row's tokens out of its BM25 totals, so
    // row-by-row rebuilding would skew every later score. With no evicted session (whose
    // search rows are the only copy left) the index is emptied whole and refilled instead;
    // a damaged session's search rows are the only copy too, so when one turns up the
    // refill is rolled back and done again row by row, which keeps them.
    let out: RebuildResult | null = null;
    if (!targets.some((t) => t.evicted)) {
      try {
        out = transaction(db, () => rebuildAll(db, targets, true, progress));
      } catch (e) {
        if (!(e instanceof NotWholesale)) throw e;
      }
    }
    out ??= rebuildAll(db, targets, false, progress);
    owesSearchMerge(db);
    also?.();
    return out;
  });
}

function rebuildAll(
  db: Db,
  targets: ReturnType<typeof rebuildTargets>,
  wholesale: boolean,
  progress?: ProgressFactory,
): RebuildResult {
  const out: RebuildResult = { sessions: 0, turns: 0, preserved: 0, skipped: [] };
  const shown = progress?.("reindexing", targets.length, "sessions");
  if (wholesale) clearSearchIndex(db);
  for (const t of targets) {
    shown?.add(1);
    if (t.evicted) {
      out.preserved++;
      continue;
    }
    try {
      transaction(db, () => rebuildSession(db, t, out));
    } catch (e) {
      if (e instanceof Damaged) {
        if (wholesale) throw new NotWholesale();
        try {
          const damage = transaction(db, () => rebuildDamaged(db, t, out));
          out.skipped.push({ session_key: t.sessionKey, reason: damage });
        } catch (e2) {
          out.skipped.push({ session_key: t.sessionKey, reason: (e2 as Error).message });
        }
        continue;
      }
      const lost = wholesale ? "; its search rows could not be rebuilt" : "";
      out.skipped.push({ session_key: t.sessionKey, reason: (e as Error).message + lost });
    }
  }
  shown?.finish();
  return out;
}

/** One sound session, streamed: its rows written a window's worth at a time. */
function rebuildSession(
  db: Db,
  { sessionNo, sidecar }: { sessionNo: number; sidecar: boolean },
  out: RebuildResult,
): void {
  const titles = emptyTitles();
  deleteDerived(db, sessionNo);
  const seq = { n: 0 };
  let rows: DerivedRows[] = [];
  let bytes = 0;
  for (const { offset, line } of checkedLines(db, sessionNo)) {
    deriveLine(line, offset, sidecar, seq, rows, titles);
    bytes += line.length;
    if (bytes >= PASS_WINDOW_BYTES) {
      writeDerived(db, sessionNo, rows);
      rows = [];
      bytes = 0;
    }
  }
  writeDerived(db, sessionNo, rows);
  replaceTranscriptTitles(db, sessionNo, titles);
  setTurnCount(db, sessionNo, seq.n);
  out.sessions++;
  out.turns += seq.n;
}

/**
 * A session with a damaged block: only the turns lying wholly in sound blocks are rebuilt, the
 * other turns keep the rows they had (search rows included: this runs only row by row), and
 * the damage is returned to be reported.
 */
function rebuildDamaged(
  db: Db,
  { sessionNo, sidecar }: { sessionNo: number; sidecar: boolean },
  out: RebuildResult,
): string {
  const damaged: { block: number; from: number; to: number; detail: string }[] = [];
  for (const b of checkedBlocks(db, sessionNo)) {
    if (b.detail !== null) {
      damaged.push({ block: b.block, from: b.from, to: b.from + b.rawLen, detail: b.detail });
    }
  }
  const hit = (from: number, to: number) => damaged.some((d) => from < d.to && to > d.from);
  const spans = turnSpans(db, sessionNo);
  let rows: DerivedRows[];
  let kept: number;
  if (spans.length > 0) {
    // the turn rows say where each turn lies; a turn's line ends with its newline
    const sound = spans.filter((s) => !hit(s.streamOffset, s.streamOffset + s.byteLen + 1));
    rows = [];
    // the turns in stream order: neighbours share blocks, and the session is not held whole
    const cache = new BlockCache();
    for (const s of sound) {
      const rec = parseLine(readStream(db, sessionNo, s.streamOffset, s.byteLen, cache));
      if (!rec || !isTurn(rec)) continue;
      rows.push(deriveTurn({ ...s, rec, sidecar }));
    }
    deleteDerivedTurns(db, sessionNo, sound.map((s) => s.turnSeq));
    kept = spans.length - sound.length;
  } else {
    // no rows to go by (the derived tables were recreated): only the lines before the first
    // damaged block have known turn numbers
    rows = [];
    const seq = { n: 0 };
    try {
      for (const { offset, line } of checkedLines(db, sessionNo)) {
        deriveLine(line, offset, sidecar, seq, rows);
      }
    } catch (e) {
      if (!(e instanceof Damaged)) throw e;
    }
    // a line cut by the damage never ended, so it was never yielded
    deleteDerived(db, sessionNo);
    kept = 0;
  }
  writeDerived(db, sessionNo, rows);
  out.turns += rows.length;
  const blocks = damaged.map((d) => `block ${d.block} ${d.detail}`).join("; ");
  return `${blocks}: ${rows.length} turn(s) rebuilt from the sound blocks` +
    (kept > 0 ? `, ${kept} turn(s) in damaged blocks keep the rows they had` : "") +
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
