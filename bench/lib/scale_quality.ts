/**
 * Known-item quality at scale: the quality section's queries (bench/lib/known_items.ts, built
 * from the shared corpus the scale copies come from) asked in process of a settled scale store,
 * where each has `copies` right sessions (one per copy, found by rewriting its session keys as
 * the copy did). Two rankings over the same store and index:
 *
 * - core's `rank` with the build's defaults, as `terminus search --project '*'` runs it;
 * - plain BM25 over the whole index: every matching row scored, `ORDER BY rank`, no cap.
 *
 * A ranking that reads only the newest rows of a common word can lose an old known item here
 * while the 124 MB quality section never sees it; the plain row says what full BM25 would do.
 * A query quoting a uuid (a Bash line's `--session-id=...`) is asked as copy 0 holds it, since
 * every copy rewrote its uuids and none holds the original.
 */
import { buildKnownItems, KIND_QUOTA, type KnownItem, readCorpus } from "./known_items.ts";
import { rewriteUuids } from "./scale_corpus.ts";
import { queryHits } from "../../core/recall/search.ts";
import { openRead } from "../../core/store/db.ts";
import { plainFtsTop, sessionKeyOfTurn } from "../../core/store/replay_reads.ts";

const TOP = 10;

export interface RankScore {
  hit1: number;
  hit5: number;
  mrr: number;
}

export interface ScaleQuality {
  items: number;
  terminus: RankScore;
  plain: RankScore;
  byKind: Record<string, { n: number; terminus: RankScore; plain: RankScore }>;
  /** In-process wall of each `rank` call, ms. */
  rankMs: number[];
  /** Items the build's ranking misses within the top 10 but the plain one finds. */
  lost: string[];
}

/** The distinct sessions of `keys` in order, and where the first right one is (or -1). */
function firstRight(keys: string[], right: Set<string>): number {
  const seen: string[] = [];
  for (const k of keys) if (!seen.includes(k)) seen.push(k);
  return seen.findIndex((k) => right.has(k));
}

function scoreOf(ranks: number[]): RankScore {
  const n = Math.max(1, ranks.length);
  return {
    hit1: ranks.filter((i) => i === 0).length / n,
    hit5: ranks.filter((i) => i >= 0 && i < 5).length / n,
    mrr: ranks.reduce((a, i) => a + (i >= 0 && i < TOP ? 1 / (i + 1) : 0), 0) / n,
  };
}

/** Words as the index splits them, each quoted, joined with AND (the spec's every-word rule). */
export function plainMatch(q: string): string | null {
  const t = [...new Set((q.match(/[\p{L}\p{M}\p{N}]+/gu) ?? []).map((x) => x.toLowerCase()))];
  return t.length ? t.map((x) => `"${x}"`).join(" AND ") : null;
}

export function scaleQuality(
  sourceRoot: string,
  storePath: string,
  copies: number,
): ScaleQuality {
  const items = buildKnownItems(readCorpus(sourceRoot));
  const memos = Array.from({ length: copies }, () => new Map<string, string>());
  const rightOf = (it: KnownItem) =>
    new Set(it.sessions.flatMap((s) => memos.map((m, c) => rewriteUuids(s, c, m))));
  const opened = openRead(storePath);
  if (!opened) throw new Error(`no store at ${storePath}`);
  const db = opened.db;
  try {
    const mine: number[] = [];
    const plain: number[] = [];
    const rankMs: number[] = [];
    const lost: string[] = [];
    for (const it of items) {
      const right = rightOf(it);
      // every copy rewrote the uuids its records hold, so a query quoting one (a Bash line's
      // session id) is asked as copy 0 holds it: what its person would paste there
      const q = rewriteUuids(it.q, 0, memos[0]);
      const t0 = performance.now();
      const hits = queryHits(db, q, TOP, { strict: true });
      rankMs.push(performance.now() - t0);
      const m = firstRight(hits.map((h) => h.session_key), right);
      const pm = plainMatch(q);
      const ids = pm ? plainFtsTop(db, pm, TOP) : [];
      const keys = ids.map((id) => sessionKeyOfTurn(db, id));
      const p = firstRight(keys, right);
      mine.push(m);
      plain.push(p);
      if (m < 0 && p >= 0) lost.push(`${it.kind} ${JSON.stringify(q)}`);
    }
    const byKind: ScaleQuality["byKind"] = {};
    for (const k of Object.keys(KIND_QUOTA)) {
      const at = items.map((it, i) => (it.kind === k ? i : -1)).filter((i) => i >= 0);
      byKind[k] = {
        n: at.length,
        terminus: scoreOf(at.map((i) => mine[i])),
        plain: scoreOf(at.map((i) => plain[i])),
      };
    }
    return {
      items: items.length,
      terminus: scoreOf(mine),
      plain: scoreOf(plain),
      byKind,
      rankMs,
      lost,
    };
  } finally {
    db.close();
  }
}

if (import.meta.main) {
  // deno run -A bench/lib/scale_quality.ts <source root> <store> <copies>
  const [src, store, copies] = Deno.args;
  const q = scaleQuality(src, store, Number(copies));
  const s = [...q.rankMs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  console.log(JSON.stringify({ ...q, rankMs: { p50: at(0.5), p95: at(0.95), max: at(1) } }));
}
