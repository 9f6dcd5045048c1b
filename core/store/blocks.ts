/**
 * Sessions' streams: the blocks, session_meta and watermarks, written in one transaction per
 * file together with that file's derived rows. Only core/store/ speaks SQL.
 */
import { cached, cachedArrays, type Db, transaction } from "./db.ts";
import { BLOCK_BYTES } from "../constants.ts";
import { concat, sameBytes } from "../bytes.ts";
import { blake3, compress, decompress, type Frame, frameBlocks, sessionChecksum } from "./codec.ts";
import { type DerivedRows, type FtsRow, reopenIfFinal, writeDerived } from "./derived.ts";
import type { TranscriptTitles } from "../transcript/titles.ts";
import { writeTranscriptTitles } from "./sessions_sql.ts";

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

// The columns in SessionState's order: read as arrays (see `toState`).
const STATE_SQL = `
SELECT s.session_no, s.session_key, m.session_id, m.project, m.cwd,
       COALESCE(m.uncompressed_len, 0), COALESCE(m.turn_count, 0), w.offset, w.stream_len,
       COALESCE(m.transcript_diverged, 0), COALESCE(m.is_evicted, 0), m.first_turn_at,
       COALESCE(m.capture_mode, 'full')
FROM sessions s LEFT JOIN session_meta m USING (session_no) LEFT JOIN watermarks w USING (session_no)`;

type StateRow = [
  number,
  string,
  string | null,
  string | null,
  string | null,
  number,
  number,
  number | null,
  number | null,
  number,
  number,
  string | null,
  string,
];

/** A state row, its columns in the order above (see `cachedArrays`). */
function toState(r: StateRow): SessionState {
  return {
    sessionNo: r[0],
    sessionKey: r[1],
    sessionId: r[2],
    project: r[3],
    cwd: r[4],
    uncompressedLen: r[5],
    turnCount: r[6],
    offset: r[7],
    streamLen: r[8],
    diverged: r[9] === 1,
    evicted: r[10] === 1,
    firstTurnAt: r[11],
    captureMode: r[12],
  };
}

/** Every session's state, keyed by session_key: one query for the whole pass. */
export function allSessionStates(db: Db): Map<string, SessionState> {
  const m = new Map<string, SessionState>();
  for (const r of cachedArrays(db, STATE_SQL).all() as unknown as StateRow[]) {
    m.set(r[1], toState(r));
  }
  return m;
}

export function sessionState(db: Db, key: string): SessionState | null {
  const r = cachedArrays(db, STATE_SQL + " WHERE s.session_key = ?").get(key) as unknown as
    | StateRow
    | undefined;
  return r ? toState(r) : null;
}

/** Whether an append to this session first reads back its trailing partial block. */
export function readsTrailingBlock(db: Db, key: string): boolean {
  const s = sessionState(db, key);
  return s !== null && s.uncompressedLen % BLOCK_BYTES !== 0;
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
  /**
   * `stream` already framed (on the derive worker), from the block boundary `from`, with the
   * `head` bytes before the stream's start that the stored trailing block held; used only when
   * the stored stream still ends where the stream starts and that block is the same bytes.
   */
  framed?: { from: number; head: number; headHash: Uint8Array | null; frames: Frame[] };
  /**
   * Hands the search-index rows back instead of writing them (see `writeDerived`), for the
   * caller to write with its batch's commit.
   */
  deferFts?: boolean;
}

/** What an append did: the session, its new turns, and the search rows it was asked to defer. */
export interface Appended {
  sessionNo: number;
  turnsAdded: number;
  fts: FtsRow[];
}

/** The stored block is the bytes the worker framed as the head: its length and hash match. */
function headStored(
  db: Db,
  sessionNo: number,
  blockNo: number,
  head: number,
  hash: Uint8Array,
): boolean {
  const r = cached(db, "SELECT raw_len, hash FROM blocks WHERE session_no = ? AND block_no = ?")
    .get(sessionNo, blockNo) as { raw_len: number; hash: Uint8Array } | undefined;
  return r !== undefined && r.raw_len === head && sameBytes(r.hash, hash);
}

function readBlock(db: Db, sessionNo: number, blockNo: number): Uint8Array | null {
  const r = cached(db, "SELECT bytes FROM blocks WHERE session_no = ? AND block_no = ?").get(
    sessionNo,
    blockNo,
  ) as { bytes: Uint8Array } | undefined;
  return r ? decompress(r.bytes) : null;
}

