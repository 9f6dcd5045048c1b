/**
 * Search's candidate read is bounded (issue #24): a word every turn holds is ranked over its
 * newest rows only, counted through a real store made by `terminus ingest`; a small scope still
 * gets every row of its own, and a rare word is ranked exactly as over every row it matches.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ingest, put, Transcript, type World, world } from "./read_helpers.ts";
import { asPrefix, parseQuery } from "../core/recall/query.ts";
import { rank } from "../core/recall/rank.ts";
import { type Db, openRead } from "../core/store/db.ts";
import { ftsRowid, sessionOfTurn, turnId } from "../core/store/ids.ts";
import {
  type CandidateOptions,
  type CandidateReads,
  commonClauses,
  type CommonRule,
  searchCandidates,
} from "../core/store/search_candidates.ts";
import { bm25Among, holdersAmong, idRuns, phraseHolders } from "../core/store/fts_walks.ts";
import { SEARCH_RUN_GAP_SESSIONS, SEARCH_RUNS_MAX } from "../core/constants.ts";
import { clausePages, ftsSegments } from "../core/store/fts_pages.ts";

const BIG_SID = "24242424-0000-4000-8000-000000000001";
const SMALL_SID = "24242424-0000-4000-8000-000000000002";
const LATER_SID = "24242424-0000-4000-8000-000000000003";
const CAP = 40;
const BIG_TURNS = 300;

/** A small project archived first (its turns hold the oldest ids), then a big one after it. */
/** A session `sid` in the folder `name` of `w`, its first turn at 10:00 on `day`. */
function session(w: World, sid: string, name: string, day: string): Transcript {
  return new Transcript({ sessionId: sid, cwd: w.dir(name), start: `${day}T10:00:00.000Z` });
}

async function fixture(): Promise<{ w: World; small: string[]; big: string[]; rare: string }> {
  const w = await world();
  const s = session(w, SMALL_SID, "small", "2026-01-01");
  const small = [
    s.assistant("the common word, said once in the small project"),
    s.assistant("common again here, and the marmalade recipe"),
    s.assistant("a last common line"),
  ];
  await put(w, s);
  await ingest(w);
  const b = session(w, BIG_SID, "big", "2026-02-01");
  const big: string[] = [];
  let rare = "";
  for (let i = 0; i < BIG_TURNS; i++) {
    const filler = "other words ".repeat(i % 7);
    const u = b.assistant(`turn ${i}: the common word ${filler}${i % 50 === 0 ? "zephyr" : ""}`);
    big.push(u);
    if (i === 0) rare = u;
  }
  await put(w, b);
  await ingest(w);
  return { w, small, big, rare };
}

function ranked(
  store: string,
  q: string,
  project: string | null,
  readCap: number,
  more: { pool?: number; exclude?: string[] } = {},
): { ids: number[]; scored: [number, number][]; reads: CandidateReads } {
  const o = openRead(store)!;
  try {
    const reads: CandidateReads = { rows: [], capped: false };
    const hits = rank(o.db, {
      query: parseQuery(q),
      vis: { project, exclude: more.exclude ?? [] },
      filters: {},
      limit: 50,
      readCap,
      reads,
      pool: more.pool,
    });
    return {
      ids: hits.map((h) => h.turn_id),
      scored: hits.map((h) => [h.turn_id, h.relevance]),
      reads,
    };
  } finally {
    o.db.close();
  }
}

function projectOf(store: string, sid: string): string {
  const o = openRead(store)!;
  try {
    return (o.db.prepare(
      "SELECT m.project AS p FROM session_meta m JOIN sessions s USING (session_no) WHERE s.session_key LIKE ?",
    ).get(`%${sid}%`) as { p: string }).p;
  } finally {
    o.db.close();
  }
}

Deno.test("a word every turn holds reads at most the cap of rows, the newest, however many match", async () => {
  const { w, big } = await fixture();
  await using _ = w;
  const r = ranked(w.sb.store, "common", null, CAP);
  assert.deepEqual(r.reads.rows, [CAP], "one read of exactly the cap, of 303 matching rows");
  assert.equal(r.reads.capped, true);
  const ids = w.ids();
  const newest = new Set(big.slice(-CAP).map((u) => ids.get(u)!));
  assert.equal(r.ids.length, Math.min(50, CAP));
  for (const id of r.ids) assert.ok(newest.has(id), `${id} is one of the newest ${CAP} rows`);
  // the same word with room for every row reads them all
  const all = ranked(w.sb.store, "common", null, 1000);
  assert.deepEqual(all.reads.rows, [BIG_TURNS + 3]);
  assert.equal(all.reads.capped, false);
});

