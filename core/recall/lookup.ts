/**
 * Prompt recall's lookup: candidates come from exact entity keys (see structural.ts), each keeps
 * only the entities that really are what the prompt named, and those matches rank them. No word
 * overlap decides what may be handed over.
 */
import type { Db } from "../store/db.ts";
import {
  type ActedCandidate,
  pathsNamed,
  structuralCandidates,
  type StructuralKey,
} from "../store/entities_sql.ts";
import type { Visibility } from "../store/visibility.ts";
import { visibleSessionCount } from "../store/session_listing.ts";
import { quotesFor } from "../store/inject_sql.ts";
import {
  byKindValue,
  canonicalPath,
  isPathSpelling,
  isStrongPath,
  isWordShaped,
  lastPart,
  type Matched,
  pathKeys,
  pathMatches,
} from "./structural.ts";
import {
  COMMON_IDENTIFIER_MIN_SESSIONS,
  COMMON_IDENTIFIER_SHARE,
  PATH_NAMES_READ,
  RECALL_DF_CAP,
  RECALL_POOL_PER_NAME,
  TIE_TEXT_READS,
} from "../constants.ts";
import { compareHits, type Hit, hitFrom, idfOf } from "./rank.ts";

/** Prompt recall's weight per structural match (its thresholds were set against it). */
const STRUCTURAL_WEIGHT = 2.0;
export interface StructuralArgs {
  spellings: string[];
  vis: Visibility;
  /** The session's working directory: an absolute path outside it matches only when equal. */
  cwd?: string | null;
  /** The prompt's words, for the text score that breaks ties (none: recency alone). */
  words?: string[];
  /** The prompt itself: a thing it names again and again weighs more than one named once. */
  promptText?: string;
  maxId?: number;
  /** Only turns from before this time (the bench replays prompts against their past). */
  beforeTs?: string;
  limit: number;
  /** Rows read per key from the index (default RECALL_POOL_PER_NAME). */
  cap?: number;
  /** Let common identifiers bring turns alone (the bench's "was it there at all"). */
  ignoreCommon?: boolean;
}

/** What the lookup did with each spelling (for the decision log and the bench). */
export interface StructuralLookup {
  hits: Hit[];
  /** Spellings the store holds nothing they can mean (weak paths with no stored path). */
  unheld: string[];
  /** Identifiers too common in this scope to bring a turn alone. */
  common: string[];
  /** Rows read from the index, per key. */
  reads: number[];
}

/** The fewest rows one stored spelling reads, however many a named path has. */
const MIN_KEY_READ = 10;
/** The part of a tied turn's text searched for the prompt's words. */
const TIE_TEXT_CHARS = 2000;

/** Under `root` (or equal to it). */
function under(path: string, root: string): boolean {
  const r = root.endsWith("/") ? root : root + "/";
  return path === root || path.startsWith(r);
}

/** How a path spelling is looked up: its exact keys, and whether tails may match it. */
function pathPlan(
  db: Db,
  spelling: string,
  cwd: string | null,
  roots: string[],
): { keys: string[]; exactOnly: boolean } | null {
  const c = canonicalPath(spelling);
  if (c === "") return null;
  const strong = isStrongPath(c);
  const last = lastPart(c);
  // The stored paths that have the spelling's last part as one of theirs: one exact lookup
  // that says which of its tails are stored at all (a name so common the read is full falls
  // back to every tail).
  const named = pathsNamed(db, last, PATH_NAMES_READ);
  const full = named.length >= PATH_NAMES_READ;
  if (c.startsWith("/")) {
    const inside = [cwd, ...roots].some((r) => r && under(c, r));
    if (!inside) {
      // another checkout's or another root's path names that file only: no tail matching
      return { keys: [c], exactOnly: true };
    }
    if (!strong && !full) {
      // `if/else` in a sentence resolves under the cwd; it counts only when a stored absolute
      // path ends in its last two parts (or is it)
      const tail = c.split("/").slice(-2).join("/");
      // compared canonical: a folder is stored as written, often with its trailing slash
      // (`ls .erk/impl-context/`)
      const endsInTail = (p: string) => {
        const cp = canonicalPath(p);
        return p.startsWith("/") && (cp === c || cp.endsWith("/" + tail));
      };
      if (!named.some(endsInTail)) {
        return null;
      }
    }
    if (full) return { keys: pathKeys(c), exactOnly: false };
    const keys = named.filter((p) => pathMatches(p, c) && pathKeys(c).includes(canonicalPath(p)));
    return { keys, exactOnly: false };
  }
  // relative with no cwd, or a bare file name: the stored paths that end in it, by their part
  const keys = new Set<string>();
  for (const p of named) if (pathMatches(p, c)) keys.add(p);
  if (!strong && ![...keys].some((k) => k.startsWith("/"))) return null;
  keys.add(c);
  return { keys: [...keys], exactOnly: false };
}

