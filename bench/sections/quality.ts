/**
 * Search quality on two real corpora (the erk project's, `--real`, and four other projects',
 * `--real-other`), with two sets of queries built by rule from each, never picked by whether a
 * system finds them: known items copied from one turn (bench/lib/known_items.ts) and queries as
 * people and models ask them (bench/lib/asked_items.ts: memory, name + context, pasted errors,
 * questions, whole typed prompts, bare class names). Each is asked of these systems over the
 * same transcripts:
 *
 * - the installed `terminus search <q> --project '*' --json --limit 10`, one process a query,
 *   on a store this run makes from the transcripts with the checkout's `terminus ingest`, and
 *   the same with `--strict` (the spec's every-word-in-one-turn answer alone);
 * - MCP `recall_search` (`project: "*"`, `limit: 10`) through the installed `terminus mcp`,
 *   one server for every query, spoken to over stdio as Claude Code does;
 * - a plain FTS5 table (unicode61, BM25) over each turn record's string values, built here,
 *   asked for every word (AND) and for any word (OR, ranked by BM25);
 * - grep, every word, whole transcript: the transcripts holding every word of the query
 *   (case-folded, as `grep -ciF` per word over their string values), ranked by how often they
 *   say the words; and for the known items `grep -rciF <q>` over the files, by matching lines.
 *
 * Each system's top 10 is scored at the session level (the distinct sessions in hit order; a
 * hit in any session holding a copy of the target record counts) and at the turn level (the
 * hit is the target record; grep names files only). hit@1, hit@5, MRR (within the 10) and the
 * count of empty answers per kind. Beside them: the store's bytes per transcript byte, and the
 * installed search's p50 beyond the runtime floor on the >= 200 MB synthetic store.
 *
 * The weights: the same queries ranked in process (core's `queryHits`, strict, no excerpts) on
 * the same store under a grid of entity-bonus weights and phrase bonuses, so the constants in
 * core/recall/rank.ts are the grid's choice and a change to them can be judged here; and the
 * asked queries answered in process (`queryHits` again, the search `terminus search` runs)
 * under the further answers' settings: when sessions join a short first answer
 * (TIER_SESSION_BELOW), what a definition adds (DEFINITION_BONUS), and the share of sessions
 * holding a word past which a session may lack it (TIER_EXCUSE_SHARE).
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { PERMISSION_FLAGS } from "../../core/context.ts";
import { type BenchContext, type Metric, metric, type Section } from "../lib/context.ts";
import {
  buildKnownItems,
  isTurnRecord,
  KIND_QUOTA,
  type QKind,
  readCorpus,
  stringLeaves,
} from "../lib/known_items.ts";
import { otherRoot, realRoot } from "../lib/real.ts";
import {
  type AKind,
  ASKED_QUOTA,
  buildAskedItems,
  NOT_VERBATIM,
  TokenIndex,
} from "../lib/asked_items.ts";
import {
  type CandidateReads,
  ENTITY_WEIGHTS,
  PHRASE_BONUS,
  queryHits,
} from "../../core/recall/search.ts";
import { DEFINITION_BONUS, TIER_EXCUSE_SHARE, TIER_SESSION_BELOW } from "../../core/constants.ts";
import { installed } from "../lib/installed.ts";
import { runTimed } from "../lib/proc.ts";
import { fileSize, withStore } from "../lib/store.ts";
import { ftsIndexBytes, turnUuids } from "../../core/store/replay_reads.ts";
import { median, round } from "../lib/stats.ts";
import { ingest, scenario, scenarioEnv } from "../lib/terminus.ts";
import { loadavg } from "../lib/machine.ts";
import { fullStore } from "./backfill.ts";
import { transcriptBytes } from "./real.ts";
import { pct, resolveQueries } from "./search.ts";
import { SEARCH_COMMON_PAGES } from "../../core/constants.ts";
import { SCALE_SIZES } from "../lib/scale_corpus.ts";

const TOP = 10;
/** Copies of this corpus the ~3 GB scale corpus holds (bench/lib/scale_corpus.ts). */
const SCALE_COPIES = SCALE_SIZES.find((s) => s.name === "3gb")!.copies;
/** The grid: entity bonus per exact match (a covered one counts half), and the phrase bonus. */
const EXACT_GRID = [0, 0.5, 1, 2];
const PHRASE_GRID = [0, 3, 10, 20];
/** Rounds of the synthetic-store timing: each of the 50 search queries, beside a floor run. */
const TIMING_ROUNDS = 2;

/** One system's ranked answer to one query. */
interface Ranked {
  /** session_key of each hit, in order. */
  sessions: string[];
  /** uuid of each hit's record, in order (null where the system names no record). */
  uuids: (string | null)[];
}