Deno.test("a common word in a small scope is answered from every row of the scope, not a global window", async () => {
  const { w, small } = await fixture();
  await using _ = w;
  const project = projectOf(w.sb.store, SMALL_SID);
  const r = ranked(w.sb.store, "common", project, CAP);
  const ids = w.ids();
  assert.deepEqual(
    r.ids.sort(),
    small.map((u) => ids.get(u)!).sort(),
    "all three, the oldest rows",
  );
  assert.deepEqual(r.reads.rows, [3]);
  assert.equal(r.reads.capped, false);
  // and the two words that only a small-scope turn holds together, under the cap as well
  assert.deepEqual(ranked(w.sb.store, "common marmalade", project, CAP).ids, [ids.get(small[1])]);
});

Deno.test("a word rarer than the cap is ranked as over every row it matches; the phrase bonus holds in the window", async () => {
  const { w, big, rare } = await fixture();
  await using _ = w;
  const ids = w.ids();
  const capped = ranked(w.sb.store, "zephyr", null, CAP);
  const wide = ranked(w.sb.store, "zephyr", null, 100_000);
  assert.deepEqual(capped.ids, wide.ids, "six rows, under the cap: the same ranking");
  assert.equal(capped.ids.length, BIG_TURNS / 50);
  assert.ok(capped.ids.includes(ids.get(rare)!), "the oldest of them too");
  // words every turn holds, said in order by one turn inside the window: it comes first
  const phrase = ranked(w.sb.store, "turn 290 the", null, CAP);
  assert.equal(phrase.ids[0], ids.get(big[290]));
  assert.ok(phrase.reads.rows[0] <= CAP);
});

/**
 * One session of 1,200 turns, each as `say` words it, so a word every turn says many times
 * (`common`) spans several pages of the index; the turns of every `every`th are returned.
 */
/** The candidates of every project, no filter, a pool of 50, and what their read did. */
function everywhere(
  db: Db,
  clauses: string[],
  o: CandidateOptions,
): { cands: ReturnType<typeof searchCandidates>; reads: CandidateReads } {
  const reads: CandidateReads = { rows: [], capped: false };
  const cands = searchCandidates(db, clauses, { project: null, exclude: [] }, {}, 50, {
    ...o,
    reads,
  });
  return { cands, reads };
}

async function spanningStore(
  say: (i: number) => string,
  every: number,
): Promise<{ w: World; picked: string[] }> {
  const w = await world();
  try {
    const t = session(w, BIG_SID, "big", "2026-02-01");
    const picked: string[] = [];
    for (let i = 0; i < 1200; i++) {
      const u = t.assistant(say(i));
      if (i % every === 0) picked.push(u);
    }
    await put(w, t);
    await ingest(w);
    return { w, picked };
  } catch (e) {
    // the caller's `await using` never got it: its sandbox is removed here
    await w[Symbol.asyncDispose]();
    throw e;
  }
}

Deno.test("a word whose doclist spans many pages adds nothing alike; the rare word's BM25 tells them apart", async () => {
  const { w, picked: zephyrs } = await spanningStore(
    (i) =>
      `turn ${i} ${"often ".repeat(10)}${"common ".repeat(20)}${
        i % 50 === 0 ? "zephyr ".repeat(1 + (i % 150) / 50) : ""
      }`,
    50,
  );
  await using _ = w;
  const ids = w.ids();
  const o = openRead(w.sb.store)!;
  try {
    const ask = (q: string, common?: CommonRule, prefix = false) => {
      const reads: CandidateReads = { rows: [], capped: false };
      const hits = rank(o.db, {
        query: prefix ? asPrefix(parseQuery(q)) : parseQuery(q),
        vis: { project: null, exclude: [] },
        filters: {},
        limit: 50,
        common,
        reads,
      });
      return { hits, reads };
    };
    const segs = ftsSegments(o.db);
    const pages = clausePages(o.db, '"common"', segs)!;
    assert.ok(pages >= 2, `common's doclist spans ${pages} pages`);
    assert.equal(clausePages(o.db, '"zephyr"', segs), 0, "zephyr's fits in a page");
    // a word the index lacks, sorting right after common: the pages common spans are not its
    assert.equal(clausePages(o.db, '"commonz"', segs), 0);
    // the default rule leaves an index this small exact
    assert.equal(ask("zephyr common").reads.common, undefined);
    const rule: CommonRule = { pages: 2 };
    const both = ask("zephyr common", rule);
    assert.deepEqual(both.reads.common, ['"common"']);
    assert.deepEqual(
      both.hits.map((h) => h.turn_id).sort(),
      zephyrs.map((u) => ids.get(u)!).sort(),
    );
    // each candidate's text score is zephyr's own BM25, as if common were not asked (zephyr
    // comes last in each turn, so no turn says the two in this order: no phrase bonus)
    const alone = ask("zephyr").hits;
    assert.deepEqual(
      both.hits.map((h) => [h.turn_id, h.relevance]),
      alone.map((h) => [h.turn_id, h.relevance]),
    );
    assert.ok(
      new Set(both.hits.map((h) => h.relevance)).size > 1,
      "zephyr's count tells them apart",
    );
    // the word alone: no walk, every turn alike, the newest first
    const common = ask("common", rule);
    assert.deepEqual(common.reads.common, ['"common"']);
    assert.equal(new Set(common.hits.map((h) => h.relevance)).size, 1);
    assert.equal(common.hits[0].turn_id, Math.max(...common.hits.map((h) => h.turn_id)));
    // a word still being typed (a prefix) stays exact, however common
    assert.equal(ask("zephyr common", rule, true).reads.common, undefined);
    // two words each shorter than the rule but longer together: the longer is common, the
    // shorter stays exact, since the idf walk reads every exact word's pages
    const often = clausePages(o.db, '"often"', segs)!;
    assert.ok(often >= 2 && often < pages, `often spans ${often} pages, common ${pages}`);
    const split = ask("zephyr often common", { pages: pages + 1 });
    assert.deepEqual(split.reads.common, ['"common"']);
    assert.deepEqual(
      split.hits.map((h) => h.turn_id).sort(),
      zephyrs.map((u) => ids.get(u)!).sort(),
    );
    assert.equal(ask("zephyr often common", { pages: pages + often + 1 }).reads.common, undefined);
  } finally {
    o.db.close();
  }
});

