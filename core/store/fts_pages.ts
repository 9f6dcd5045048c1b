/**
 * FTS5's own pages read directly: whether the index keeps positions, its segments, and how
 * many leaf pages a clause's term list spans (the measure of a common word).
 */
import { cached, type Db } from "./db.ts";
import { sameBytes } from "../bytes.ts";

const positional = new WeakMap<Db, boolean>();

/**
 * Whether the search index keeps positions (derived schema 4 on). A store made by an earlier
 * build keeps none (`detail=column`) until its next pass rebuilds it: FTS5 refuses a phrase
 * there, so a search falls back to its words alone.
 */
export function ftsKeepsPositions(db: Db): boolean {
  let p = positional.get(db);
  if (p === undefined) {
    const r = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'turns_fts'").get() as
      | { sql: string | null }
      | undefined;
    p = !!r?.sql && !/detail\s*=\s*['"]?(column|none)/i.test(r.sql);
    positional.set(db, p);
  }
  return p;
}

/** SQLite's varint, as FTS5 writes its row count and token totals: [value, bytes]. */
function varint(b: Uint8Array, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const x = b[at + i];
    if (x === undefined) return [v, i];
    v = v * 128 + (x & 0x7f);
    if (x < 0x80) return [v, i + 1];
  }
  return [v * 256 + (b[at + 8] ?? 0), 9];
}

/**
 * What this file read of one connection's index, as of one state of the store: its segments
 * and each counted clause's pages. A search asks for the same words' pages more than once (its
 * turns, then the further answers: about half of a seven-word question's 5 ms of lookups), and
 * the MCP server's connection lives on while passes commit, so a look is kept only while the
 * store is as it was: no other connection committed (data_version) and this one changed nothing.
 */
interface IndexLook {
  state: string;
  segs: number[];
  pages: Map<string, number | null>;
}
const looks = new WeakMap<Db, IndexLook>();

function indexLook(db: Db): IndexLook {
  const r = cached(
    db,
    "SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c",
  ).get() as { v: number; c: number };
  const state = `${r.v}:${r.c}`;
  let look = looks.get(db);
  if (!look || look.state !== state) {
    look = { state, segs: readSegments(db), pages: new Map() };
    looks.set(db, look);
  }
  return look;
}

/** The index's segments (FTS5 keeps few: 8 in the ~3 GB scale store), by their b-tree rows. */
export function ftsSegments(db: Db): number[] {
  return indexLook(db).segs;
}

function readSegments(db: Db): number[] {
  const next = cached(
    db,
    "SELECT segid FROM turns_fts_idx WHERE segid > ? ORDER BY segid LIMIT 1",
  );
  const out: number[] = [];
  for (let at = -1;;) {
    const r = next.get(at) as { segid: number } | undefined;
    if (!r) return out;
    out.push(r.segid);
    at = r.segid;
  }
}

/** FTS5's rowid of a segment's leaf page in its data table (fts5_index.c, FTS5_SEGMENT_ROWID). */
const leafRowid = (segid: number, pgno: number) => segid * 2 ** 37 + pgno;

/** The last term that starts on an FTS5 leaf page (its footer lists where each term starts). */
function lastLeafTerm(page: Uint8Array): Uint8Array | null {
  if (page.length < 4) return null;
  const footer = (page[2] << 8) | page[3];
  let at = footer;
  let off = 0;
  const starts: number[] = [];
  while (at < page.length) {
    const [v, n] = varint(page, at);
    if (n === 0) break;
    at += n;
    off += v;
    starts.push(off);
  }
  let term: Uint8Array | null = null;
  starts.forEach((p, i) => {
    if (i === 0) {
      const [len, n] = varint(page, p);
      term = page.subarray(p + n, p + n + len);
    } else {
      const [keep, n1] = varint(page, p);
      const [add, n2] = varint(page, p + n1);
      const t = new Uint8Array(keep + add);
      t.set(term!.subarray(0, keep));
      t.set(page.subarray(p + n1 + n2, p + n1 + n2 + add), keep);
      term = t;
    }
  });
  return term;
}

/**
 * How many leaf pages of the index a one-word clause's doclist spans, from FTS5's own b-tree
 * of leaf pages (`turns_fts_idx`: each page's first term) and, where that says more than one
 * page, the page itself: pages between two b-tree rows hold the last term that starts on the
 * earlier one. That is what a walk of the word reads, found in about 20 small lookups per word
 * whatever the archive's size. A phrase or a prefix (or a word unicode61 would fold beyond
 * lower case) is not counted: null.
 */
export function clausePages(db: Db, clause: string, segs: number[]): number | null {
  const m = /^"([A-Za-z0-9]+)"$/.exec(clause);
  if (!m) return null;
  // counted before over these very segments: the look is still the store's
  const look = looks.get(db);
  const memo = look && look.segs === segs ? look.pages : null;
  const known = memo?.get(clause);
  if (known !== undefined) return known;
  const key = new TextEncoder().encode("0" + m[1].toLowerCase());
  const below = cached(
    db,
    "SELECT pgno FROM turns_fts_idx WHERE segid = ? AND term <= ? ORDER BY term DESC LIMIT 1",
  );
  const above = cached(
    db,
    "SELECT pgno FROM turns_fts_idx WHERE segid = ? AND term > ? ORDER BY term LIMIT 1",
  );
  const leaf = cached(db, "SELECT block FROM turns_fts_data WHERE id = ?");
  let pages = 0;
  for (const seg of segs) {
    // the b-tree's pgno is the page number times 2, plus a flag: the term has a doclist index
    const lo = (below.get(seg, key) as { pgno: number } | undefined)?.pgno;
    const hi = (above.get(seg, key) as { pgno: number } | undefined)?.pgno;
    if (lo === undefined || hi === undefined) continue;
    const first = Math.floor(lo / 2);
    const next = Math.floor(hi / 2);
    if (next - first < 2) continue;
    const page = (leaf.get(leafRowid(seg, first)) as { block: Uint8Array } | undefined)?.block;
    const last = page ? lastLeafTerm(page) : null;
    if (last && sameBytes(last, key)) pages += next - first;
  }
  memo?.set(clause, pages);
  return pages;
}