type System =
  | "terminus search"
  | "terminus search --strict"
  | "MCP recall_search"
  | "plain FTS5 BM25"
  | "plain FTS5 BM25, any word"
  | "grep, every word"
  | "grep -rl by count";
const SYSTEMS: System[] = [
  "terminus search",
  "terminus search --strict",
  "MCP recall_search",
  "plain FTS5 BM25",
  "plain FTS5 BM25, any word",
  "grep, every word",
  "grep -rl by count",
];
/** The systems that name files, not records: no turn level. */
const FILE_SYSTEMS = new Set<System>(["grep, every word", "grep -rl by count"]);
/** The further answers' settings the in-process grid tries. */
const BELOW_GRID = [1, 3, 5, 10];
const DEFINITION_GRID = [0, 3, 10, 20];
/** Shares of the scope's sessions at which a word is excused (1: only one every session says). */
const EXCUSE_GRID = [0.25, 0.5, 1];

/** A query of either set, with the sessions counted as right. */
interface Item {
  q: string;
  kind: string;
  uuid: string;
  sessionKey: string;
  sessions: string[];
  set: "known" | "asked";
}

interface Score {
  s1: number;
  s5: number;
  smrr: number;
  /** Empty answers (a share in a summary). */
  zero: number;
  t1: number | null;
  t5: number | null;
  tmrr: number | null;
}

function scoreOne(item: Item, r: Ranked, turnLevel: boolean): Score {
  const distinct: string[] = [];
  for (const s of r.sessions) if (!distinct.includes(s)) distinct.push(s);
  const si = distinct.findIndex((s) => item.sessions.includes(s));
  const ti = turnLevel ? r.uuids.findIndex((u) => u === item.uuid) : -1;
  const at = (i: number, k: number) => (i >= 0 && i < k ? 1 : 0);
  const rr = (i: number) => (i >= 0 && i < TOP ? 1 / (i + 1) : 0);
  return {
    s1: at(si, 1),
    s5: at(si, 5),
    smrr: rr(si),
    zero: r.sessions.length === 0 ? 1 : 0,
    t1: turnLevel ? at(ti, 1) : null,
    t5: turnLevel ? at(ti, 5) : null,
    tmrr: turnLevel ? rr(ti) : null,
  };
}

function mean(xs: (number | null)[]): number | null {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
}

function summarise(scores: Score[]): Score {
  return {
    s1: mean(scores.map((s) => s.s1)) ?? 0,
    s5: mean(scores.map((s) => s.s5)) ?? 0,
    smrr: mean(scores.map((s) => s.smrr)) ?? 0,
    zero: scores.reduce((n, s) => n + s.zero, 0),
    t1: mean(scores.map((s) => s.t1)),
    t5: mean(scores.map((s) => s.t5)),
    tmrr: mean(scores.map((s) => s.tmrr)),
  };
}

/** Words as the index splits them, each quoted, joined with AND (the spec's every-word rule). */
function plainMatch(q: string): string | null {
  const t = [...new Set((q.match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).map((x) => x.toLowerCase()))];
  return t.length ? t.map((x) => `"${x}"`).join(" AND ") : null;
}

/** The plain baseline: one FTS5 row per turn record, all its string values, default BM25. */
function plainTable(path: string, files: ReturnType<typeof readCorpus>): DatabaseSync {
  try {
    Deno.removeSync(path);
  } catch { /* none yet */ }
  const db = new DatabaseSync(path);
  db.exec("CREATE VIRTUAL TABLE p USING fts5(body, skey UNINDEXED, uuid UNINDEXED)");
  const ins = db.prepare("INSERT INTO p(body, skey, uuid) VALUES (?, ?, ?)");
  db.exec("BEGIN");
  for (const f of files) {
    for (const r of f.records) {
      if (!isTurnRecord(r)) continue;
      const leaves: string[] = [];
      stringLeaves(r, leaves);
      ins.run(leaves.join("\n"), f.sessionKey, r.uuid as string);
    }
  }
  db.exec("COMMIT");
  return db;
}

/** Any of the words, ranked by BM25 (rarer words weigh more by its idf). */
function plainAnyMatch(q: string): string | null {
  const m = plainMatch(q);
  return m === null ? null : m.split(" AND ").join(" OR ");
}

/** grep, every word, whole transcript: files holding each word (case-folded), by their count. */
function grepEvery(files: ReturnType<typeof readCorpus>, q: string): Ranked {
  const words = [...new Set((q.match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).map((x) => x.toLowerCase()))];
  if (!words.length) return { sessions: [], uuids: [] };
  const found: { key: string; n: number }[] = [];
  for (const f of files) {
    if (!words.every((w) => f.folded.includes(w))) continue;
    let n = 0;
    for (const w of words) {
      for (let i = f.folded.indexOf(w); i >= 0; i = f.folded.indexOf(w, i + w.length)) n++;
    }
    found.push({ key: f.sessionKey, n });
  }
  found.sort((a, b) => b.n - a.n || (a.key < b.key ? -1 : 1));
  const top = found.slice(0, TOP);
  return { sessions: top.map((x) => x.key), uuids: top.map(() => null) };
}