/**
 * The store for the phrase past the window: the oldest turn alone says "gamma delta" in order,
 * in a project of its own; 100 newer ones hold both words, the newest `newSayers` of them in that
 * order too; `later` archives 300 turns that hold neither after them, so the window lies in the
 * index's older half and its phrase is read forwards. Returns the world and the old sayer's id.
 */
async function phraseStore(later: boolean, newSayers: number): Promise<{ w: World; id: number }> {
  const w = await world();
  const old = session(w, SMALL_SID, "small", "2026-01-01");
  const sayer = old.assistant("we saw gamma delta once, in this order");
  await put(w, old);
  await ingest(w);
  const b = session(w, BIG_SID, "big", "2026-02-01");
  for (let i = 0; i < 100; i++) {
    b.assistant(
      i < 100 - newSayers
        ? `turn ${i}: delta then gamma, the other way round`
        : `turn ${i}: gamma delta`,
    );
  }
  await put(w, b);
  await ingest(w);
  if (later) {
    const c = session(w, LATER_SID, "later", "2026-03-01");
    for (let i = 0; i < 300; i++) c.assistant(`line ${i} of something else entirely`);
    await put(w, c);
    await ingest(w);
  }
  return { w, id: w.ids().get(sayer)! };
}

/** "gamma delta" asked with the read capped at CAP, as `terminus search` ranks it otherwise. */
function askGammaDelta(
  db: Parameters<typeof rank>[0],
  o: { phraseBonus?: number; exclude?: string[]; pool?: number },
): { ids: number[]; reads: CandidateReads } {
  const reads: CandidateReads = { rows: [], capped: false };
  const ids = rank(db, {
    query: parseQuery("gamma delta"),
    vis: { project: null, exclude: o.exclude ?? [] },
    filters: {},
    limit: 50,
    readCap: CAP,
    phraseBonus: o.phraseBonus,
    pool: o.pool,
    reads,
  }).map((h) => h.turn_id);
  return { ids, reads };
}

async function phrasePastWindow(later: boolean): Promise<void> {
  const { w, id } = await phraseStore(later, 0);
  await using _ = w;
  const r = ranked(w.sb.store, "gamma delta", null, CAP);
  assert.equal(r.reads.capped, true, "101 rows match, the cap is 40");
  assert.equal(r.ids[0], id, "the phrase's turn, older than every row read, comes first");
  assert.deepEqual(r.reads.rows, [CAP, 0, 1], "the window, its phrase sayers, the one below");
  // it came by its phrase: with no phrase bonus the read holds the newest rows alone; and below
  // the window the scope still holds, so a search that excludes its project does not bring it
  const o = openRead(w.sb.store)!;
  try {
    const ask = (phraseBonus: number | undefined, exclude: string[]) =>
      askGammaDelta(o.db, { phraseBonus, exclude });
    assert.ok(!ask(0, []).ids.includes(id));
    const outside = ask(undefined, [projectOf(w.sb.store, SMALL_SID)]);
    assert.ok(!outside.ids.includes(id));
    assert.deepEqual(outside.reads.rows, [CAP, 0, 0], "found by its phrase, left by the scope");
  } finally {
    o.db.close();
  }
}