/**
 * How much a spelling weighs by how often the prompt names it: `1 + ln(times)`, counting its
 * last part (a plan that names `land_cmd.py` five times is about that file).
 */
function mentionWeight(prompt: string): (spelling: string) => number {
  const cache = new Map<string, number>();
  return (s) => {
    let w = cache.get(s);
    if (w === undefined) {
      const needle = isPathSpelling(s) ? lastPart(canonicalPath(s)) : s;
      let n = 0;
      if (needle) {
        for (let i = prompt.indexOf(needle); i >= 0; i = prompt.indexOf(needle, i + 1)) n++;
      }
      w = 1 + Math.log(Math.max(1, n));
      cache.set(s, w);
    }
    return w;
  };
}

/** Distinct lower-case words of three letters or more: the prompt's side of the text score. */
export function promptWords(text: string): string[] {
  return [...wordsOf(text)];
}

/**
 * Lower-case runs of letters, digits and `_`, three or more long. Plainer than the search
 * tokens (whose Unicode path a plan's dashes and arrows would take): this only breaks ties.
 */
function wordsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.toLowerCase().split(/[^a-z0-9_]+/)) if (w.length >= 3) out.add(w);
  return out;
}

/**
 * Prompt recall's ranked hits: only quotable turns with at least one structural match, scored
 * by their idf-weighted structural matches (rarer things named count more). Equal scores go
 * to the turn that acted on the named thing (its Read, Edit or Write, the Grep of the
 * identifier), then a mention, then a git line that only lists it; then the prompt's words
 * found in the turn's text; then the spec's order (main thread first, newer first). BM25 is
 * left out: scoring FTS5 over a few hundred given rowids cost up to 1.8 s on a real store.
 */
export function structuralRank(db: Db, a: StructuralArgs): Hit[] {
  return structuralLookup(db, a).hits;
}

