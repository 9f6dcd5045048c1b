/**
 * The archive's SQL: sessions, blocks, session_meta, watermarks, runs, and the derived rows
 * written in the same per-file transaction. Only core/store/ speaks SQL.
 */
import type { Db } from "./db.ts";
import { BLOCK_BYTES } from "../constants.ts";
import { turnId } from "./ids.ts";
import { blake3, compress, decompress, sessionChecksum } from "./codec.ts";
import { type TranscriptTitles, writeTranscriptTitles } from "./sessions_sql.ts";

export interface SessionState {
  sessionNo: number;
  sessionKey: string;
  sessionId: string | null;
  project: string | null;
  cwd: string | null;
  uncompressedLen: number;
  turnCount: number;
  offset: number | null;
  streamLen: number | null;
  diverged: boolean;
  evicted: boolean;
  firstTurnAt: string | null;
  captureMode: string;
}

export { turnId };

const STATE_SQL = `
SELECT s.session_no AS sessionNo, s.session_key AS sessionKey, m.session_id AS sessionId,
       m.project AS project, m.cwd AS cwd, COALESCE(m.uncompressed_len, 0) AS uncompressedLen,
       COALESCE(m.turn_count, 0) AS turnCount, w.offset AS offset, w.stream_len AS streamLen,
       COALESCE(m.transcript_diverged, 0) AS diverged, COALESCE(m.is_evicted, 0) AS evicted,
       m.first_turn_at AS firstTurnAt, COALESCE(m.capture_mode, 'full') AS captureMode
FROM sessions s LEFT JOIN session_meta m USING (session_no) LEFT JOIN watermarks w USING (session_no)`;

function toState(r: Record<string, unknown>): SessionState {
  return {
    sessionNo: r.sessionNo as number,
    sessionKey: r.sessionKey as string,
    sessionId: (r.sessionId as string | null) ?? null,
    project: (r.project as string | null) ?? null,
    cwd: (r.cwd as string | null) ?? null,
    uncompressedLen: r.uncompressedLen as number,
    turnCount: r.turnCount as number,
    offset: (r.offset as number | null) ?? null,
    streamLen: (r.streamLen as number | null) ?? null,
    diverged: (r.diverged as number) === 1,
    evicted: (r.evicted as number) === 1,
    firstTurnAt: (r.firstTurnAt as string | null) ?? null,
    captureMode: r.captureMode as string,
  };
}

/** Every session's state, keyed by session_key: one query for the whole pass. */
export function allSessionStates(db: Db): Map<string, SessionState> {
  const rows = db.prepare(STATE_SQL).all() as Record<string, unknown>[];
  return new Map(rows.map((r) => [r.sessionKey as string, toState(r)]));
}

export function sessionState(db: Db, key: string): SessionState | null {
  const r = db.prepare(STATE_SQL + " WHERE s.session_key = ?").get(key) as
    | Record<string, unknown>
    | undefined;
  return r ? toState(r) : null;
}

export interface TurnRow {
  turnSeq: number;
  uuid: string | null;
  parentUuid: string | null;
  recordType: string;
  toolName: string | null;
  ts: string | null;
  streamOffset: number;
  byteLen: number;
  isTyped: boolean;
  isSidechain: boolean;
  isToolResult: boolean;
}

export interface DerivedRows {
  turn: TurnRow;
  /** FTS body; undefined writes no FTS row. */
  body?: string;
  entities?: { kind: string; value: string }[];
  paths?: string[];
  /**
   * The folded text of a turn the hooks may quote (a prompt or a reply, never a tool result),
   * so the hook path reads a row instead of decompressing blocks.
   */
  quote?: string;
  /** The quote is an assistant's written answer (it has a text block). */
  isReply?: boolean;
  /** Present for a compact_boundary: JSON of preserved uuids, or null. */
  compaction?: { preserved: string | null };
}