Deno.test("a connection left open counts a word's pages again once a pass has committed more of it", async () => {
  // the MCP server's connection lives through passes: what it read of the index must follow
  const w = await world();
  await using _ = w;
  const few = session(w, SMALL_SID, "few", "2026-02-01");
  for (let i = 0; i < 3; i++) few.assistant(`turn ${i} common`);
  await put(w, few);
  await ingest(w);
  const o = openRead(w.sb.store)!;
  try {
    const before = ftsSegments(o.db);
    assert.equal(clausePages(o.db, '"common"', before), 0, "three turns fit in a page");
    const many = session(w, BIG_SID, "many", "2026-02-02");
    for (let i = 0; i < 1200; i++) many.assistant(`turn ${i} ${"common ".repeat(20)}`);
    await put(w, many);
    await ingest(w);
    const after = ftsSegments(o.db);
    assert.notDeepEqual(after, before, "the pass wrote segments of its own");
    const pages = clausePages(o.db, '"common"', after)!;
    assert.ok(pages >= 2, `common's doclist now spans ${pages} pages`);
  } finally {
    o.db.close();
  }
});

Deno.test("a read stopped at its cap still finds the one older turn that says the words in order, within the scope", async () => {
  await phrasePastWindow(false);
});

Deno.test("the same when the window lies in the index's older half (its phrase read forwards)", async () => {
  await phrasePastWindow(true);
});

/**
 * A window whose own candidates already say the phrase a pool's worth of times reads nothing
 * below it; one sayer fewer, and the walk below still brings the oldest one. The newest five
 * of the 100 say "gamma delta" in order.
 */
async function windowFullOfSayers(later: boolean): Promise<void> {
  const { w, id } = await phraseStore(later, 5);
  await using _ = w;
  const o = openRead(w.sb.store)!;
  try {
    const ask = (pool: number) => askGammaDelta(o.db, { pool });
    const full = ask(5);
    assert.equal(full.reads.capped, true);
    assert.deepEqual(full.reads.rows, [CAP, 5], "five sayers in the window fill a pool of five");
    assert.ok(!full.ids.includes(id), "nothing below the window was read");
    const room = ask(6);
    assert.deepEqual(room.reads.rows, [CAP, 5, 1], "a pool of six: the walk goes on below");
    assert.ok(room.ids.includes(id));
  } finally {
    o.db.close();
  }
}

Deno.test("the sayers below a capped window and the window's own turns share one level: only the pool's rows are built", async () => {
  const w = await world();
  await using _ = w;
  const old = session(w, SMALL_SID, "small", "2026-01-01");
  const sayers: string[] = [];
  for (let i = 0; i < 20; i++) sayers.push(old.assistant(`note ${i}: gamma delta, in this order`));
  await put(w, old);
  await ingest(w);
  const b = session(w, BIG_SID, "big", "2026-02-01");
  for (let i = 0; i < 100; i++) b.assistant(`turn ${i}: delta then gamma, the other way round`);
  await put(w, b);
  await ingest(w);
  const ids = w.ids();
  const pool = 12;
  const byId = ranked(w.sb.store, "gamma delta", null, CAP, { pool });
  const joined = ranked(w.sb.store, "gamma delta", null, CAP, { pool, exclude: ["/nowhere/else"] });
  assert.deepEqual(byId.scored, joined.scored, "the same answer as the joined read");
  assert.deepEqual(byId.reads.rows, [CAP, 0, pool], "the window, no sayer in it, a pool below");
  // the newest twelve sayers (the walk below stops at a pool's worth) outrank every window turn
  const newest = sayers.slice(-pool).map((u) => ids.get(u)!).sort((x, y) => y - x);
  assert.deepEqual(byId.ids.slice(0, pool), newest);
  assert.equal(byId.reads.built, 0, "no turn of the window could reach the pool: none is built");
  assert.equal(joined.reads.built, CAP);
});

Deno.test("a window whose candidates already say the phrase a pool's worth of times reads nothing below it", async () => {
  await windowFullOfSayers(false);
});

Deno.test("the same with the window in the index's older half", async () => {
  await windowFullOfSayers(true);
});

/**
 * Definitions outside the read's window join it only when they hold every word: the old Write
 * that defines `GraphPlanner` and says `order` comes in (its walk is bounded by the oldest and
 * newest definition), the newest Write defining it without `order` does not.
 */