function plainAsk(db: DatabaseSync, q: string, any = false): Ranked {
  const m = any ? plainAnyMatch(q) : plainMatch(q);
  if (!m) return { sessions: [], uuids: [] };
  const rows = db.prepare(
    "SELECT skey, uuid FROM p WHERE p MATCH ? ORDER BY bm25(p) LIMIT ?",
  ).all(m, TOP) as { skey: string; uuid: string }[];
  return { sessions: rows.map((r) => r.skey), uuids: rows.map((r) => r.uuid) };
}

async function grepAsk(projects: string, q: string): Promise<Ranked> {
  const r = await runTimed("grep", ["-rciF", "--include=*.jsonl", "-e", q, "--", projects], {});
  const rows = r.stdout.split("\n").filter((l) => l !== "").map((l) => {
    const i = l.lastIndexOf(":");
    return { file: l.slice(0, i), n: Number(l.slice(i + 1)) };
  }).filter((x) => x.n > 0).sort((a, b) => b.n - a.n || (a.file < b.file ? -1 : 1)).slice(0, TOP);
  const keyOf = (file: string) => {
    // projects/<folder>/<key>
    const rel = file.slice(projects.length + 1);
    return rel.slice(rel.indexOf("/") + 1);
  };
  return { sessions: rows.map((x) => keyOf(x.file)), uuids: rows.map(() => null) };
}

/** A `terminus mcp` process spoken to over stdio, one JSON-RPC message a line. */
class McpClient {
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: AsyncIterator<string>;
  #buf = "";
  #id = 0;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  constructor(launcher: string, env: Record<string, string>, cwd: string) {
    this.#child = new Deno.Command(launcher, {
      args: ["mcp"],
      env,
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reader = this.#child.stdout.getReader();
    this.#lines = this.#readLines();
  }
  async *#readLines(): AsyncGenerator<string> {
    const dec = new TextDecoder();
    for (;;) {
      const nl = this.#buf.indexOf("\n");
      if (nl >= 0) {
        const line = this.#buf.slice(0, nl);
        this.#buf = this.#buf.slice(nl + 1);
        yield line;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) return;
      this.#buf += dec.decode(value, { stream: true });
    }
  }
  async #send(msg: Record<string, unknown>): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(msg) + "\n"));
  }
  async request(method: string, params: unknown): Promise<Record<string, unknown>> {
    const id = ++this.#id;
    await this.#send({ jsonrpc: "2.0", id, method, params });
    for (;;) {
      const n = await this.#lines.next();
      if (n.done) throw new Error(`terminus mcp closed before answering ${method}`);
      const m = JSON.parse(n.value);
      if (m.id === id) return m;
    }
  }
  async start(): Promise<void> {
    await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "bench-quality", version: "0" },
    });
    await this.#send({ jsonrpc: "2.0", method: "notifications/initialized" });
  }
  async search(q: string): Promise<{ turn_id: number; session_key: string }[]> {
    const m = await this.request("tools/call", {
      name: "recall_search",
      arguments: { query: q, project: "*", limit: TOP },
    });
    if ((m.result as { isError?: boolean } | undefined)?.isError) return [];
    const result = m.result as { content: { text: string }[] } | undefined;
    if (!result) throw new Error(`recall_search ${JSON.stringify(q)}: ${JSON.stringify(m)}`);
    return (JSON.parse(result.content[0].text) as {
      hits: { turn_id: number; session_key: string }[];
    })
      .hits;
  }
  async close(): Promise<void> {
    await this.#writer.close();
    await this.#child.status;
  }
}

const f2 = (x: number | null) => (x === null ? "-" : x.toFixed(2));

/** What one corpus gave: its items, every system's answers and its store's sizes. */
interface CorpusRun {
  name: string;
  items: Item[];
  /** Per system, an answer per item (null: the system was not asked that item). */
  answers: Map<System, (Ranked | null)[]>;
  uuidOf: Map<number, string>;
  storeBytes: number;
  tBytes: number;
  fts: number;
  plainBytes: number;
  store: string;
  files: ReturnType<typeof readCorpus>;
}

