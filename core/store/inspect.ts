/** Read-only questions about the store as a whole: counts, sizes, integrity. */
import type { Db } from "./db.ts";
import { blake3, decompress, sessionChecksum } from "./codec.ts";
import { BLOCK_BYTES } from "../constants.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";

export interface Counts {
  sessions: number;
  turns: number;
  watermarks: number;
  watermarkBytes: number;
}

export function counts(db: Db): Counts {
  const one = (sql: string) => (db.prepare(sql).get() as { n: number | null }).n ?? 0;
  return {
    sessions: one("SELECT count(*) AS n FROM sessions"),
    turns: one("SELECT count(*) AS n FROM turns"),
    watermarks: one("SELECT count(*) AS n FROM watermarks"),
    watermarkBytes: one("SELECT sum(offset) AS n FROM watermarks"),
  };
}

export interface FileSizes {
  db: number;
  wal: number;
  shm: number;
  total: number;
}

export function fileSizes(path: string): FileSizes {
  const size = (p: string) => {
    try {
      return Deno.statSync(p).size;
    } catch {
      return 0;
    }
  };
  const db = size(path);
  const wal = size(path + "-wal");
  const shm = size(path + "-shm");
  return { db, wal, shm, total: db + wal + shm };
}

export interface VerifyFailure {
  session_key: string;
  block: number | null;
  detail: string;
}

export interface VerifyReport {
  checked: number;
  failures: VerifyFailure[];
  /** Sessions whose transcript on disk is shorter than the archive: about the file, not damage. */
  diverged: string[];
}