Deno.test("a definition below the window joins it when it holds every word; one that does not stays out", async () => {
  await using w = await world();
  const cwd = w.dir("alpha");
  const s = (n: number, day: number) =>
    new Transcript({
      sessionId: `47474747-0000-4000-8000-00000000000${n}`,
      cwd,
      start: `2026-03-0${day}T10:00:00.000Z`,
    });
  const old = s(1, 1);
  const held = old.toolUse("Write", {
    file_path: join(cwd, "src/plan/graph.py"),
    content: "class GraphPlanner:\n    def order(self):\n        return []\n",
  });
  old.toolResult("File created successfully");
  await put(w, old);
  await ingest(w);
  const mid = s(2, 2);
  for (let i = 0; i < 6; i++) mid.assistant(`GraphPlanner keeps its order here, note ${i}`);
  await put(w, mid);
  await ingest(w);
  const last = s(3, 3);
  const bare = last.toolUse("Write", {
    file_path: join(cwd, "src/other/shape.py"),
    content: "class GraphPlanner:\n    pass\n",
  });
  last.toolResult("File created successfully");
  await put(w, last);
  await ingest(w);
  const ids = w.ids();
  const o = openRead(w.sb.store)!;
  try {
    const reads: CandidateReads = { rows: [], capped: false };
    const hits = rank(o.db, {
      query: parseQuery("GraphPlanner order"),
      vis: { project: null, exclude: [] },
      filters: {},
      limit: 50,
      readCap: 3,
      reads,
    });
    assert.equal(reads.capped, true, "the window holds the newest three mentions only");
    const got = hits.map((h) => h.turn_id);
    assert.ok(got.includes(ids.get(held)!), "the old definition holding both words joins");
    assert.ok(!got.includes(ids.get(bare)!), "the newest definition lacks `order`: left out");
    assert.equal(got[0], ids.get(held)!, "and it ranks first, with the definition bonus");
  } finally {
    o.db.close();
  }
});

/**
 * A definition outside the window is scored by the window's own BM25 statement (one idf walk,
 * not two) when a clause is common: its relevance must be the one a statement of its own gives,
 * by the window's read and by the read of every match alike.
 */
Deno.test("a definition beside the window gets the BM25 a read of its own gives it", async () => {
  // `common` said so often that its doclist spans pages; `zephyr` in six turns
  const { w, picked: zephyrs } = await spanningStore(
    (i) => `turn ${i} ${"common ".repeat(20)}${i % 200 === 0 ? "zephyr" : ""}`,
    200,
  );
  await using _ = w;
  const ids = w.ids();
  // the oldest two turns saying `zephyr`, below a window of the newest three
  const beside = [ids.get(zephyrs[0])!, ids.get(zephyrs[1])!];
  const o = openRead(w.sb.store)!;
  try {
    const query = parseQuery("zephyr common");
    // `common` spans pages of the index, `zephyr` none: the first alone is common
    const rule: CommonRule = { pages: 1 };
    const common = commonClauses(o.db, query.clauses, rule);
    const scored = query.clauses.filter((_, i) => !common.has(i));
    assert.deepEqual(scored, ['"zephyr"'], "`common` is common, `zephyr` scored");
    const own = (id: number) => bm25Among(o.db, scored.join(" AND "), [id]).get(id);
    let compared = 0;
    // the window, capped at three (no forward walk), and every match read by id (under the cap)
    for (const [probePages, readCap] of [[-1, 3], [Infinity, 50]]) {
      const { cands, reads } = everywhere(o.db, query.clauses, {
        common: rule,
        readCap,
        probePages,
        alsoIds: beside,
      });
      assert.equal(reads.capped, readCap === 3, `the read stops at its cap of ${readCap}`);
      const got = cands.map((c) => c.id);
      for (const id of beside) assert.ok(got.includes(id), `turn ${id} is a candidate`);
      // the window's three and the two beside it; read by id, all six saying both words
      assert.equal(cands.length, readCap === 3 ? 5 : 6, "the turns saying both words");
      for (const c of cands) {
        const score = own(c.id);
        assert.ok(score !== undefined && score > 0, `turn ${c.id} holds the scored word`);
        assert.equal(c.relevance, score, `turn ${c.id}: the BM25 of a statement of its own`);
        compared++;
      }
    }
    assert.equal(compared, 11);
  } finally {
    o.db.close();
  }
});

/**
 * Matches that fit under the cap are found by a forward walk of rowids and read by id; that
 * must rank exactly as the backward read of them does, scores included, with a common clause
 * (scored once, not twice), a phrase, a scope and a filter.
 */