/** The answers of every system to one corpus's items (known items, then asked ones). */
async function askCorpus(
  ctx: BenchContext,
  launcher: string,
  name: string,
  root: string,
): Promise<CorpusRun> {
  ctx.log(`quality ${name}: reading the corpus and building the queries`);
  const files = readCorpus(root);
  const known: Item[] = buildKnownItems(files).map((x) => ({ ...x, set: "known" }));
  const asked: Item[] = buildAskedItems(files, new TokenIndex(files)).map((x) => ({
    ...x,
    set: "asked",
  }));
  const items = [...known, ...asked];
  Deno.writeTextFileSync(
    join(ctx.workDir, `quality-items-${name}.json`),
    JSON.stringify(items, null, 1) + "\n",
  );
  ctx.log(`quality ${name}: a fresh store (terminus ingest)`);
  const scn = scenario(ctx.workDir, `quality-${name}`, [root], true);
  await ingest(ctx.repo, scn);
  const env = scenarioEnv(scn);
  const uuidOf = withStore(scn.store, turnUuids);
  const ranked = (hits: { turn_id: number; session_key: string }[]): Ranked => ({
    sessions: hits.map((h) => h.session_key),
    uuids: hits.map((h) => uuidOf.get(h.turn_id) ?? null),
  });
  const answers = new Map<System, (Ranked | null)[]>();
  for (
    const [sys, extra] of [["terminus search", []], ["terminus search --strict", ["--strict"]]] as [
      System,
      string[],
    ][]
  ) {
    ctx.log(`quality ${name}: ${items.length} queries through the installed ${sys}`);
    const out: Ranked[] = [];
    for (const it of items) {
      const r = await runTimed(
        launcher,
        ["search", "--project", "*", "--json", "--limit", String(TOP), ...extra, "--", it.q],
        { cwd: ctx.repo, env },
      );
      if (r.code !== 0) throw new Error(`terminus search ${JSON.stringify(it.q)}: ${r.stderr}`);
      out.push(ranked(JSON.parse(r.stdout).data.hits));
    }
    answers.set(sys, out);
  }
  ctx.log(`quality ${name}: the same queries through the installed terminus mcp's recall_search`);
  const mcp = new McpClient(launcher, env, ctx.repo);
  await mcp.start();
  const viaMcp: Ranked[] = [];
  for (const it of items) viaMcp.push(ranked(await mcp.search(it.q)));
  await mcp.close();
  answers.set("MCP recall_search", viaMcp);
  ctx.log(`quality ${name}: the plain FTS5 table, grep`);
  const plainPath = join(ctx.workDir, `quality-plain-${name}.db`);
  const pdb = plainTable(plainPath, files);
  answers.set("plain FTS5 BM25", items.map((it) => plainAsk(pdb, it.q)));
  answers.set("plain FTS5 BM25, any word", items.map((it) => plainAsk(pdb, it.q, true)));
  pdb.close();
  answers.set("grep, every word", items.map((it) => grepEvery(files, it.q)));
  const projects = join(root, "projects");
  const byCount: (Ranked | null)[] = [];
  for (const it of items) byCount.push(it.set === "known" ? await grepAsk(projects, it.q) : null);
  answers.set("grep -rl by count", byCount);
  return {
    name,
    items,
    answers,
    uuidOf,
    storeBytes: fileSize(scn.store) + fileSize(`${scn.store}-wal`),
    tBytes: transcriptBytes(root).bytes,
    fts: withStore(scn.store, ftsIndexBytes),
    plainBytes: fileSize(plainPath),
    store: scn.store,
    files,
  };
}

/** Each system's scores per item (null where it was not asked). */
function scoresOf(c: CorpusRun): Map<System, (Score | null)[]> {
  const out = new Map<System, (Score | null)[]>();
  for (const sys of SYSTEMS) {
    const rs = c.answers.get(sys)!;
    out.set(
      sys,
      c.items.map((it, i) =>
        rs[i] === null ? null : scoreOne(it, rs[i]!, it.set === "known" && !FILE_SYSTEMS.has(sys))
      ),
    );
  }
  return out;
}

function summariseWhere(
  scores: (Score | null)[],
  items: Item[],
  pick: (it: Item) => boolean,
): Score & { n: number } {
  const s = scores.filter((x, i): x is Score => x !== null && pick(items[i]));
  return { ...summarise(s), n: s.length };
}

/** One cell: session hit@1 / hit@5 / MRR / empty answers. */
const cell = (s: Score & { n: number }) =>
  s.n ? `${f2(s.s1)} / ${f2(s.s5)} / ${f2(s.smrr)} / ${s.zero}` : "-";

