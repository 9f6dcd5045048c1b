/** The derived rows of turns (turns, search index, entities, paths, quotes, compactions). */
import { cached, type Db } from "./db.ts";
import { pathName, prunePathNames } from "./path_names.ts";
import { ENTITY_ACT } from "../constants.ts";
import { ftsRowid, turnId } from "./ids.ts";

export { turnId };

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
  /** `act`: how the turn touched it (ENTITY_ACT); absent is a mention. */
  entities?: { kind: string; value: string; act?: number }[];
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

/** A search-index row: the turn id and its body. */
export type FtsRow = [rowid: number, body: string];

/**
 * Writes the turns' rows. With `deferFts`, the search-index rows are returned instead, for the
 * caller to write with `insertFts` later in the same transaction: FTS5 flushes its pending
 * terms to a new segment at every savepoint, so writing them per file made one small segment
 * per file, and merging those back cost more than the inserts. Without it, none are returned.
 */
export function writeDerived(
  db: Db,
  sessionNo: number,
  rows: DerivedRows[],
  deferFts = false,
): FtsRow[] {
  if (rows.length === 0) return [];
  // positional parameters: binding an object by name cost twice as much per row
  const insTurn = cached(
    db,
    `INSERT INTO turns (id, session_no, turn_seq, uuid, parent_uuid, record_type, tool_name, ts,
       stream_offset, byte_len, is_typed, is_sidechain, is_tool_result)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insEnt = cached(
    db,
    "INSERT INTO entities (turn_id, kind, value, act) VALUES (?, ?, ?, ?)",
  );
  const insName = cached(db, "INSERT OR IGNORE INTO path_names (name, path) VALUES (?, ?)");
  const named = new Set<string>();
  const insPath = cached(db, "INSERT INTO paths (turn_id, path) VALUES (?, ?)");
  const insText = cached(db, "INSERT INTO turn_text (turn_id, text, is_reply) VALUES (?, ?, ?)");
  const insCb = cached(
    db,
    "INSERT INTO compaction_boundaries (turn_id, session_no, preserved) VALUES (?, ?, ?)",
  );
  const search: FtsRow[] = [];
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
    if (d.body !== undefined && d.body !== "") search.push([id, d.body]);
    for (const e of d.entities ?? []) insEnt.run(id, e.kind, e.value, e.act ?? ENTITY_ACT.mention);
    for (const p of d.paths ?? []) {
      insPath.run(id, p);
      if (!named.has(p)) {
        named.add(p);
        const n = pathName(p);
        if (n !== null) insName.run(n, p);
      }
    }
    if (d.quote) insText.run(id, d.quote, d.isReply ? 1 : 0);
    if (d.compaction) insCb.run(id, sessionNo, d.compaction.preserved);
  }
  if (deferFts) return search;
  insertFts(db, search);
  return [];
}

export function insertFts(db: Db, rows: FtsRow[]): void {
  const ins = cached(db, "INSERT INTO turns_fts (rowid, body) VALUES (?, ?)");
  for (const [id, body] of rows) ins.run(id, body);
}

/**
 * Sets how many bytes of pending terms the search index buffers before it flushes them to a
 * segment (FTS5's `hashsize`, stored in the index's config), when it is not that already.
 * Inside a write transaction: a pass with nothing to write never writes it.
 */
export function setFtsPendingBytes(db: Db, bytes: number): void {
  const r = cached(db, "SELECT v FROM turns_fts_config WHERE k = 'hashsize'").get() as
    | { v: number }
    | undefined;
  if (r?.v === bytes) return;
  // a literal: FTS5 refuses a bound parameter for a config value
  db.exec(`INSERT INTO turns_fts(turns_fts, rank) VALUES ('hashsize', ${Math.trunc(bytes)})`);
}

/** A closed session that gains turns is open again, and its observation is due afresh. */
export function reopenIfFinal(db: Db, sessionNo: number): void {
  db.prepare(
    "UPDATE session_meta SET is_final = 0, observed = 0 WHERE session_no = ? AND is_final = 1",
  ).run(sessionNo);
}

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

/**
 * Removes one session's derived rows (turns, FTS, entities, paths, quotes, compactions), all
 * of them or those from turn `fromSeq` on.
 */
export function deleteDerived(db: Db, sessionNo: number, fromSeq = 0): void {
  const range = { lo: turnId(sessionNo, fromSeq), hi: turnId(sessionNo + 1, 0) };
  const gone = (db.prepare(
    "SELECT DISTINCT path FROM paths WHERE turn_id >= :lo AND turn_id < :hi",
  ).all(range) as { path: string }[]).map((r) => r.path);
  // as integers: FTS5 drops a REAL rowid bound and walks its whole index (77-158 ms a session
  // at ~3 GB, against 0.3)
  db.prepare("DELETE FROM turns_fts WHERE rowid >= :lo AND rowid < :hi").run({
    lo: ftsRowid(range.lo),
    hi: ftsRowid(range.hi),
  });
  db.prepare("DELETE FROM entities WHERE turn_id >= :lo AND turn_id < :hi").run(range);
  db.prepare("DELETE FROM paths WHERE turn_id >= :lo AND turn_id < :hi").run(range);
  db.prepare("DELETE FROM turn_text WHERE turn_id >= :lo AND turn_id < :hi").run(range);
  db.prepare("DELETE FROM compaction_boundaries WHERE turn_id >= :lo AND turn_id < :hi").run(range);
  db.prepare("DELETE FROM turns WHERE id >= :lo AND id < :hi").run(range);
  prunePathNames(db, gone);
}

/**
 * Removes the rows of the turns that do not lie wholly before stream offset `cut` (with their
 * newline); returns how many turns are left.
 */
export function deleteDerivedFrom(db: Db, sessionNo: number, cut: number): number {
  const first = db.prepare(
    "SELECT min(turn_seq) AS seq FROM turns WHERE session_no = ? AND stream_offset + byte_len >= ?",
  ).get(sessionNo, cut) as { seq: number | null };
  if (first.seq !== null) deleteDerived(db, sessionNo, first.seq);
  return (db.prepare("SELECT count(*) AS n FROM turns WHERE session_no = ?").get(sessionNo) as {
    n: number;
  }).n;
}

/** Removes the derived rows of the given turns only. */
export function deleteDerivedTurns(db: Db, sessionNo: number, seqs: number[]): void {
  const fts = db.prepare("DELETE FROM turns_fts WHERE rowid = ?");
  const stmts = [
    "DELETE FROM entities WHERE turn_id = ?",
    "DELETE FROM paths WHERE turn_id = ?",
    "DELETE FROM turn_text WHERE turn_id = ?",
    "DELETE FROM compaction_boundaries WHERE turn_id = ?",
    "DELETE FROM turns WHERE id = ?",
  ].map((sql) => db.prepare(sql));
  const pathsOf = db.prepare("SELECT path FROM paths WHERE turn_id = ?");
  const gone: string[] = [];
  for (const seq of seqs) {
    const id = turnId(sessionNo, seq);
    for (const r of pathsOf.all(id) as { path: string }[]) gone.push(r.path);
    fts.run(ftsRowid(id));
    for (const st of stmts) st.run(id);
  }
  prunePathNames(db, gone);
}

/** Where each archived turn of a session lies in its stream, in turn order. */
export function turnSpans(
  db: Db,
  sessionNo: number,
): { turnSeq: number; streamOffset: number; byteLen: number }[] {
  return db.prepare(
    `SELECT turn_seq AS turnSeq, stream_offset AS streamOffset, byte_len AS byteLen
     FROM turns WHERE session_no = ? ORDER BY turn_seq`,
  ).all(sessionNo) as { turnSeq: number; streamOffset: number; byteLen: number }[];
}

export function setTurnCount(db: Db, sessionNo: number, n: number): void {
  db.prepare("UPDATE session_meta SET turn_count = ? WHERE session_no = ?").run(n, sessionNo);
}

/** Eviction removes a session's text: its blocks and the quotable text kept for the hooks. */
export function clearQuotes(db: Db, sessionNo: number): void {
  db.prepare("DELETE FROM turn_text WHERE turn_id >= ? AND turn_id < ?").run(
    turnId(sessionNo, 0),
    turnId(sessionNo + 1, 0),
  );
}