Deno.test("every match read by id after a forward walk ranks as the backward read does", async () => {
  const { w } = await fixture();
  await using _ = w;
  const small = projectOf(w.sb.store, SMALL_SID);
  const o = openRead(w.sb.store)!;
  try {
    const read = (
      q: string,
      probePages: number,
      common?: CommonRule,
      project = null as string | null,
    ) => {
      const query = parseQuery(q);
      const reads: CandidateReads = { rows: [], capped: false };
      const cands = searchCandidates(
        o.db,
        query.clauses,
        { project, exclude: [] },
        { kind: "assistant" },
        50,
        { phrase: query.phrase, phraseBonus: 10, common, reads, probePages },
      );
      return { ranked: cands.map((c) => [c.id, c.relevance]), rows: reads.rows };
    };
    let compared = 0;
    for (const q of ["common word", "zephyr common", '"the common" word', "turn 290 the"]) {
      for (const common of [undefined, { pages: 0 }]) {
        for (const project of [null, small]) {
          const up = read(q, Infinity, common, project);
          const down = read(q, -1, common, project);
          assert.deepEqual(up, down, `${q} ${JSON.stringify(common)} ${project}`);
          if (up.ranked.length) compared++;
        }
      }
    }
    assert.ok(compared >= 10, `${compared} non-empty answers compared`);
  } finally {
    o.db.close();
  }
});

/**
 * One word's matches are its own doclist: walking it forwards first only repeats the window's
 * walk when there are more than the cap. Two words are walked forwards first when one is rare,
 * and so is one word under a filter (no window by id there). Either way the candidates are every
 * match.
 */
Deno.test("one word read by id is not walked forwards first; two words with a rare one are", async () => {
  const { w, big } = await fixture();
  await using _ = w;
  const zephyrs = big.filter((_, i) => i % 50 === 0).length;
  const o = openRead(w.sb.store)!;
  try {
    for (const [q, forwards] of [["zephyr", false], ["zephyr common", true]] as const) {
      const query = parseQuery(q);
      const { cands, reads } = everywhere(o.db, query.clauses, {
        phrase: query.phrase,
        phraseBonus: 10,
        probePages: Infinity,
      });
      assert.equal(reads.walkedForwards, forwards, `${q}: walked forwards first`);
      assert.equal(cands.length, zephyrs, `${q}: every turn saying zephyr`);
      assert.equal(reads.capped, false, `${q}: fewer matches than the cap`);
    }
    // a filter sends the window to the joined read, which builds every row: one word keeps the
    // forward walk there, and its matches are read by id
    const reads: CandidateReads = { rows: [], capped: false };
    const vis = { project: null, exclude: [] };
    const only = { kind: "assistant" } as const;
    const cands = searchCandidates(o.db, ['"zephyr"'], vis, only, 50, { reads, probePages: 1e9 });
    assert.equal(reads.walkedForwards, true, "zephyr with a filter: walked forwards first");
    assert.equal(cands.length, zephyrs, "zephyr with a filter: every turn saying it");
  } finally {
    o.db.close();
  }
});

/**
 * FTS5 takes a rowid bound only as an integer: bound as node:sqlite's REAL (a JS number) it is
 * dropped, and `rowid = ?` even answers the first match instead. ftsRowid binds an integer.
 */
Deno.test("a rowid bound reaches FTS5 as an integer", async () => {
  const { w, big } = await fixture();
  await using _ = w;
  const ids = w.ids();
  const without = ids.get(big[1])!; // turn 1 does not say zephyr
  const o = openRead(w.sb.store)!;
  try {
    const st = o.db.prepare(
      `SELECT rowid FROM turns_fts WHERE turns_fts MATCH '"zephyr"' AND rowid = ?`,
    );
    assert.equal(typeof ftsRowid(without), "bigint");
    assert.equal(st.get(ftsRowid(without)), undefined, "the turn does not hold the word");
  } finally {
    o.db.close();
  }
});

Deno.test("every match under the cap: only the rows that can reach the pool are built, and the ranking is a full read's", async () => {
  const { w, small } = await fixture();
  await using _ = w;
  const ids = w.ids();
  const everyRow = ranked(w.sb.store, "common word", null, 1000, { pool: 100_000 });
  assert.equal(everyRow.reads.built, BIG_TURNS + 1, "a pool as large as the matches builds all");
  for (const pool of [20, 60]) {
    const cut = ranked(w.sb.store, "common word", null, 1000, { pool });
    assert.deepEqual(cut.ids, everyRow.ids.slice(0, pool), `pool ${pool}: the full read's best`);
    assert.deepEqual(cut.reads.rows[0], BIG_TURNS + 1, "the index read found every match");
    assert.ok(cut.reads.built! >= pool && cut.reads.built! < BIG_TURNS / 2, `${cut.reads.built}`);
  }
  // the best rows fail the scope (the big project excluded): the rest are read, as in full
  const bigProject = projectOf(w.sb.store, BIG_SID);
  const onlySmall = ranked(w.sb.store, "common", null, 1000, { pool: 2, exclude: [bigProject] });
  const smallFull = ranked(w.sb.store, "common", null, 1000, {
    pool: 100_000,
    exclude: [bigProject],
  });
  assert.equal(onlySmall.ids.length, 2);
  assert.deepEqual(onlySmall.ids, smallFull.ids.slice(0, 2));
  for (const id of onlySmall.ids) assert.ok(small.map((u) => ids.get(u)).includes(id));
});