/** The asked queries answered in process under one setting of the further answers. */
function furtherGrid(
  c: CorpusRun,
): { label: string; byKind: Record<string, Score & { n: number }>; ms: number }[] {
  const out: { label: string; byKind: Record<string, Score & { n: number }>; ms: number }[] = [];
  const settings: {
    label: string;
    sessionBelow: number;
    definitionBonus: number;
    excuseShare: number;
  }[] = [
    ...BELOW_GRID.map((b) => ({
      label: `sessions below ${b}, definition ${DEFINITION_BONUS}`,
      sessionBelow: b,
      definitionBonus: DEFINITION_BONUS,
      excuseShare: TIER_EXCUSE_SHARE,
    })),
    ...DEFINITION_GRID.filter((d) => d !== DEFINITION_BONUS).map((d) => ({
      label: `sessions below ${TIER_SESSION_BELOW}, definition ${d}`,
      sessionBelow: TIER_SESSION_BELOW,
      definitionBonus: d,
      excuseShare: TIER_EXCUSE_SHARE,
    })),
    ...EXCUSE_GRID.filter((e) => e !== TIER_EXCUSE_SHARE).map((e) => ({
      label:
        `sessions below ${TIER_SESSION_BELOW}, definition ${DEFINITION_BONUS}, excused at ${e}`,
      sessionBelow: TIER_SESSION_BELOW,
      definitionBonus: DEFINITION_BONUS,
      excuseShare: e,
    })),
  ];
  withStore(c.store, (db) => {
    for (const st of settings) {
      const t0 = performance.now();
      const scores = c.items.map((it) => {
        const hits = queryHits(db, it.q, TOP, {
          sessionBelow: st.sessionBelow,
          definitionBonus: st.definitionBonus,
          excuseShare: st.excuseShare,
        });
        return scoreOne(it, { sessions: hits.map((h) => h.session_key), uuids: [] }, false);
      });
      const ms = performance.now() - t0;
      const byKind: Record<string, Score & { n: number }> = {};
      for (const k of [...Object.keys(ASKED_QUOTA), "known"]) {
        byKind[k] = summariseWhere(
          scores,
          c.items,
          (it) => k === "known" ? it.set === "known" : it.kind === k,
        );
      }
      byKind["not verbatim"] = summariseWhere(
        scores,
        c.items,
        (it) => NOT_VERBATIM.includes(it.kind as AKind),
      );
      out.push({ label: st.label, byKind, ms });
    }
  });
  return out;
}