export function structuralLookup(db: Db, a: StructuralArgs): StructuralLookup {
  const out: StructuralLookup = { hits: [], unheld: [], common: [], reads: [] };
  const cap = a.cap ?? RECALL_POOL_PER_NAME;
  const bound = { maxId: a.maxId, beforeTs: a.beforeTs };
  const roots = a.vis.project ? [a.vis.project] : [];
  const cands = new Map<number, ActedCandidate>();
  // What each candidate was read by: its matches are those keys (each one a stored entity
  // that is what a spelling names), so no turn's other entities need reading.
  const keys = new Map<string, { key: StructuralKey; spellings: Set<string> }>();
  const readBy = new Map<number, Set<string>>();
  const take = (k: StructuralKey, n: number, spelling: string): ActedCandidate[] => {
    const id = k.kind + "\u0000" + k.value;
    const had = keys.get(id);
    if (had) {
      had.spellings.add(spelling);
      return [];
    }
    keys.set(id, { key: k, spellings: new Set([spelling]) });
    const got = structuralCandidates(db, k, a.vis, bound, n);
    out.reads.push(got.length);
    for (const c of got) {
      const prev = cands.get(c.id);
      if (!prev) cands.set(c.id, c);
      else if (c.act < prev.act) prev.act = c.act;
      let by = readBy.get(c.id);
      if (!by) readBy.set(c.id, by = new Set());
      by.add(id);
    }
    return got;
  };
  const sessionsOf = new Map<string, Set<number>>();
  for (const s of a.spellings) {
    if (isPathSpelling(s)) {
      const plan = pathPlan(db, s, a.cwd ?? null, roots);
      if (!plan) {
        out.unheld.push(s);
        continue;
      }
      // one spelling reads at most `cap` rows, shared among its stored spellings
      const each = Math.max(MIN_KEY_READ, Math.ceil(cap / Math.max(1, plan.keys.length)));
      for (const v of plan.keys) take({ kind: "path", value: v }, Math.min(cap, each), s);
    } else {
      const sessions = new Set<number>();
      for (const kind of ["symbol", "command"] as const) {
        for (const c of take({ kind, value: s }, Math.ceil(cap / 2), s)) sessions.add(c.sessionNo);
      }
      sessionsOf.set(s, sessions);
    }
  }
  if (!cands.size) return out;
  // An identifier many of the scope's sessions carry (`GitHub`) is too common to bring a turn
  // on its own; it still adds to a match on something rarer. The sessions are counted among the
  // rows read, so a capped read can only undercount them.
  if (sessionsOf.size && !a.ignoreCommon) {
    const total = visibleSessionCount(db, a.vis);
    const cut = Math.max(COMMON_IDENTIFIER_MIN_SESSIONS, COMMON_IDENTIFIER_SHARE * total);
    for (const [s, ss] of sessionsOf) if (ss.size > cut) out.common.push(s);
  }
  if (!a.ignoreCommon) {
    for (const s of sessionsOf.keys()) {
      if (isWordShaped(s) && !out.common.includes(s)) out.common.push(s);
    }
  }
  const common = new Set(out.common);
  const idf = idfOf(db, RECALL_DF_CAP);
  const acts = new Map<number, number>();
  const weight = mentionWeight(a.promptText ?? "");
  for (const c of cands.values()) {
    const matched: Matched[] = [];
    const named = new Set<string>();
    for (const id of readBy.get(c.id) ?? []) {
      const k = keys.get(id)!;
      matched.push({ kind: k.key.kind, value: k.key.value });
      for (const sp of k.spellings) named.add(sp);
    }
    if (!matched.length || [...named].every((sp) => common.has(sp))) continue;
    matched.sort(byKindValue);
    let score = 0;
    for (const e of matched) score += STRUCTURAL_WEIGHT * idf(e.kind, e.value);
    score *= Math.max(...[...named].map(weight));
    out.hits.push(hitFrom(c, score, score, matched));
    acts.set(c.id, c.act);
  }
  const byScoreAct = (x: Hit, y: Hit) =>
    x.relevance !== y.relevance
      ? y.relevance - x.relevance
      : (acts.get(x.turn_id) ?? 0) - (acts.get(y.turn_id) ?? 0);
  out.hits.sort((x, y) => byScoreAct(x, y) || compareHits(x, y));
  const text = textScores(db, out.hits, a.words ?? [], a.limit, byScoreAct);
  if (text.size) {
    out.hits.sort((x, y) =>
      byScoreAct(x, y) || (text.get(y.turn_id) ?? 0) - (text.get(x.turn_id) ?? 0) ||
      compareHits(x, y)
    );
  }
  out.hits = out.hits.slice(0, a.limit);
  return out;
}

/**
 * The prompt's words each turn's quotable text holds, for the hits that tie (on score and act)
 * with another inside the top `limit`: only those can change places, so only their text is
 * read, at most TIE_TEXT_READS heads in all.
 */
function textScores(
  db: Db,
  hits: Hit[],
  words: string[],
  limit: number,
  tie: (x: Hit, y: Hit) => number,
): Map<number, number> {
  const out = new Map<number, number>();
  if (!words.length || hits.length < 2) return out;
  const ids: number[] = [];
  for (let i = 0; i < Math.min(limit, hits.length); i++) {
    const h = hits[i];
    // the run of hits tying with this one, which may reach past the limit
    if (i > 0 && tie(hits[i - 1], h) === 0) continue;
    let j = i + 1;
    while (j < hits.length && tie(h, hits[j]) === 0) j++;
    if (j - i > 1) {
      for (let k = i; k < j && ids.length < TIE_TEXT_READS; k++) ids.push(hits[k].turn_id);
    }
  }
  if (!ids.length) return out;
  const want = new Set(words);
  for (const [id, t] of quotesFor(db, ids, TIE_TEXT_CHARS)) {
    let n = 0;
    const have = wordsOf(t);
    for (const w of want) if (have.has(w)) n++;
    out.set(id, n);
  }
  return out;
}