/**
 * Appends complete lines to a session's stream in one transaction: only the trailing partial
 * block is rewritten, completed blocks never move. Creates the session on first sight.
 */
export function appendSession(db: Db, a: AppendArgs): Appended {
  return transaction(db, () => {
    let state = sessionState(db, a.sessionKey);
    if (!state) {
      cached(db, "INSERT INTO sessions (session_key) VALUES (?)").run(a.sessionKey);
      const sessionNo = (cached(db, "SELECT session_no AS n FROM sessions WHERE session_key = ?")
        .get(a.sessionKey) as { n: number }).n;
      cached(db, "INSERT INTO session_meta (session_no, capture_mode) VALUES (?, ?)").run(
        sessionNo,
        a.meta.captureMode,
      );
      state = sessionState(db, a.sessionKey)!;
    }
    const no = state.sessionNo;
    const len = state.uncompressedLen;
    const firstBlock = Math.floor(len / BLOCK_BYTES);
    let frames: Frame[];
    const f = a.framed;
    // frames for this stream's end: from the stored trailing block's start, its bytes joined
    const fits = f !== undefined && f.from === firstBlock * BLOCK_BYTES && f.from + f.head === len;
    if (fits && f.head === 0) {
      frames = f.frames;
    } else if (fits && f.headHash && headStored(db, no, firstBlock, f.head, f.headHash)) {
      // the worker joined the stored trailing block to the new bytes: it is replaced whole
      cached(db, "DELETE FROM blocks WHERE session_no = ? AND block_no = ?").run(no, firstBlock);
      frames = f.frames;
    } else {
      // the trailing partial block is read back, joined with the new bytes and framed again
      let head: Uint8Array = new Uint8Array(0);
      if (len % BLOCK_BYTES !== 0) {
        head = readBlock(db, no, firstBlock) ?? new Uint8Array(0);
        cached(db, "DELETE FROM blocks WHERE session_no = ? AND block_no = ?").run(no, firstBlock);
      }
      // with nothing new, the partial block goes back untouched
      frames = frameBlocks(a.stream.length > 0 ? concat([head, a.stream]) : head, firstBlock);
    }
    const ins = cached(
      db,
      "INSERT INTO blocks (session_no, block_no, raw_len, hash, bytes) VALUES (?, ?, ?, ?, ?)",
    );
    for (const f of frames) ins.run(no, f.blockNo, f.rawLen, f.hash, f.bytes);
    const m = a.meta;
    cached(
      db,
      `UPDATE session_meta SET
         session_id = COALESCE(session_id, :sessionId),
         transcript_path = :transcriptPath,
         checksum = :checksum,
         uncompressed_len = :len,
         first_turn_at = COALESCE(first_turn_at, :firstTurnAt),
         last_turn_at = CASE WHEN :lastTurnAt IS NULL THEN last_turn_at
                             WHEN last_turn_at IS NULL OR :lastTurnAt > last_turn_at THEN :lastTurnAt
                             ELSE last_turn_at END,
         cwd = COALESCE(cwd, :cwd),
         project = COALESCE(project, :project),
         project_pre_worktree = CASE WHEN project IS NULL THEN :projectPreWorktree
                                     ELSE project_pre_worktree END,
         branch = COALESCE(:branch, branch),
         parent_session_key = COALESCE(parent_session_key, :parentSessionKey),
         agent_meta = COALESCE(:agentMeta, agent_meta),
         continues_from = COALESCE(continues_from, :continuesFrom),
         first_parent_uuid = CASE WHEN turn_count = 0 AND first_parent_uuid IS NULL
                                  THEN :firstParentUuid ELSE first_parent_uuid END,
         capture_mode = CASE WHEN capture_mode = :captureMode THEN capture_mode ELSE 'mixed' END,
         turn_count = turn_count + :turnsAdded
       WHERE session_no = :sessionNo`,
    ).run({
      sessionId: m.sessionId,
      transcriptPath: m.transcriptPath,
      checksum: checksumOf(db, no),
      len: len + a.stream.length,
      firstTurnAt: m.firstTurnAt,
      lastTurnAt: m.lastTurnAt,
      cwd: m.cwd,
      project: m.project,
      projectPreWorktree: m.projectPreWorktree,
      branch: m.branch,
      parentSessionKey: m.parentSessionKey,
      agentMeta: m.agentMeta,
      continuesFrom: m.continuesFrom,
      firstParentUuid: m.firstParentUuid,
      captureMode: m.captureMode,
      turnsAdded: a.derived.length,
      sessionNo: no,
    });
    cached(
      db,
      `INSERT INTO watermarks (session_no, transcript_path, offset, stream_len) VALUES (?, ?, ?, ?)
       ON CONFLICT(session_no) DO UPDATE SET transcript_path = excluded.transcript_path,
         offset = excluded.offset, stream_len = excluded.stream_len`,
    ).run(no, m.transcriptPath, a.offset, len + a.stream.length);
    const fts = writeDerived(db, no, a.derived, a.deferFts);
    if (a.titles) writeTranscriptTitles(db, no, a.titles);
    // Claude Code resumes a closed session into the same file: new turns reopen it, and it is
    // observed afresh once it closes again
    if (a.derived.length > 0) reopenIfFinal(db, no);
    return { sessionNo: no, turnsAdded: a.derived.length, fts };
  });
}