export const section: Section = {
  name: "quality",
  title: "Search quality (known items and asked queries on real transcripts)",
  async run(ctx: BenchContext) {
    const real = await realRoot(ctx.outDir, ctx.opts.real);
    if (!real.root) return { metrics: [], notes: [`skipped: ${real.why}`] };
    const other = await otherRoot(ctx.outDir, ctx.opts.realOther);
    const inst = await installed(ctx);
    const runs: CorpusRun[] = [await askCorpus(ctx, inst.launcher, "erk", real.root)];
    if (other.root) runs.push(await askCorpus(ctx, inst.launcher, "other", other.root));
    const erk = runs[0];
    const items = erk.items.filter((it) => it.set === "known");

    // the weights, in process on the erk store (the known items)
    ctx.log(`quality: ${EXACT_GRID.length * PHRASE_GRID.length} weightings in process`);
    const grid: { exact: number; phrase: number; score: Score; byKind: Record<string, number> }[] =
      [];
    withStore(erk.store, (db) => {
      for (const exact of EXACT_GRID) {
        for (const phrase of PHRASE_GRID) {
          const scores = items.map((it) => {
            const hits = queryHits(db, it.q, TOP, {
              strict: true,
              weights: { exact, covered: exact / 2 },
              phraseBonus: phrase,
            });
            return scoreOne(it, {
              sessions: hits.map((h) => h.session_key),
              uuids: hits.map((h) => erk.uuidOf.get(h.turn_id) ?? null),
            }, true);
          });
          const byKind: Record<string, number> = {};
          for (const k of Object.keys(KIND_QUOTA)) {
            byKind[k] = summarise(scores.filter((_, i) => items[i].kind === k)).smrr;
          }
          grid.push({ exact, phrase, score: summarise(scores), byKind });
        }
      }
    });

    // common clauses as the ~3 GB scale store sees them: it holds 24 copies of this corpus, so a
    // word's doclist there spans about 24 times the pages it spans here
    const atScale = withStore(erk.store, (db) => {
      const pages = Math.max(1, Math.round(SEARCH_COMMON_PAGES / SCALE_COPIES));
      let withCommon = 0;
      const scores = items.map((it) => {
        const reads: CandidateReads = { rows: [], capped: false };
        const hits = queryHits(db, it.q, TOP, {
          strict: true,
          common: { pages },
          reads,
        });
        if (reads.common?.length) withCommon++;
        return scoreOne(it, {
          sessions: hits.map((h) => h.session_key),
          uuids: hits.map((h) => erk.uuidOf.get(h.turn_id) ?? null),
        }, true);
      });
      return { pages, withCommon, score: summarise(scores) };
    });

    // the further answers' settings, in process on each store
    ctx.log("quality: the further answers' settings in process");
    const further = runs.map((c) => ({ name: c.name, grid: furtherGrid(c) }));

    // the known items: the table as before, per corpus
    const kinds = Object.keys(KIND_QUOTA) as QKind[];
    const knownSystems = SYSTEMS.filter((s) => s !== "grep, every word");
    const table: Record<string, Record<string, Record<string, Score>>> = {};
    const lines: string[] = [];
    const perItem: Record<string, unknown>[] = [];
    const scored = new Map(runs.map((c) => [c.name, scoresOf(c)]));
    for (const c of runs) {
      const sc = scored.get(c.name)!;
      c.items.forEach((it, i) => {
        const row: Record<string, unknown> = { corpus: c.name, ...it };
        for (const sys of SYSTEMS) row[sys] = sc.get(sys)![i]?.smrr ?? null;
        perItem.push(row);
      });
      table[c.name] = {};
      lines.push(
        `Known items, ${c.name} (${c.items.filter((x) => x.set === "known").length}):`,
        "| system | kind | n | session hit@1 | hit@5 | MRR | turn hit@1 | hit@5 | MRR |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      );
      for (const sys of knownSystems) {
        table[c.name][sys] = {};
        for (const k of ["overall", ...kinds]) {
          const s = summariseWhere(
            sc.get(sys)!,
            c.items,
            (it) => it.set === "known" && (k === "overall" || it.kind === k),
          );
          table[c.name][sys][k] = s;
          lines.push(
            `| ${sys} | ${k} | ${s.n} | ${f2(s.s1)} | ${f2(s.s5)} | ${f2(s.smrr)} | ${f2(s.t1)} | ${
              f2(s.t5)
            } | ${f2(s.tmrr)} |`,
          );
        }
      }
    }
    // the asked queries: per corpus and both together, a kind a row, a system a column
    const askedSystems = SYSTEMS.filter((s) => s !== "grep -rl by count");
    const askedKinds = Object.keys(ASKED_QUOTA) as AKind[];
    const groupsOf: [string, (it: Item) => boolean][] = [
      ...askedKinds.map((k) =>
        [k, (it: Item) => it.set === "asked" && it.kind === k] as [string, (it: Item) => boolean]
      ),
      [
        "not verbatim (the first four)",
        (it) => it.set === "asked" && NOT_VERBATIM.includes(it.kind as AKind),
      ],
      ["known items", (it) => it.set === "known"],
    ];
    const asked: Record<string, Record<string, Record<string, Score & { n: number }>>> = {};
    const both = { name: "both", items: runs.flatMap((c) => c.items) };
    const bothScores = new Map<System, (Score | null)[]>(
      SYSTEMS.map((s) => [s, runs.flatMap((c) => scored.get(c.name)!.get(s)!)]),
    );
    for (
      const [name, its, sc] of [
        ...runs.map((c) => [c.name, c.items, scored.get(c.name)!] as const),
        [both.name, both.items, bothScores] as const,
      ]
    ) {
      asked[name] = {};
      lines.push(
        `Asked queries, ${name}: session hit@1 / hit@5 / MRR / empty answers`,
        `| kind | n | ${askedSystems.join(" | ")} |`,
        `| --- | --- | ${askedSystems.map(() => "---").join(" | ")} |`,
      );
      for (const [g, pick] of groupsOf) {
        asked[name][g] = {};
        const cells: string[] = [];
        let n = 0;
        for (const sys of askedSystems) {
          const s = summariseWhere(sc.get(sys)!, its, pick);
          asked[name][g][sys] = s;
          n = Math.max(n, s.n);
          cells.push(cell(s));
        }
        lines.push(`| ${g} | ${n} | ${cells.join(" | ")} |`);
      }
    }
    for (const f of further) {
      lines.push(
        `Further answers' settings, in process, ${f.name} (session hit@5 / MRR; build: sessions below ${TIER_SESSION_BELOW}, definition ${DEFINITION_BONUS}, words excused at ${TIER_EXCUSE_SHARE} of the sessions):`,
        "| setting | not verbatim | question | name-context | symbol | known items | ms, all queries |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        ...f.grid.map((g) => {
          const c2 = (k: string) => `${f2(g.byKind[k].s5)} / ${f2(g.byKind[k].smrr)}`;
          return `| ${g.label} | ${c2("not verbatim")} | ${c2("question")} | ${
            c2("name-context")
          } | ${c2("symbol")} | ${c2("known")} | ${g.ms.toFixed(0)} |`;
        }),
      );
    }
    const mine = table.erk["terminus search"];
    const plain = table.erk["plain FTS5 BM25"];
    const worse = kinds.filter((k) => mine[k].smrr < plain[k].smrr - 1e-9);
    const nv = "not verbatim (the first four)";
    const all = asked.both;
    const belowAny: string[] = [];
    for (const c of runs) {
      for (const k of NOT_VERBATIM) {
        const t5 = asked[c.name][k]["terminus search"];
        const p5 = asked[c.name][k]["plain FTS5 BM25, any word"];
        if (t5.n && t5.s5 < p5.s5 - 1e-9) {
          belowAny.push(`${c.name} ${k} ${f2(t5.s5)} < ${f2(p5.s5)}`);
        }
      }
    }
    const q = all.question["terminus search"];
    const sym = all.symbol["terminus search"];
    const symPlain = all.symbol["plain FTS5 BM25"];

    // the installed search on the >= 200 MB synthetic store, beside the floor
    const { scn: full } = await fullStore(ctx);
    const qs = resolveQueries(ctx, full.store);
    const empty = join(ctx.outDir, "empty.ts");
    Deno.writeTextFileSync(empty, "");
    const floorWall: number[] = [];
    const instWall: number[] = [];
    ctx.log(`quality: ${qs.length * TIMING_ROUNDS} installed searches on the synthetic store`);
    const load0 = await loadavg();
    for (let round = 0; round < TIMING_ROUNDS; round++) {
      for (const r of qs) {
        const f = await runTimed(Deno.execPath(), ["run", ...PERMISSION_FLAGS, empty], {
          cwd: ctx.repo,
        });
        floorWall.push(f.wallMs);
        const s = await runTimed(
          inst.launcher,
          ["search", r.q, "--project", r.project ?? "*"],
          { cwd: ctx.repo, env: scenarioEnv(full) },
        );
        if (s.code !== 0) throw new Error(`terminus search ${r.q}: ${s.stderr}`);
        instWall.push(s.wallMs);
      }
    }
    const load1 = await loadavg();
    const fullBytes = fileSize(full.store) + fileSize(`${full.store}-wal`);

    const metrics: Metric[] = [
      metric(
        "quality_session_mrr",
        "installed terminus search, session-level MRR, overall",
        round(mine.overall.smrr, 3),
        "",
        { op: ">=", value: 0.95 },
        `plain FTS5 table ${f2(plain.overall.smrr)}; ${items.length} known-item queries`,
      ),
      metric(
        "quality_session_hit5",
        "installed terminus search, session-level hit@5, overall",
        round(mine.overall.s5, 3),
        "",
        { op: ">=", value: 0.95 },
        `plain FTS5 table ${f2(plain.overall.s5)}`,
      ),
      metric(
        "quality_turn_mrr",
        "installed terminus search, turn-level MRR, overall",
        round(mine.overall.tmrr!, 3),
        "",
        undefined,
        `plain FTS5 table ${f2(plain.overall.tmrr)}`,
      ),
      metric(
        "quality_common_at_scale_session_mrr",
        "in process, common words as at ~3 GB: session-level MRR, overall",
        round(atScale.score.smrr, 3),
        "",
        undefined,
        `hit@5 ${round(atScale.score.s5, 3)}, turn MRR ${
          round(atScale.score.tmrr!, 3)
        }; the words scored exactly span fewer than ${atScale.pages} pages here together (SEARCH_COMMON_PAGES ${SEARCH_COMMON_PAGES} / ${SCALE_COPIES} copies), the longest adding nothing alike until they do; ${atScale.withCommon} of ${items.length} queries had such a word`,
      ),
      metric(
        "quality_mcp_session_mrr",
        "MCP recall_search, session-level MRR, overall",
        round(table.erk["MCP recall_search"].overall.smrr, 3),
        "",
      ),
      metric(
        "quality_kinds_below_plain",
        "kinds where terminus search's session MRR is below the plain table's",
        worse.length,
        "",
        { op: "<=", value: 0 },
        worse.length
          ? worse.map((k) => `${k} ${f2(mine[k].smrr)} < ${f2(plain[k].smrr)}`).join(", ")
          : "none",
      ),
      metric(
        "quality_asked_session_hit5",
        "installed terminus search, asked queries not verbatim (memory, name + context, pasted error, question), both corpora: session hit@5",
        round(all[nv]["terminus search"].s5, 3),
        "",
        { op: ">=", value: 0.9 },
        `--strict ${f2(all[nv]["terminus search --strict"].s5)}, plain any word ${
          f2(all[nv]["plain FTS5 BM25, any word"].s5)
        }, plain every word ${f2(all[nv]["plain FTS5 BM25"].s5)}, grep every word ${
          f2(all[nv]["grep, every word"].s5)
        }; ${all[nv]["terminus search"].n} queries`,
      ),
      metric(
        "quality_asked_session_mrr",
        "the same: session MRR",
        round(all[nv]["terminus search"].smrr, 3),
        "",
        { op: ">=", value: 0.85 },
        `--strict ${f2(all[nv]["terminus search --strict"].smrr)}, plain any word ${
          f2(all[nv]["plain FTS5 BM25, any word"].smrr)
        }`,
      ),
      metric(
        "quality_asked_kinds_below_any_word",
        "kinds not verbatim (per corpus) where terminus search's session hit@5 is below the plain table's, any word",
        belowAny.length,
        "",
        { op: "<=", value: 0 },
        belowAny.length ? belowAny.join(", ") : "none",
      ),
      metric(
        "quality_questions_empty_share",
        "questions answered with nothing (both corpora)",
        q.n ? round(q.zero / q.n, 3) : null,
        "",
        { op: "<=", value: 0.02 },
        `${q.zero} of ${q.n}; --strict ${all.question["terminus search --strict"].zero}`,
      ),
      metric(
        "quality_symbol_mrr_over_plain",
        "bare class names (both corpora): terminus search's session MRR minus the plain table's",
        round(sym.smrr - symPlain.smrr, 3),
        "",
        { op: ">=", value: 0 },
        `${f2(sym.smrr)} against ${f2(symPlain.smrr)}; ${sym.n} queries`,
      ),
      metric(
        "quality_typed_prompt_empty",
        "whole typed prompts answered with nothing (both corpora)",
        all["typed-prompt"]["terminus search"].zero,
        "",
        undefined,
        `of ${all["typed-prompt"]["terminus search"].n}; session MRR ${
          f2(all["typed-prompt"]["terminus search"].smrr)
        }`,
      ),
      metric(
        "quality_other_known_session_mrr",
        "installed terminus search, known items on the other projects' corpus: session MRR",
        runs[1] ? round(table.other["terminus search"].overall.smrr, 3) : null,
        "",
        undefined,
        runs[1] ? `plain FTS5 table ${f2(table.other["plain FTS5 BM25"].overall.smrr)}` : other.why,
      ),
      metric(
        "quality_store_ratio",
        "store file / transcript bytes (real corpus)",
        round(erk.storeBytes / erk.tBytes, 3),
        "",
        { op: "<=", value: 0.5 },
        `${(erk.storeBytes / 1e6).toFixed(1)} MB for ${
          (erk.tBytes / 1e6).toFixed(1)
        } MB; FTS tables ${(erk.fts / 1e6).toFixed(1)} MB; the plain table's file ${
          (erk.plainBytes / 1e6).toFixed(1)
        } MB`,
      ),
      metric(
        "quality_synthetic_store_ratio",
        "synthetic store file / transcript bytes",
        round(fullBytes / ctx.corpus.bytes, 3),
        "",
        { op: "<=", value: 0.5 },
        `${(fullBytes / 1e6).toFixed(1)} MB for ${(ctx.corpus.bytes / 1e6).toFixed(1)} MB`,
      ),
      metric(
        "quality_search_beyond_floor_ms",
        "installed terminus search on the synthetic store, p50 beyond the floor",
        round(median(instWall) - median(floorWall), 1),
        "ms",
        { op: "<=", value: 25 },
        `search p50 ${round(median(instWall), 1)} (p95 ${
          round(pct(instWall, 0.95), 1)
        }), floor p50 ${round(median(floorWall), 1)} (p95 ${
          round(pct(floorWall, 0.95), 1)
        }) ms, n=${instWall.length} each interleaved; load ${load0.join(" ")} -> ${
          load1.join(" ")
        }`,
      ),
    ];
    const notes = [
      `Known items (erk): ${items.length} (${
        kinds.map((k) => `${items.filter((x) => x.kind === k).length} ${k}`).join(", ")
      }), built by the rule in bench/lib/known_items.ts; asked queries by the rules in bench/lib/asked_items.ts; the lists are in ${
        join(ctx.workDir, "quality-items-<corpus>.json")
      }.`,
      ...lines,
      `Weights (in process, the same store and queries; the build uses exact ${ENTITY_WEIGHTS.exact}, covered ${ENTITY_WEIGHTS.covered}, phrase ${PHRASE_BONUS}):`,
      "| exact (covered half) | phrase | session MRR | hit@5 | turn MRR | lowest kind (MRR) |",
      "| --- | --- | --- | --- | --- | --- |",
      ...grid.map((g) => {
        const low = Object.entries(g.byKind).sort((a, b) => a[1] - b[1])[0];
        return `| ${g.exact} | ${g.phrase} | ${f2(g.score.smrr)} | ${f2(g.score.s5)} | ${
          f2(g.score.tmrr)
        } | ${low[0]} ${f2(low[1])} |`;
      }),
      "Session level: the distinct sessions of the top 10 in hit order, a hit in any session holding a copy of the target record counting. Turn level: the hit is the target record (grep names files, so it has none).",
    ];
    return {
      metrics,
      notes,
      data: {
        table,
        asked,
        grid,
        further,
        items: perItem,
        instWallMs: instWall,
        floorWallMs: floorWall,
      },
    };
  },
};
