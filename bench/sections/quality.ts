/**
 * Search quality: known-item queries built by rule from the real bench corpus (the rule is in
 * bench/lib/known_items.ts), each with its target turn, asked of four systems over the same
 * transcripts:
 *
 * - the installed `terminus search <q> --project '*' --json --limit 10`, one process a query,
 *   on a store this run makes from the transcripts with the checkout's `terminus ingest`;
 * - MCP `recall_search` (`project: "*"`, `limit: 10`) through the installed `terminus mcp`,
 *   one server for every query, spoken to over stdio as Claude Code does;
 * - a plain FTS5 table (unicode61, BM25) over each turn record's string values, built here;
 * - `grep -rciF <q>` over the transcripts, files ranked by their count of matching lines.
 *
 * Each system's top 10 is scored at the session level (the distinct sessions in hit order; a
 * hit in any session holding a copy of the target record counts) and at the turn level (the
 * hit is the target record; grep names files only). hit@1, hit@5 and MRR (within the 10) per
 * kind and overall. Beside them: the store's bytes per transcript byte, and the installed
 * search's p50 beyond the runtime floor on the >= 200 MB synthetic store.
 *
 * The weights: the same queries ranked in process (core's `rank`, no excerpts) on the same
 * store under a grid of entity-bonus weights and phrase bonuses, so the constants in
 * core/recall/rank.ts are the grid's choice and a change to them can be judged here.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { PERMISSION_FLAGS } from "../../core/context.ts";
import { type BenchContext, type Metric, metric, type Section } from "../lib/context.ts";
import {
  buildKnownItems,
  isTurnRecord,
  KIND_QUOTA,
  type KnownItem,
  type QKind,
  readCorpus,
  stringLeaves,
} from "../lib/known_items.ts";
import { realRoot } from "../lib/real.ts";
import { installed } from "../lib/installed.ts";
import { runTimed } from "../lib/proc.ts";
import { fileSize, withStore } from "../lib/store.ts";
import { median, round } from "../lib/stats.ts";
import { ingest, scenario, scenarioEnv } from "../lib/terminus.ts";
import { loadavg } from "../lib/machine.ts";
import { fullStore } from "./backfill.ts";
import { transcriptBytes } from "./real.ts";
import { pct, resolveQueries } from "./search.ts";
import { ENTITY_WEIGHTS, PHRASE_BONUS, rank } from "../../core/recall/rank.ts";
import { parseQuery } from "../../core/recall/query.ts";
import type { CandidateReads } from "../../core/store/search_candidates.ts";
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

type System = "terminus search" | "MCP recall_search" | "plain FTS5 BM25" | "grep -rl by count";
const SYSTEMS: System[] = [
  "terminus search",
  "MCP recall_search",
  "plain FTS5 BM25",
  "grep -rl by count",
];

interface Score {
  s1: number;
  s5: number;
  smrr: number;
  t1: number | null;
  t5: number | null;
  tmrr: number | null;
}

function scoreOne(item: KnownItem, r: Ranked, turnLevel: boolean): Score {
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
    s1: mean(scores.map((s) => s.s1))!,
    s5: mean(scores.map((s) => s.s5))!,
    smrr: mean(scores.map((s) => s.smrr))!,
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

function plainAsk(db: DatabaseSync, q: string): Ranked {
  const m = plainMatch(q);
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

export const section: Section = {
  name: "quality",
  title: "Search quality (known-item queries on real transcripts)",
  async run(ctx: BenchContext) {
    const real = await realRoot(ctx.outDir, ctx.opts.real);
    if (!real.root) return { metrics: [], notes: [`skipped: ${real.why}`] };
    const projects = join(real.root, "projects");
    ctx.log("quality: reading the real corpus and building the known items");
    const files = readCorpus(real.root);
    const items = buildKnownItems(files);
    Deno.writeTextFileSync(
      join(ctx.workDir, "quality-items.json"),
      JSON.stringify(items, null, 1) + "\n",
    );

    // the store, made anew by this checkout
    ctx.log("quality: a fresh store of the real corpus (terminus ingest)");
    const scn = scenario(ctx.workDir, "quality", [real.root], true);
    await ingest(ctx.repo, scn);
    const env = scenarioEnv(scn);
    const storeBytes = fileSize(scn.store) + fileSize(`${scn.store}-wal`);
    const tBytes = transcriptBytes(real.root).bytes;
    const uuidOf = withStore(scn.store, (db) =>
      new Map(
        (db.prepare("SELECT id, uuid FROM turns").all() as { id: number; uuid: string }[]).map((
          r,
        ) => [r.id, r.uuid]),
      ));
    const fts = withStore(scn.store, (db) =>
      (db.prepare(
        "SELECT sum(pgsize) AS n FROM dbstat WHERE name LIKE 'turns_fts%'",
      ).get() as { n: number }).n);

    const inst = await installed(ctx);
    const answers = new Map<System, Ranked[]>();
    // installed terminus search
    ctx.log(`quality: ${items.length} queries through the installed terminus search`);
    const cli: Ranked[] = [];
    for (const it of items) {
      const r = await runTimed(
        inst.launcher,
        ["search", "--project", "*", "--json", "--limit", String(TOP), "--", it.q],
        { cwd: ctx.repo, env },
      );
      if (r.code !== 0) throw new Error(`terminus search ${JSON.stringify(it.q)}: ${r.stderr}`);
      const hits = JSON.parse(r.stdout).data.hits as { turn_id: number; session_key: string }[];
      cli.push({
        sessions: hits.map((h) => h.session_key),
        uuids: hits.map((h) => uuidOf.get(h.turn_id) ?? null),
      });
    }
    answers.set("terminus search", cli);
    // MCP
    ctx.log("quality: the same queries through the installed terminus mcp's recall_search");
    const mcp = new McpClient(inst.launcher, env, ctx.repo);
    await mcp.start();
    const viaMcp: Ranked[] = [];
    for (const it of items) {
      const hits = await mcp.search(it.q);
      viaMcp.push({
        sessions: hits.map((h) => h.session_key),
        uuids: hits.map((h) => uuidOf.get(h.turn_id) ?? null),
      });
    }
    await mcp.close();
    answers.set("MCP recall_search", viaMcp);
    // plain table
    ctx.log("quality: the plain FTS5 table");
    const pdb = plainTable(join(ctx.workDir, "quality-plain.db"), files);
    answers.set("plain FTS5 BM25", items.map((it) => plainAsk(pdb, it.q)));
    pdb.close();
    const plainBytes = fileSize(join(ctx.workDir, "quality-plain.db"));
    // grep
    ctx.log("quality: grep -rciF");
    const viaGrep: Ranked[] = [];
    for (const it of items) viaGrep.push(await grepAsk(projects, it.q));
    answers.set("grep -rl by count", viaGrep);

    // the weights, in process on the same store
    ctx.log(`quality: ${EXACT_GRID.length * PHRASE_GRID.length} weightings in process`);
    const grid: { exact: number; phrase: number; score: Score; byKind: Record<string, number> }[] =
      [];
    withStore(scn.store, (db) => {
      for (const exact of EXACT_GRID) {
        for (const phrase of PHRASE_GRID) {
          const scores = items.map((it) => {
            const hits = rank(db, {
              query: parseQuery(it.q),
              vis: { project: null, exclude: [] },
              filters: {},
              limit: TOP,
              weights: { exact, covered: exact / 2 },
              phraseBonus: phrase,
            });
            return scoreOne(it, {
              sessions: hits.map((h) => h.session_key),
              uuids: hits.map((h) => uuidOf.get(h.turn_id) ?? null),
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
    const atScale = withStore(scn.store, (db) => {
      const pages = Math.max(1, Math.round(SEARCH_COMMON_PAGES / SCALE_COPIES));
      let withCommon = 0;
      const scores = items.map((it) => {
        const reads: CandidateReads = { rows: [], capped: false };
        const hits = rank(db, {
          query: parseQuery(it.q),
          vis: { project: null, exclude: [] },
          filters: {},
          limit: TOP,
          common: { pages },
          reads,
        });
        if (reads.common?.length) withCommon++;
        return scoreOne(it, {
          sessions: hits.map((h) => h.session_key),
          uuids: hits.map((h) => uuidOf.get(h.turn_id) ?? null),
        }, true);
      });
      return { pages, withCommon, score: summarise(scores) };
    });

    // scores
    const kinds = Object.keys(KIND_QUOTA) as QKind[];
    const table: Record<string, Record<string, Score>> = {};
    const perItem: Record<string, unknown>[] = items.map((it) => ({ ...it }));
    for (const sys of SYSTEMS) {
      const rs = answers.get(sys)!;
      const scores = items.map((it, i) => scoreOne(it, rs[i], sys !== "grep -rl by count"));
      scores.forEach((s, i) => (perItem[i][sys] = s.smrr));
      table[sys] = { overall: summarise(scores) };
      for (const k of kinds) {
        table[sys][k] = summarise(scores.filter((_, i) => items[i].kind === k));
      }
    }
    const lines = [
      "| system | kind | n | session hit@1 | hit@5 | MRR | turn hit@1 | hit@5 | MRR |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ];
    for (const sys of SYSTEMS) {
      for (const k of ["overall", ...kinds]) {
        const s = table[sys][k];
        const n = k === "overall" ? items.length : items.filter((x) => x.kind === k).length;
        lines.push(
          `| ${sys} | ${k} | ${n} | ${f2(s.s1)} | ${f2(s.s5)} | ${f2(s.smrr)} | ${f2(s.t1)} | ${
            f2(s.t5)
          } | ${f2(s.tmrr)} |`,
        );
      }
    }
    const mine = table["terminus search"];
    const plain = table["plain FTS5 BM25"];
    const worse = kinds.filter((k) => mine[k].smrr < plain[k].smrr - 1e-9);

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
        { op: ">=", value: 0.85 },
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
        round(table["MCP recall_search"].overall.smrr, 3),
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
        "quality_store_ratio",
        "store file / transcript bytes (real corpus)",
        round(storeBytes / tBytes, 3),
        "",
        { op: "<=", value: 0.5 },
        `${(storeBytes / 1e6).toFixed(1)} MB for ${(tBytes / 1e6).toFixed(1)} MB; FTS tables ${
          (fts / 1e6).toFixed(1)
        } MB; the plain table's file ${(plainBytes / 1e6).toFixed(1)} MB`,
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
      `Known items: ${items.length} (${
        kinds.map((k) => `${items.filter((x) => x.kind === k).length} ${k}`).join(", ")
      }), built by the rule in bench/lib/known_items.ts; the list is in ${
        join(ctx.workDir, "quality-items.json")
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
      data: { table, grid, items: perItem, instWallMs: instWall, floorWallMs: floorWall },
    };
  },
};