Deno.test("a project's scope is drawn by id before the pool's level: other projects' matches between its sessions fill nothing", async () => {
  const w = await world();
  await using _ = w;
  // project a's two sessions hold the ids around project b's, whose turns say the words more
  const a1 = session(w, "24242424-0000-4000-8000-0000000000a1", "a", "2026-03-01");
  for (let i = 0; i < 30; i++) {
    a1.assistant(`a turn ${i}: the common word, once ${"x ".repeat(i % 5)}`);
  }
  await put(w, a1);
  await ingest(w);
  const b1 = session(w, "24242424-0000-4000-8000-0000000000b1", "b", "2026-03-02");
  for (let i = 0; i < 60; i++) b1.assistant(`b turn ${i}: common word common word common word`);
  await put(w, b1);
  await ingest(w);
  const a2 = session(w, "24242424-0000-4000-8000-0000000000a2", "a", "2026-03-03");
  for (let i = 0; i < 30; i++) {
    a2.assistant(`a later turn ${i}: the common word ${"y ".repeat(i % 3)}`);
  }
  await put(w, a2);
  await ingest(w);
  const project = projectOf(w.sb.store, "0000000000a1");
  const every = ranked(w.sb.store, "common word", project, 1000, { pool: 100_000 });
  assert.equal(every.reads.built, 60, "a pool as large as the matches builds all of a's");
  const cut = ranked(w.sb.store, "common word", project, 1000, { pool: 20 });
  assert.deepEqual(cut.ids, every.ids.slice(0, 20));
  assert.ok(cut.reads.built! >= 20 && cut.reads.built! < 40, `${cut.reads.built} rows built`);
});

Deno.test("a read stopped at its cap, by id: only the rows that can reach the pool are built, ranked as the joined read ranks them", async () => {
  const { w } = await fixture();
  await using _ = w;
  const big = projectOf(w.sb.store, BIG_SID);
  let compared = 0;
  for (const q of ["common word", '"the common" word', "turn common", "zephyr common"]) {
    for (const project of [null, big]) {
      for (const pool of [5, 12, 100]) {
        const byId = ranked(w.sb.store, q, project, CAP, { pool });
        // an exclusion cannot be told from an id: that scope takes the joined read of every row
        const joined = ranked(w.sb.store, q, project, CAP, { pool, exclude: ["/nowhere/else"] });
        const what = `${q} ${project} pool ${pool}`;
        assert.deepEqual(byId.scored, joined.scored, what);
        assert.deepEqual(byId.reads.rows, joined.reads.rows, what);
        assert.equal(byId.reads.capped, joined.reads.capped, what);
        assert.ok(byId.reads.built! <= joined.reads.built!, what);
        if (byId.reads.capped && pool < CAP / 2) {
          assert.equal(joined.reads.built, CAP, `${what}: the joined read builds its window`);
          assert.ok(byId.reads.built! < CAP, `${what}: ${byId.reads.built} built by id`);
          compared++;
        }
      }
    }
  }
  assert.ok(compared >= 8, `${compared} capped reads compared`);
});

/**
 * The definitions' check reads chosen turns far apart in runs (`idRuns`): a walk of its own for
 * each stretch, so the matches between are skipped. The holders it finds must be exactly those
 * a walk over every id finds, newest first.
 */