export interface MetaUpdate {
  sessionId: string | null;
  transcriptPath: string;
  firstTurnAt: string | null;
  lastTurnAt: string | null;
  cwd: string | null;
  project: string | null;
  projectPreWorktree: string | null;
  branch: string | null;
  parentSessionKey: string | null;
  agentMeta: Uint8Array | null;
  continuesFrom: string | null;
  firstParentUuid: string | null;
  captureMode: string;
}

export interface AppendArgs {
  sessionKey: string;
  /** Bytes to append to the session's stream (complete lines only). */
  stream: Uint8Array;
  /** New watermark: the file offset just past the last archived newline. */
  offset: number;
  meta: MetaUpdate;
  derived: DerivedRows[];
  /** Titles the new lines carry; absent writes none. */
  titles?: TranscriptTitles;
}

function readBlock(db: Db, sessionNo: number, blockNo: number): Uint8Array | null {
  const r = db.prepare("SELECT bytes FROM blocks WHERE session_no = ? AND block_no = ?").get(
    sessionNo,
    blockNo,
  ) as { bytes: Uint8Array } | undefined;
  return r ? decompress(r.bytes) : null;
}

export function writeDerived(db: Db, sessionNo: number, rows: DerivedRows[]): void {
  if (rows.length === 0) return;
  const insTurn = db.prepare(
    `INSERT INTO turns (id, session_no, turn_seq, uuid, parent_uuid, record_type, tool_name, ts,
       stream_offset, byte_len, is_typed, is_sidechain, is_tool_result)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insFts = db.prepare("INSERT INTO turns_fts (rowid, body) VALUES (?, ?)");
  const insEnt = db.prepare("INSERT INTO entities (turn_id, kind, value) VALUES (?, ?, ?)");
  const insPath = db.prepare("INSERT INTO paths (turn_id, path) VALUES (?, ?)");
  const insText = db.prepare("INSERT INTO turn_text (turn_id, text, is_reply) VALUES (?, ?, ?)");
  const insCb = db.prepare(
    "INSERT INTO compaction_boundaries (turn_id, session_no, preserved) VALUES (?, ?, ?)",
  );
  for (const d of rows) {
    const t = d.turn;
    const id = turnId(sessionNo, t.turnSeq);
    insTurn.run(
      id,
      sessionNo,
      t.turnSeq,
      t.uuid,
      t.parentUuid,
      t.recordType,
      t.toolName,
      t.ts,
      t.streamOffset,
      t.byteLen,
      t.isTyped ? 1 : 0,
      t.isSidechain ? 1 : 0,
      t.isToolResult ? 1 : 0,
    );
    if (d.body !== undefined && d.body !== "") insFts.run(id, d.body);
    for (const e of d.entities ?? []) insEnt.run(id, e.kind, e.value);
    for (const p of d.paths ?? []) insPath.run(id, p);
    if (d.quote) insText.run(id, d.quote, d.isReply ? 1 : 0);
    if (d.compaction) insCb.run(id, sessionNo, d.compaction.preserved);
  }
}

/**
 * Appends complete lines to a session's stream in one transaction: only the trailing partial
 * block is rewritten, completed blocks never move. Creates the session on first sight.
 */
export function appendSession(db: Db, a: AppendArgs): { sessionNo: number; turnsAdded: number } {
  db.exec("BEGIN IMMEDIATE");
  try {
    let state = sessionState(db, a.sessionKey);
    if (!state) {
      db.prepare("INSERT INTO sessions (session_key) VALUES (?)").run(a.sessionKey);
      const sessionNo = (db.prepare("SELECT session_no AS n FROM sessions WHERE session_key = ?")
        .get(a.sessionKey) as { n: number }).n;
      db.prepare("INSERT INTO session_meta (session_no, capture_mode) VALUES (?, ?)").run(
        sessionNo,
        a.meta.captureMode,
      );
      state = sessionState(db, a.sessionKey)!;
    }
    const no = state.sessionNo;
    const len = state.uncompressedLen;
    let firstBlock = Math.floor(len / BLOCK_BYTES);
    let head: Uint8Array = new Uint8Array(0);
    if (len % BLOCK_BYTES !== 0) {
      head = readBlock(db, no, firstBlock) ?? new Uint8Array(0);
      db.prepare("DELETE FROM blocks WHERE session_no = ? AND block_no = ?").run(no, firstBlock);
    }
    if (a.stream.length > 0) {
      const joined = new Uint8Array(head.length + a.stream.length);
      joined.set(head, 0);
      joined.set(a.stream, head.length);
      const ins = db.prepare(
        "INSERT INTO blocks (session_no, block_no, raw_len, hash, bytes) VALUES (?, ?, ?, ?, ?)",
      );
      for (let o = 0; o < joined.length; o += BLOCK_BYTES) {
        const raw = joined.subarray(o, Math.min(o + BLOCK_BYTES, joined.length));
        ins.run(no, firstBlock++, raw.length, blake3(raw), compress(raw));
      }
    } else if (head.length > 0) {
      // nothing new: put the partial block back untouched
      db.prepare(
        "INSERT INTO blocks (session_no, block_no, raw_len, hash, bytes) VALUES (?, ?, ?, ?, ?)",
      ).run(no, firstBlock, head.length, blake3(head), compress(head));
    }
    const hashes = (db.prepare("SELECT hash FROM blocks WHERE session_no = ? ORDER BY block_no")
      .all(no) as { hash: Uint8Array }[]).map((r) => r.hash);
    const newLen = len + a.stream.length;
    const m = a.meta;
    const lastTs = m.lastTurnAt;
    db.prepare(
      `UPDATE session_meta SET
         session_id = COALESCE(session_id, ?),
         transcript_path = ?,
         checksum = ?,
         uncompressed_len = ?,
         first_turn_at = COALESCE(first_turn_at, ?),
         last_turn_at = CASE WHEN ? IS NULL THEN last_turn_at
                             WHEN last_turn_at IS NULL OR ? > last_turn_at THEN ? ELSE last_turn_at END,
         cwd = COALESCE(cwd, ?),
         project = COALESCE(project, ?),
         project_pre_worktree = CASE WHEN project IS NULL THEN ? ELSE project_pre_worktree END,
         branch = COALESCE(?, branch),
         parent_session_key = COALESCE(parent_session_key, ?),
         agent_meta = COALESCE(?, agent_meta),
         continues_from = COALESCE(continues_from, ?),
         first_parent_uuid = CASE WHEN turn_count = 0 AND first_parent_uuid IS NULL THEN ? ELSE first_parent_uuid END,
         capture_mode = CASE WHEN capture_mode = ? THEN capture_mode ELSE 'mixed' END,
         turn_count = turn_count + ?
       WHERE session_no = ?`,
    ).run(
      m.sessionId,
      m.transcriptPath,
      sessionChecksum(hashes),
      newLen,
      m.firstTurnAt,
      lastTs,
      lastTs,
      lastTs,
      m.cwd,
      m.project,
      m.projectPreWorktree,
      m.branch,
      m.parentSessionKey,
      m.agentMeta,
      m.continuesFrom,
      m.firstParentUuid,
      m.captureMode,
      a.derived.length,
      no,
    );
    db.prepare(
      `INSERT INTO watermarks (session_no, transcript_path, offset, stream_len) VALUES (?, ?, ?, ?)
       ON CONFLICT(session_no) DO UPDATE SET transcript_path = excluded.transcript_path,
         offset = excluded.offset, stream_len = excluded.stream_len`,
    ).run(no, m.transcriptPath, a.offset, newLen);
    writeDerived(db, no, a.derived);
    if (a.titles) writeTranscriptTitles(db, no, a.titles);
    db.exec("COMMIT");
    return { sessionNo: no, turnsAdded: a.derived.length };
  } catch (e) {
    db.exec("ROLLBACK");
    throw e;
  }
}

export function markDiverged(db: Db, sessionNo: number): void {
  db.prepare("UPDATE session_meta SET transcript_diverged = 1 WHERE session_no = ?").run(sessionNo);
}

/** Reads `len` bytes of a session's stream from `offset`, decompressing only the blocks spanned. */
export function readStream(db: Db, sessionNo: number, offset: number, len: number): Uint8Array {
  const out = new Uint8Array(len);
  if (len === 0) return out;
  const first = Math.floor(offset / BLOCK_BYTES);
  const last = Math.floor((offset + len - 1) / BLOCK_BYTES);
  const rows = db.prepare(
    "SELECT block_no, bytes FROM blocks WHERE session_no = ? AND block_no BETWEEN ? AND ? ORDER BY block_no",
  ).all(sessionNo, first, last) as { block_no: number; bytes: Uint8Array }[];
  if (rows.length !== last - first + 1) throw new Error("blocks missing");
  let written = 0;
  for (const r of rows) {
    const raw = decompress(r.bytes);
    const blockStart = r.block_no * BLOCK_BYTES;
    const from = Math.max(offset, blockStart) - blockStart;
    const to = Math.min(offset + len, blockStart + raw.length) - blockStart;
    out.set(raw.subarray(from, to), written);
    written += to - from;
  }
  if (written !== len) throw new Error("blocks short");
  return out;
}

/** The whole uncompressed stream of a session. */
export function readWholeStream(db: Db, sessionNo: number): Uint8Array {
  const rows = db.prepare("SELECT bytes FROM blocks WHERE session_no = ? ORDER BY block_no").all(
    sessionNo,
  ) as { bytes: Uint8Array }[];
  const parts = rows.map((r) => decompress(r.bytes));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/* ---------- runs ---------- */

export interface RunRow {
  startedAt: string;
  durationMs: number;
  filesSeen: number;
  filesCommitted: number;
  filesFailed: number;
  bytesRead: number;
  turnsAdded: number;
  error: string | null;
  notes: string | null;
}

export function beginRun(db: Db, startedAt: string): number {
  db.prepare("INSERT INTO runs (started_at) VALUES (?)").run(startedAt);
  return (db.prepare("SELECT last_insert_rowid() AS id").get() as { id: number }).id;
}

export function finishRun(db: Db, id: number, r: RunRow): void {
  db.prepare(
    `UPDATE runs SET duration_ms = ?, files_seen = ?, files_committed = ?, files_failed = ?,
       bytes_read = ?, turns_added = ?, error = ?, notes = ? WHERE id = ?`,
  ).run(
    r.durationMs,
    r.filesSeen,
    r.filesCommitted,
    r.filesFailed,
    r.bytesRead,
    r.turnsAdded,
    r.error,
    r.notes,
    id,
  );
}

export function lastRun(db: Db): RunRow | null {
  const r = db.prepare(
    `SELECT started_at AS startedAt, duration_ms AS durationMs, files_seen AS filesSeen,
       files_committed AS filesCommitted, files_failed AS filesFailed, bytes_read AS bytesRead,
       turns_added AS turnsAdded, error, notes FROM runs ORDER BY id DESC LIMIT 1`,
  ).get() as RunRow | undefined;
  return r ?? null;
}

/* ---------- recovery, closing, lineage ---------- */

/**
 * Recovery, at the top of every pass: a watermark whose stream the blocks do not hold is
 * lowered to what they hold (full capture: file offset = stream offset), and a watermark with
 * no session is removed. Returns the notes to record.
 */
export function recoverWatermarks(db: Db): string[] {
  const notes: string[] = [];
  // Cheap first look on every pass: a watermark whose stream length disagrees with what its
  // session records (or with no session at all). Only those are summed over their blocks;
  // damage inside blocks that agree on length is `verify`'s to find.
  const candidates = db.prepare(
    `SELECT w.session_no AS no FROM watermarks w
       LEFT JOIN sessions s USING (session_no) LEFT JOIN session_meta m USING (session_no)
     WHERE s.session_no IS NULL OR (COALESCE(m.is_evicted, 0) = 0 AND
       COALESCE(m.uncompressed_len, 0) != w.stream_len)`,
  ).all() as { no: number }[];
  if (candidates.length === 0) return notes;
  const rows = db.prepare(
    `SELECT w.session_no AS no, w.offset AS offset, w.stream_len AS streamLen, s.session_key AS key,
       COALESCE(m.capture_mode, 'full') AS mode, COALESCE(m.is_evicted, 0) AS evicted,
       (SELECT COALESCE(SUM(raw_len), 0) FROM blocks b WHERE b.session_no = w.session_no) AS held
     FROM watermarks w LEFT JOIN sessions s USING (session_no) LEFT JOIN session_meta m USING (session_no)
     WHERE w.session_no IN (${candidates.map(() => "?").join(",")})`,
  ).all(...candidates.map((c) => c.no)) as {
    no: number;
    offset: number;
    streamLen: number;
    key: string | null;
    mode: string;
    evicted: number;
    held: number;
  }[];
  for (const r of rows) {
    if (r.key === null) {
      db.prepare("DELETE FROM watermarks WHERE session_no = ?").run(r.no);
      notes.push(`recovery removed a watermark for session ${r.no}, which has no archived session`);
      continue;
    }
    if (r.evicted === 1 || r.held >= r.streamLen) continue;
    if (r.mode === "full") {
      db.prepare("UPDATE watermarks SET offset = ?, stream_len = ? WHERE session_no = ?").run(
        r.held,
        r.held,
        r.no,
      );
      db.prepare("UPDATE session_meta SET uncompressed_len = ? WHERE session_no = ?").run(
        r.held,
        r.no,
      );
      notes.push(
        `recovery lowered the watermark of ${r.key} from ${r.offset} to ${r.held} byte(s), what its blocks hold`,
      );
    } else {
      notes.push(
        `recovery found ${r.key} holding ${r.held} of ${r.streamLen} byte(s); captured as ${r.mode}, so its watermark is kept`,
      );
    }
  }
  return notes;
}

/** Marks sessions final whose last turn is before `cutoff`; returns their session_nos. */
export function closeSessions(db: Db, cutoffIso: string): number[] {
  const rows = db.prepare(
    "SELECT session_no AS no FROM session_meta WHERE is_final = 0 AND last_turn_at IS NOT NULL AND last_turn_at < ?",
  ).all(cutoffIso) as { no: number }[];
  const upd = db.prepare("UPDATE session_meta SET is_final = 1 WHERE session_no = ?");
  for (const r of rows) upd.run(r.no);
  return rows.map((r) => r.no);
}

/** Fills continues_from from the first turn's parentUuid once the predecessor is archived. */
export function resolveContinuations(db: Db): number {
  const rows = db.prepare(
    `SELECT m.session_no AS no, m.first_parent_uuid AS parent, m.session_id AS sid
     FROM session_meta m WHERE m.continues_from IS NULL AND m.first_parent_uuid IS NOT NULL`,
  ).all() as { no: number; parent: string; sid: string | null }[];
  let n = 0;
  const find = db.prepare(
    `SELECT m.session_id AS sid FROM turns t JOIN session_meta m ON m.session_no = t.session_no
     WHERE t.uuid = ? AND t.session_no != ? AND m.session_id IS NOT NULL LIMIT 1`,
  );
  const upd = db.prepare("UPDATE session_meta SET continues_from = ? WHERE session_no = ?");
  for (const r of rows) {
    const hit = find.get(r.parent, r.no) as { sid: string } | undefined;
    if (hit && hit.sid !== r.sid) {
      upd.run(hit.sid, r.no);
      n++;
    }
  }
  return n;
}

/* ---------- rebuilding derived rows ---------- */

export interface RebuildTarget {
  sessionNo: number;
  sessionKey: string;
  evicted: boolean;
  sidecar: boolean;
}

export function rebuildTargets(db: Db): RebuildTarget[] {
  return (db.prepare(
    `SELECT s.session_no AS sessionNo, s.session_key AS sessionKey,
       COALESCE(m.is_evicted, 0) AS evicted, m.parent_session_key IS NOT NULL AS sidecar
     FROM sessions s LEFT JOIN session_meta m USING (session_no) ORDER BY s.session_no`,
  ).all() as { sessionNo: number; sessionKey: string; evicted: number; sidecar: number }[]).map((
    r,
  ) => ({ ...r, evicted: r.evicted === 1, sidecar: r.sidecar === 1 }));
}

/** Empties the search index, its BM25 totals included. */
export function clearSearchIndex(db: Db): void {
  db.exec("INSERT INTO turns_fts(turns_fts) VALUES ('delete-all')");
}

/** Removes one session's derived rows (turns, FTS, entities, paths, compactions). */
export function deleteDerived(db: Db, sessionNo: number): void {
  const lo = turnId(sessionNo, 0);
  const hi = turnId(sessionNo + 1, 0);
  db.prepare("DELETE FROM turns_fts WHERE rowid >= ? AND rowid < ?").run(lo, hi);
  db.prepare("DELETE FROM entities WHERE turn_id >= ? AND turn_id < ?").run(lo, hi);
  db.prepare("DELETE FROM paths WHERE turn_id >= ? AND turn_id < ?").run(lo, hi);
  db.prepare("DELETE FROM turn_text WHERE turn_id >= ? AND turn_id < ?").run(lo, hi);
  db.prepare("DELETE FROM compaction_boundaries WHERE session_no = ?").run(sessionNo);
  db.prepare("DELETE FROM turns WHERE session_no = ?").run(sessionNo);
}

export function setTurnCount(db: Db, sessionNo: number, n: number): void {
  db.prepare("UPDATE session_meta SET turn_count = ? WHERE session_no = ?").run(n, sessionNo);
}

/* ---------- observations ---------- */

export interface ObserveTarget {
  sessionNo: number;
  sessionKey: string;
  branch: string | null;
  evicted: boolean;
}

/** Closed sessions with no observation yet, oldest first. */
export function unobservedClosed(db: Db): ObserveTarget[] {
  return (db.prepare(
    `SELECT s.session_no AS sessionNo, s.session_key AS sessionKey, m.branch AS branch,
       m.is_evicted AS evicted
     FROM sessions s JOIN session_meta m USING (session_no)
     WHERE m.is_final = 1 AND m.observed = 0 ORDER BY s.session_no`,
  ).all() as { sessionNo: number; sessionKey: string; branch: string | null; evicted: number }[])
    .map((r) => ({ ...r, evicted: r.evicted === 1 }));
}

export function writeObservation(
  db: Db,
  sessionNo: number,
  generatedAt: string,
  mechanical: string,
): void {
  db.prepare(
    `INSERT INTO observations (session_no, generated_at, mechanical) VALUES (?, ?, ?)
     ON CONFLICT(session_no) DO UPDATE SET generated_at = excluded.generated_at, mechanical = excluded.mechanical`,
  ).run(sessionNo, generatedAt, mechanical);
  db.prepare("UPDATE session_meta SET observed = 1 WHERE session_no = ?").run(sessionNo);
}

/** Rewrites only the mechanical column (regenerate). */
export function rewriteMechanical(db: Db, sessionNo: number, mechanical: string): void {
  db.prepare("UPDATE observations SET mechanical = ? WHERE session_no = ?").run(
    mechanical,
    sessionNo,
  );
}

/** Eviction removes a session's text: its blocks and the quotable text kept for the hooks. */
export function clearQuotes(db: Db, sessionNo: number): void {
  db.prepare("DELETE FROM turn_text WHERE turn_id >= ? AND turn_id < ?").run(
    turnId(sessionNo, 0),
    turnId(sessionNo + 1, 0),
  );
}