/** Checks every block against its hash and every session's checksum over the block hashes. */
export function verifyStore(db: Db): VerifyReport {
  const sessions = db.prepare(
    `SELECT s.session_no AS no, s.session_key AS key, m.session_no IS NOT NULL AS hasMeta,
       m.checksum AS checksum, m.uncompressed_len AS len, m.is_evicted AS evicted,
       m.transcript_diverged AS diverged, m.transcript_path AS path, w.offset AS offset
     FROM sessions s LEFT JOIN session_meta m USING (session_no) LEFT JOIN watermarks w USING (session_no)
     ORDER BY s.session_no`,
  ).all() as {
    no: number;
    key: string;
    hasMeta: number;
    checksum: Uint8Array | null;
    len: number | null;
    evicted: number | null;
    diverged: number | null;
    path: string | null;
    offset: number | null;
  }[];
  const blocks = db.prepare(
    "SELECT block_no, raw_len, hash, bytes FROM blocks WHERE session_no = ? ORDER BY block_no",
  );
  const report: VerifyReport = { checked: 0, failures: [], diverged: [] };
  for (const s of sessions) {
    report.checked++;
    const fail = (block: number | null, detail: string) =>
      report.failures.push({ session_key: s.key, block, detail });
    if (!s.hasMeta) {
      fail(null, "the session has no session_meta row");
      continue;
    }
    const rows = blocks.all(s.no) as {
      block_no: number;
      raw_len: number;
      hash: Uint8Array;
      bytes: Uint8Array;
    }[];
    if (s.evicted === 1) {
      if (rows.length > 0) fail(null, `evicted, yet ${rows.length} block(s) are still stored`);
      continue;
    }
    let total = 0;
    const hashes: Uint8Array[] = [];
    let expectNo = 0;
    for (const b of rows) {
      if (b.block_no !== expectNo) {
        fail(expectNo, "block is missing");
        expectNo = b.block_no;
      }
      expectNo++;
      hashes.push(b.hash);
      let raw: Uint8Array;
      try {
        raw = decompress(b.bytes);
      } catch (e) {
        fail(b.block_no, `does not decompress: ${(e as Error).message}`);
        total += b.raw_len;
        continue;
      }
      total += raw.length;
      if (raw.length !== b.raw_len) {
        fail(b.block_no, `holds ${raw.length} byte(s), ${b.raw_len} recorded`);
      } else if (!equal(blake3(raw), b.hash)) {
        fail(b.block_no, "BLAKE3 hash does not match the recorded hash");
      } else if (b.block_no < rows.length - 1 && raw.length !== BLOCK_BYTES) {
        fail(b.block_no, `is a short block (${raw.length} byte(s)) before the last`);
      }
    }
    if (!s.checksum || !equal(sessionChecksum(hashes), s.checksum)) {
      fail(null, "session checksum does not match the block hashes");
    }
    if ((s.len ?? 0) !== total) {
      fail(null, `blocks hold ${total} byte(s), ${s.len ?? 0} recorded`);
    }
    if (s.diverged === 1) {
      report.diverged.push(s.key);
    } else if (s.path && s.offset !== null) {
      try {
        if (Deno.statSync(s.path).size < s.offset) report.diverged.push(s.key);
      } catch {
        // a transcript Claude Code has deleted is not a divergence
      }
    }
  }
  return report;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Each table's and index's bytes and pages (SQLite's dbstat), largest first. */
export function objectSizes(db: Db): { name: string; bytes: number; pages: number }[] {
  return db.prepare(
    "SELECT name, sum(pgsize) AS bytes, count(*) AS pages FROM dbstat GROUP BY name ORDER BY bytes DESC",
  ).all() as { name: string; bytes: number; pages: number }[];
}

/** The file's page size, its pages and how many of them are free. */
export function pageCounts(db: Db): { pageSize: number; pages: number; freePages: number } {
  const one = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
  return {
    pageSize: one("SELECT page_size AS n FROM pragma_page_size"),
    pages: one("SELECT page_count AS n FROM pragma_page_count"),
    freePages: one("SELECT freelist_count AS n FROM pragma_freelist_count"),
  };
}

/** The blocks' count, raw and stored bytes, and how many are full (BLOCK_BYTES raw). */
export function blockTotals(
  db: Db,
): { blocks: number; raw: number; stored: number; fullBlocks: number } {
  return db.prepare(
    `SELECT count(*) AS blocks, sum(raw_len) AS raw, sum(length(bytes)) AS stored,
       sum(raw_len = ${BLOCK_BYTES}) AS fullBlocks FROM blocks`,
  ).get() as { blocks: number; raw: number; stored: number; fullBlocks: number };
}

/** Every project a session was filed under. */
export function archivedProjects(db: Db): Set<string> {
  return new Set(
    (db.prepare("SELECT DISTINCT project AS p FROM session_meta WHERE project IS NOT NULL")
      .all() as { p: string }[]).map((r) => r.p),
  );
}

/** The project with the most main-thread sessions: its sessions and turns. */
export function busiestProject(
  db: Db,
): { project: string; sessions: number; turns: number } | null {
  return (db.prepare(
    `SELECT project, count(*) AS sessions, sum(turn_count) AS turns FROM session_meta
     WHERE project IS NOT NULL AND parent_session_key IS NULL
     GROUP BY project ORDER BY sessions DESC, project LIMIT 1`,
  ).get() as { project: string; sessions: number; turns: number } | undefined) ?? null;
}

/** Distinct stored paths below `project` that its sessions' turns name, at most `limit`. */
export function pathsBelow(db: Db, project: string, limit: number): string[] {
  return (db.prepare(
    `SELECT DISTINCT e.value AS v FROM entities e
     JOIN turns t ON t.id = e.turn_id JOIN session_meta m ON m.session_no = t.session_no
     WHERE e.kind = 'path' AND m.project = ? AND e.value LIKE ? LIMIT ?`,
  ).all(project, `${project}/%`, limit) as { v: string }[]).map((r) => r.v);
}

/** The sessions whose turns call Edit, Write or MultiEdit most, by number. */
export function editingSessions(db: Db, limit: number): number[] {
  return (db.prepare(
    `SELECT session_no AS no, count(*) AS n FROM turns
     WHERE tool_name IN ('Edit', 'Write', 'MultiEdit')
     GROUP BY session_no ORDER BY n DESC, session_no LIMIT ?`,
  ).all(limit) as { no: number }[]).map((r) => r.no);
}

/** How many archive passes the store has recorded. */
export function runCount(db: Db): number {
  return (db.prepare("SELECT count(*) AS n FROM runs").get() as { n: number }).n;
}

/** The notes of the last recorded pass (null: none, or it had nothing to say). */
export function lastRunNotes(db: Db): string | null {
  return (db.prepare("SELECT notes FROM runs ORDER BY id DESC LIMIT 1").get() as
    | { notes: string | null }
    | undefined)?.notes ?? null;
}

/** Turns whose text matches an FTS5 expression: all of them, and those `vis` may see. */
export function matchCounts(
  db: Db,
  match: string,
  vis: Visibility,
): { matches: number; scoped: number } {
  const w = visibleWhere(vis);
  const matches = (db.prepare("SELECT count(*) AS n FROM turns_fts WHERE turns_fts MATCH ?")
    .get(match) as { n: number }).n;
  const scoped = (db.prepare(
    `SELECT count(*) AS n FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid
     LEFT JOIN session_meta m ON m.session_no = t.session_no
     WHERE turns_fts MATCH ? AND ${w.sql}`,
  ).get(match, ...w.params) as { n: number }).n;
  return { matches, scoped };
}