Deno.test("turns far apart are checked in runs, and the holders are exactly those that hold the words", async () => {
  await using w = await world();
  const cwd = w.dir("runs");
  const sessions = SEARCH_RUN_GAP_SESSIONS + 4;
  const asked: string[] = [];
  const holding: string[] = [];
  for (let n = 0; n < sessions; n++) {
    const t = new Transcript({
      sessionId: `48484848-0000-4000-8000-${String(n).padStart(12, "0")}`,
      cwd,
      start: `2026-04-01T${String(10 + (n % 10)).padStart(2, "0")}:${
        String(n).padStart(2, "0")
      }:00.000Z`,
    });
    // every session between says both words, so a single walk would read all of them
    const filler = t.assistant(`alpha beta filler ${n}`);
    if (n === 0 || n === 1 || n === sessions - 1) {
      const yes = t.assistant(`alpha and beta, asked in session ${n}`);
      const no = t.assistant(`alpha alone, asked in session ${n}`);
      asked.push(yes, no);
      holding.push(yes);
    } else {
      assert.ok(filler);
    }
    await put(w, t);
    // sessions are numbered by pass: the first two, those between, the last
    if (n === 1 || n === sessions - 2 || n === sessions - 1) await ingest(w);
  }
  const ids = w.ids();
  const askedIds = asked.map((u) => ids.get(u)!);
  const runs = idRuns(askedIds);
  assert.equal(runs.length, 2, "the first two sessions are one run, the last its own");
  assert.deepEqual(runs.flat(), [...askedIds].sort((a, b) => a - b), "every id in one run");
  const o = openRead(w.sb.store)!;
  try {
    const want = holding.map((u) => ids.get(u)!).sort((a, b) => b - a);
    assert.deepEqual(holdersAmong(o.db, "alpha AND beta", askedIds), want);
    assert.deepEqual(holdersAmong(o.db, '"alpha beta"', askedIds), [], "none says the phrase");
  } finally {
    o.db.close();
  }
});

Deno.test("runs split at the widest gaps, at most SEARCH_RUNS_MAX of them", () => {
  const at = (s: number) => turnId(s, 3);
  // sessions 1, 2, then each further one a wider gap away than the last
  const sessions = [1, 2];
  for (let i = 1; sessions.length < SEARCH_RUNS_MAX + 4; i++) {
    sessions.push(sessions.at(-1)! + SEARCH_RUN_GAP_SESSIONS + i);
  }
  const runs = idRuns(sessions.map(at).reverse());
  assert.equal(runs.length, SEARCH_RUNS_MAX);
  assert.deepEqual(runs.flat(), sessions.map(at), "ascending, none lost");
  // the narrowest gaps stay inside runs: the first run holds the sessions before the widest cuts
  assert.deepEqual(
    runs[0].map(sessionOfTurn),
    sessions.slice(0, sessions.length - SEARCH_RUNS_MAX + 1),
  );
  assert.deepEqual(
    idRuns([at(5), at(5 + SEARCH_RUN_GAP_SESSIONS)]).length,
    1,
    "a gap at the line is no cut",
  );
  assert.deepEqual(idRuns([]), []);
});

/**
 * Below a capped window the phrase's sayers are walked backwards, or forwards when the query's
 * rarest word spans few pages: both must give the same turns, the nearest `more` below the
 * window and none under the floor, whether fewer or more than `more` say it there.
 */
Deno.test("the sayers below a window are the same walked backwards or forwards", async () => {
  await using w = await world();
  const s = session(w, SMALL_SID, "small", "2026-01-01");
  const said: string[] = [];
  for (let i = 0; i < 30; i++) {
    const u = s.assistant(
      i % 3 === 0 ? `step ${i}: gamma delta in order` : `step ${i}: delta, gamma`,
    );
    if (i % 3 === 0) said.push(u);
  }
  await put(w, s);
  await ingest(w);
  const ids = w.ids();
  const sayers = said.map((u) => ids.get(u)!).sort((a, b) => a - b);
  const all = [...ids.values()].sort((a, b) => a - b);
  const o = openRead(w.sb.store)!;
  try {
    // the window: the newest ten turns; below it, the floor at the fourth turn, which says it
    const window = all.slice(-10);
    const span = { oldest: window[0], newest: window.at(-1)! };
    const floor = all[3];
    assert.ok(sayers.includes(floor) && sayers[0] < floor, "a sayer on the floor, one under it");
    const below = sayers.filter((id) => id >= floor && id < span.oldest).reverse();
    for (const more of [2, below.length, below.length + 5]) {
      const back = phraseHolders(o.db, '"gamma delta"', new Set(window), span, floor, more, false);
      const up = phraseHolders(o.db, '"gamma delta"', new Set(window), span, floor, more, true);
      const inWindow = window.filter((id) => sayers.includes(id));
      assert.deepEqual([...back.said].sort(), [...inWindow].sort(), "the window's own sayers");
      if (back.said.size >= more) continue;
      assert.deepEqual(back.below, below.slice(0, more), `backwards, more ${more}`);
      assert.deepEqual(up.below, back.below, `forwards, more ${more}`);
    }
    assert.ok(below.length > 2, "the fixture puts sayers below the window");
  } finally {
    o.db.close();
  }
});