/**
 * The session checksum over its block hashes, concatenated by SQLite into one value: a file
 * archived window by window recomputes it per window, and one small array per block made a
 * multi-GB session's pass grow by hundreds of MiB of garbage.
 */
function checksumOf(db: Db, sessionNo: number): Uint8Array {
  const r = cached(
    db,
    "SELECT CAST(group_concat(hash, x'' ORDER BY block_no) AS BLOB) AS hashes FROM blocks WHERE session_no = ?",
  ).get(sessionNo) as { hashes: Uint8Array | null };
  return blake3(r.hashes ?? new Uint8Array(0));
}

export function markDiverged(db: Db, sessionNo: number): void {
  db.prepare("UPDATE session_meta SET transcript_diverged = 1 WHERE session_no = ?").run(sessionNo);
}

/**
 * The last block a run of reads decompressed, in a buffer kept for the next one: reads in
 * stream order (one search's excerpts, a session's turns) take a block their neighbour
 * decompressed from it, and every other block is decompressed into the same buffer.
 */
export class BlockCache {
  private buf: Uint8Array | null = null;
  private key = -1;
  private session = -1;
  private bytes: Uint8Array = new Uint8Array(0);

  /** Block `blockNo` of `sessionNo`, decompressed from `frame` unless it is the one held. */
  block(sessionNo: number, blockNo: number, frame: Uint8Array, rawLen: number): Uint8Array {
    if (this.session === sessionNo && this.key === blockNo) return this.bytes;
    this.buf ??= new Uint8Array(BLOCK_BYTES);
    // a block is never longer than BLOCK_BYTES; a damaged row claiming more gets a buffer of its own
    const into = rawLen <= this.buf.length ? this.buf : undefined;
    this.session = -1; // nothing held while a throw may leave the buffer half written
    this.bytes = decompress(frame, rawLen, into);
    this.session = sessionNo;
    this.key = blockNo;
    return this.bytes;
  }
}

/**
 * Reads `len` bytes of a session's stream from `offset`, decompressing only the blocks spanned.
 * With `cache`, a block the previous read decompressed is taken from it (see BlockCache).
 */
export function readStream(
  db: Db,
  sessionNo: number,
  offset: number,
  len: number,
  cache: BlockCache = new BlockCache(),
): Uint8Array {
  const out = new Uint8Array(len);
  if (len === 0) return out;
  const first = Math.floor(offset / BLOCK_BYTES);
  const last = Math.floor((offset + len - 1) / BLOCK_BYTES);
  const rows = cached(
    db,
    "SELECT block_no, raw_len, bytes FROM blocks WHERE session_no = ? AND block_no BETWEEN ? AND ? ORDER BY block_no",
  ).all(sessionNo, first, last) as { block_no: number; raw_len: number; bytes: Uint8Array }[];
  if (rows.length !== last - first + 1) throw new Error("blocks missing");
  let written = 0;
  for (const r of rows) {
    const raw = cache.block(sessionNo, r.block_no, r.bytes, r.raw_len);
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
  return concat(rows.map((r) => decompress(r.bytes)));
}

export interface DamagedBlock {
  block: number;
  /** The span of the stream the block should hold. */
  from: number;
  to: number;
  detail: string;
}

/**
 * The whole stream of a session with every block checked against its hash. A block that does
 * not decompress, or decompresses to other bytes, is named and its span zero-filled, so the
 * caller can keep what the other blocks still hold.
 */
export function readCheckedStream(
  db: Db,
  sessionNo: number,
): { stream: Uint8Array; damaged: DamagedBlock[] } {
  const rows = db.prepare(
    "SELECT block_no, raw_len, hash, bytes FROM blocks WHERE session_no = ? ORDER BY block_no",
  ).all(sessionNo) as { block_no: number; raw_len: number; hash: Uint8Array; bytes: Uint8Array }[];
  const damaged: DamagedBlock[] = [];
  const stream = new Uint8Array(rows.reduce((n, r) => n + r.raw_len, 0));
  let o = 0;
  for (const r of rows) {
    let detail: string | null = null;
    try {
      const raw = decompress(r.bytes);
      if (raw.length !== r.raw_len) detail = `holds ${raw.length} byte(s), not ${r.raw_len}`;
      else if (!sameBytes(blake3(raw), r.hash)) detail = "its bytes do not match its hash";
      else stream.set(raw, o);
    } catch (e) {
      detail = `does not decompress: ${(e as Error).message}`;
    }
    if (r.block_no * BLOCK_BYTES !== o && detail === null) detail = "is out of place";
    if (detail !== null) damaged.push({ block: r.block_no, from: o, to: o + r.raw_len, detail });
    o += r.raw_len;
  }
  return { stream, damaged };
}

/** One block of a session as read back and checked: its raw bytes, or why it is damaged. */
export interface CheckedBlock {
  block: number;
  /** Where it should lie in the stream. */
  from: number;
  raw: Uint8Array | null;
  rawLen: number;
  detail: string | null;
}

/**
 * A session's blocks one at a time, each checked as readCheckedStream checks them, so a reader
 * of a multi-GB session holds one block (64 KiB), not the stream.
 */
export function* checkedBlocks(db: Db, sessionNo: number): Generator<CheckedBlock> {
  const next = db.prepare(
    "SELECT block_no, raw_len, hash, bytes FROM blocks WHERE session_no = ? AND block_no >= ? ORDER BY block_no LIMIT 1",
  );
  let o = 0;
  for (let at = 0;;) {
    const r = next.get(sessionNo, at) as
      | { block_no: number; raw_len: number; hash: Uint8Array; bytes: Uint8Array }
      | undefined;
    if (!r) return;
    at = r.block_no + 1;
    let detail: string | null = null;
    let raw: Uint8Array | null = null;
    try {
      raw = decompress(r.bytes);
      if (raw.length !== r.raw_len) detail = `holds ${raw.length} byte(s), not ${r.raw_len}`;
      else if (!sameBytes(blake3(raw), r.hash)) detail = "its bytes do not match its hash";
    } catch (e) {
      detail = `does not decompress: ${(e as Error).message}`;
    }
    if (r.block_no * BLOCK_BYTES !== o && detail === null) detail = "is out of place";
    yield {
      block: r.block_no,
      from: o,
      raw: detail === null ? raw : null,
      rawLen: r.raw_len,
      detail,
    };
    o += r.raw_len;
  }
}

/**
 * Cuts a session's stream back to the end of its last whole line, rewriting the trailing block
 * when the cut falls inside it, and records the new length and checksum. Returns the length.
 */
export function truncateToLine(db: Db, sessionNo: number): number {
  const rows = db.prepare(
    "SELECT block_no, raw_len FROM blocks WHERE session_no = ? ORDER BY block_no DESC",
  ).all(sessionNo) as { block_no: number; raw_len: number }[];
  let cut = 0;
  for (const r of rows) {
    const raw = readBlock(db, sessionNo, r.block_no)!;
    const nl = raw.lastIndexOf(0x0a);
    if (nl < 0) {
      db.prepare("DELETE FROM blocks WHERE session_no = ? AND block_no = ?").run(
        sessionNo,
        r.block_no,
      );
      continue;
    }
    if (nl + 1 < raw.length) {
      const kept = raw.subarray(0, nl + 1);
      db.prepare(
        "UPDATE blocks SET raw_len = ?, hash = ?, bytes = ? WHERE session_no = ? AND block_no = ?",
      ).run(kept.length, blake3(kept), compress(kept), sessionNo, r.block_no);
    }
    cut = r.block_no * BLOCK_BYTES + nl + 1;
    break;
  }
  const hashes = (db.prepare("SELECT hash FROM blocks WHERE session_no = ? ORDER BY block_no")
    .all(sessionNo) as { hash: Uint8Array }[]).map((r) => r.hash);
  db.prepare("UPDATE session_meta SET uncompressed_len = ?, checksum = ? WHERE session_no = ?").run(
    cut,
    sessionChecksum(hashes),
    sessionNo,
  );
  return cut;
}
