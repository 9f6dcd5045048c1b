/**
 * Prompt recall's lookup: candidates come from exact entity keys (see structural.ts), each keeps
 * only the entities that really are what the prompt named, and those matches rank them. No word
 * overlap decides what may be handed over.
 */
import type { Db } from "../store/db.ts";
import {
  type ActedCandidate,
  holdsPathUnder,
  type IndexBound,
  pathsNamed,
  scopeSessionCount,
  sessionDfs,
  stemFileNames,
  structuralCandidates,
  type StructuralKey,
} from "../store/entities_sql.ts";
import type { Visibility } from "../store/visibility.ts";
import { quotesFor } from "../store/inject_sql.ts";
import {
  byKindValue,
  canonicalPath,
  isEverydayName,
  isPathSpelling,
  isStemOf,
  isStrongPath,
  lastPart,
  type Matched,
  pathKeys,
  pathMatches,
} from "./structural.ts";
import {
  COMMON_IDENTIFIER_MIN_SESSIONS,
  COMMON_IDENTIFIER_SHARE,
  ENTITY_ACT,
  LISTING_NAMES_ALONE,
  LISTING_TEXT_READS,
  PATH_NAMES_READ,
  RECALL_POOL_PER_NAME,
  RECALL_SESSION_DF_ROWS,
  STEM_FILE_NAMES,
  TIE_TEXT_READS,
} from "../constants.ts";
import { compareHits, type Hit, hitFrom } from "./rank.ts";

/** Prompt recall's weight per name matched (its thresholds were set against it). */
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
  /** At most this many of the spellings are looked up, the rarest first (default: all). */
  names?: number;
}

/** What the lookup did with each spelling (for the decision log and the bench). */
export interface StructuralLookup {
  hits: Hit[];
  /**
   * Spellings the scope holds nothing they can mean (a weak path with no stored path, a name
   * no session of the scope carries), in the prompt's order: none of them takes a slot.
   */
  unheld: string[];
  /**
   * Names that add to a match but bring no turn alone: identifiers too common in this scope,
   * everyday words, folders.
   */
  common: string[];
  /** Rows read from the index, per key. */
  reads: number[];
  /** The spellings looked up, rarest first: at most `names` of those the scope holds. */
  lookedUp: string[];
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
 * by the names they match, each weighted by its rarity among the scope's sessions (rarer things
 * named count more) whichever stored spelling of it the turn carries. Equal scores (turns that
 * matched the same names) go to the turn that acted on the named thing (its Read, Edit or
 * Write, the Grep of the identifier), then a mention, then a git line that only lists it
 * (`git add`, `git commit`); then the prompt's words found in the turn's text; then the spec's
 * order (main thread first, newer first). BM25 is left out: scoring FTS5 over a few hundred
 * given rowids cost up to 1.8 s on a real store.
 */
export function structuralRank(db: Db, a: StructuralArgs): Hit[] {
  return structuralLookup(db, a).hits;
}

/** One name a prompt holds, planned: the stored keys it means and how many sessions hold it. */
interface NamePlan {
  spelling: string;
  /** Where the prompt named it among its names (the tie's last order: strongest first). */
  at: number;
  path: boolean;
  keys: StructuralKey[];
  /** The scope's sessions that hold it (bounded, see sessionDfs); 0 for an everyday word. */
  sessions: number;
  everyday: boolean;
  /** A documentation file (`docs/x.md`): a plan lists many; any other name goes first. */
  doc: boolean;
  /**
   * A folder: a path with no file name at its end (`src/erk_cli`), or one the store holds
   * paths under (`.claude`). It adds to a match on something else but brings alone only the
   * turn that acted on it (a Read of the folder), never a Bash line or a Grep that names it.
   */
  folder: boolean;
}

/**
 * A path spelling that names a folder: nothing file-shaped at its end, or a dotted name
 * (`.claude`, `.github`) the store holds paths under.
 */
function isFolder(db: Db, s: string, keys: StructuralKey[]): boolean {
  if (!isStrongPath(s)) return true;
  const last = lastPart(canonicalPath(s));
  if (!last.startsWith(".") || last.lastIndexOf(".") !== 0) return false;
  return keys.some((k) => holdsPathUnder(db, k.value));
}

/**
 * The project's own name spelled as an identifier (`CipherBox` in `.../cipher-box`,
 * `OhMyPosh` in `D:\\oh-my-posh`): an everyday word of that project, whatever its count.
 */
function isProjectName(s: string, project: string | null): boolean {
  if (!project) return false;
  const letters = (x: string) => x.toLowerCase().replace(/[^a-z0-9]/g, "");
  const own = letters(lastPart(project));
  return own.length > 0 && letters(s) === own;
}

/** Documentation files, which plans list by the dozen (`docs/learned/x.md`). */
const DOC_FILE = /\.(md|mdx|markdown|rst|txt|adoc)$/i;

/**
 * The stored files an identifier is the stem of (`sync_cmd` -> `.../sync_cmd.py`), each looked
 * up as a bare file name would be: how a person names a file without its extension.
 */
function stemKeys(db: Db, s: string, cwd: string | null, roots: string[]): StructuralKey[] {
  const out: StructuralKey[] = [];
  const names = stemFileNames(db, s, PATH_NAMES_READ).filter((n) => isStemOf(n, s));
  for (const n of names.slice(0, STEM_FILE_NAMES)) {
    for (const v of pathPlan(db, n, cwd, roots)?.keys ?? []) out.push({ kind: "path", value: v });
  }
  return out;
}

/**
 * Each spelling's stored keys and how many of the scope's sessions hold them (counted for all
 * the names in one bounded statement; an everyday word is not counted). A name the scope holds
 * nowhere is set aside in `unheld`, so a dotted call (`erk.cli.ensure`) or a file never archived
 * takes no slot. An identifier stored nowhere as one stands for the files it is the stem of.
 */
function planNames(
  db: Db,
  spellings: string[],
  vis: Visibility,
  bound: IndexBound,
  cwd: string | null,
  roots: string[],
  unheld: string[],
): NamePlan[] {
  const named: { s: string; at: number; path: boolean; keys: StructuralKey[] }[] = [];
  const dropped = new Set<string>();
  spellings.forEach((s, at) => {
    const path = isPathSpelling(s);
    if (!path) {
      const keys: StructuralKey[] = [{ kind: "symbol", value: s }, { kind: "command", value: s }];
      named.push({ s, at, path, keys });
      return;
    }
    const plan = pathPlan(db, s, cwd, roots);
    if (plan) named.push({ s, at, path, keys: plan.keys.map((v) => ({ kind: "path", value: v })) });
    else dropped.add(s);
  });
  const everydayHere = (s: string) => isEverydayName(s) || isProjectName(s, vis.project);
  const counted = named.filter((n) => !everydayHere(n.s));
  const counts = sessionDfs(db, counted.map((n) => n.keys), vis, bound, RECALL_SESSION_DF_ROWS);
  const sessions = new Map(counted.map((n, i) => [n, counts[i]]));
  const stems = counted.filter((n) => !n.path && sessions.get(n) === 0)
    .map((n) => ({ n, files: stemKeys(db, n.s, cwd, roots) }))
    .filter((x) => x.files.length);
  const files = sessionDfs(db, stems.map((x) => x.files), vis, bound, RECALL_SESSION_DF_ROWS);
  stems.forEach((x, i) => {
    if (files[i] === 0) return;
    x.n.keys = x.files;
    sessions.set(x.n, files[i]);
  });
  const plans: NamePlan[] = [];
  for (const n of named) {
    const everyday = everydayHere(n.s);
    const held = sessions.get(n) ?? 0;
    if (!everyday && held === 0) {
      dropped.add(n.s);
      continue;
    }
    plans.push({
      spelling: n.s,
      at: n.at,
      path: n.path,
      keys: n.keys,
      sessions: held,
      everyday,
      doc: n.path && DOC_FILE.test(n.s),
      folder: n.path && isFolder(db, n.s, n.keys),
    });
  }
  for (const s of spellings) if (dropped.has(s)) unheld.push(s);
  return plans;
}

export function structuralLookup(db: Db, a: StructuralArgs): StructuralLookup {
  const out: StructuralLookup = { hits: [], unheld: [], common: [], reads: [], lookedUp: [] };
  const cap = a.cap ?? RECALL_POOL_PER_NAME;
  const bound: IndexBound = { maxId: a.maxId, beforeTs: a.beforeTs };
  const roots = a.vis.project ? [a.vis.project] : [];
  const cwd = a.cwd ?? null;
  // 1. What each name means in the store, and how rare it is there.
  const plans = planNames(db, a.spellings, a.vis, bound, cwd, roots, out.unheld);
  // 2. Rarest first, before the cap: an everyday word last, and at an equal count a
  // documentation file after any other name, then the prompt's own order.
  plans.sort((x, y) =>
    Number(x.everyday) - Number(y.everyday) || Number(x.folder) - Number(y.folder) ||
    x.sessions - y.sessions || Number(x.doc) - Number(y.doc) || x.at - y.at
  );
  const chosen = plans.slice(0, a.names ?? plans.length);
  out.lookedUp = chosen.map((p) => p.spelling);
  // 3. Too common to bring a turn alone: an everyday word, or an identifier more of the
  // scope's sessions hold than the cut. It still adds to a match on something rarer.
  // the scope's session count: the cut, and each name's weight when there are two to weigh
  const total = chosen.some((p) => !p.path) || chosen.length > 1
    ? scopeSessionCount(db, a.vis, bound)
    : 0;
  if (!a.ignoreCommon) {
    const cut = Math.max(COMMON_IDENTIFIER_MIN_SESSIONS, COMMON_IDENTIFIER_SHARE * total);
    for (const p of chosen) {
      if (p.folder || p.everyday || (!p.path && p.sessions > cut)) out.common.push(p.spelling);
    }
    // nothing named can bring a turn alone (a folder can, by its Read): no candidate to read
    if (chosen.every((p) => out.common.includes(p.spelling) && !p.folder)) return out;
  }
  // 4. The candidates: at most `cap` rows per name from the index, direct actions first.
  const cands = new Map<number, ActedCandidate>();
  // What each candidate was read by: its matches are those keys (each one a stored entity
  // that is what a spelling names), so no turn's other entities need reading.
  const keys = new Map<string, { key: StructuralKey; spellings: Set<string> }>();
  // ... with how the turn touched each (ENTITY_ACT)
  const readBy = new Map<number, Map<string, number>>();
  const take = (k: StructuralKey, n: number, spelling: string): void => {
    const id = k.kind + "\u0000" + k.value;
    const had = keys.get(id);
    if (had) {
      had.spellings.add(spelling);
      return;
    }
    keys.set(id, { key: k, spellings: new Set([spelling]) });
    const got = structuralCandidates(db, k, a.vis, bound, n);
    out.reads.push(got.length);
    for (const c of got) {
      const prev = cands.get(c.id);
      if (!prev) cands.set(c.id, c);
      else if (c.act < prev.act) prev.act = c.act;
      let by = readBy.get(c.id);
      if (!by) readBy.set(c.id, by = new Map());
      by.set(id, c.act);
    }
  };
  // one name's paths share `cap` rows among them (at least MIN_KEY_READ each)
  const share = (ks: StructuralKey[]) =>
    Math.min(cap, Math.max(MIN_KEY_READ, Math.ceil(cap / Math.max(1, ks.length))));
  for (const p of chosen) {
    // an identifier's symbol and command keys read half the cap each; a path's (or a stem's
    // files') share it
    const n = p.keys.every((k) => k.kind !== "path") ? Math.ceil(cap / 2) : share(p.keys);
    for (const k of p.keys) take(k, n, p.spelling);
  }
  if (!cands.size) return out;
  const common = new Set(out.common);
  const folders = new Set(chosen.filter((p) => p.folder).map((p) => p.spelling));
  // a name's weight is its rarity among the scope's sessions (an everyday word: as if every
  // session held it), the same for every turn that matched it, whichever stored spelling of
  // it the turn carries: equal matches then tie, and the act decides
  const idf = new Map(chosen.map((p) => [
    p.spelling,
    STRUCTURAL_WEIGHT *
    Math.log(1 + Math.max(1, total) / Math.max(1, p.everyday ? total : p.sessions)),
  ]));
  const acts = new Map<number, number>();
  // how many of the prompt's names each hit matched (a lone listing needs two, see below)
  const names = new Map<number, number>();
  const weight = mentionWeight(a.promptText ?? "");
  for (const c of cands.values()) {
    const matched: Matched[] = [];
    const named = new Set<string>();
    // a folder brings the turn that acted on it (its Read), never one that only names it
    let brings = false;
    for (const [id, act] of readBy.get(c.id) ?? []) {
      const k = keys.get(id)!;
      matched.push({ kind: k.key.kind, value: k.key.value });
      for (const sp of k.spellings) {
        named.add(sp);
        if (!common.has(sp) || (act === ENTITY_ACT.direct && folders.has(sp))) brings = true;
      }
    }
    if (!brings) continue;
    matched.sort(byKindValue);
    let score = 0;
    for (const sp of named) score += idf.get(sp) ?? 0;
    score *= Math.max(...[...named].map(weight));
    out.hits.push(hitFrom(c, score, score, matched));
    acts.set(c.id, c.act);
    names.set(c.id, named.size);
  }
  out.hits = ordered(db, out.hits, a, acts, names);
  return out;
}

/**
 * The hits in their final order, the first `limit`: by score, then how the turn touched what
 * it matched; lone listings dropped; within a tie, a Bash line that runs `git add`/`git commit`
 * after something else (`cd repo && git commit`, stored as a mention) last too, then the
 * prompt's words the turn holds; then the spec's order.
 */
function ordered(
  db: Db,
  hits: Hit[],
  a: StructuralArgs,
  acts: Map<number, number>,
  names: Map<number, number>,
): Hit[] {
  const byScoreAct = (x: Hit, y: Hit) =>
    x.relevance !== y.relevance
      ? y.relevance - x.relevance
      : (acts.get(x.turn_id) ?? 0) - (acts.get(y.turn_id) ?? 0);
  hits.sort((x, y) => byScoreAct(x, y) || compareHits(x, y));
  // the heads read for either step, so a turn both look at is read once
  const heads = new Map<number, string>();
  const kept = dropLoneListings(db, hits, a.limit, acts, names, heads);
  const text = textScores(db, kept, a.words ?? [], a.limit, byScoreAct, heads);
  if (text.size) {
    const listed = (h: Hit) => text.get(h.turn_id)?.listing ? 1 : 0;
    const words = (h: Hit) => text.get(h.turn_id)?.words ?? 0;
    kept.sort((x, y) =>
      byScoreAct(x, y) || listed(x) - listed(y) || words(y) - words(x) || compareHits(x, y)
    );
  }
  return kept.slice(0, a.limit);
}

/** A quoted Bash call that runs `git add` or `git commit` anywhere in its line. */
const GIT_LISTING_LINE = /^Bash\b[\s\S]*?\bgit\s+(?:-C\s+\S+\s+)?(?:add|commit)\b/;
/**
 * A quoted Bash call that records a change rather than works on what it names: `git add` or
 * `git commit` anywhere in its line (`cd repo && git add a.ts && git commit ...`), or the
 * title and body of a pull request (`gh pr create`, `gh pr edit`).
 */
const RECORDING_LINE =
  /^Bash\b[\s\S]*?\b(?:git\s+(?:-C\s+\S+\s+)?(?:add|commit)|gh\s+pr\s+(?:create|edit))\b/;

/**
 * Hits that only list or record the one name they matched, dropped: a git line that lists it
 * (act `listing`), or a Bash line that stages, commits or opens a pull request naming it. Such
 * a line says a change happened, not what the thing is, and a passing name of a prompt (a file
 * in pasted output, a component in a plan) found it more often than the work did (held-out
 * replay: 0 hits in 6 on the other projects, 3 in 3 on erk). Beside a second name matched it
 * stays, as two distinct matches make any turn eligible. Only Bash mentions near the top
 * have their text read, at most LISTING_TEXT_READS.
 */
function dropLoneListings(
  db: Db,
  hits: Hit[],
  limit: number,
  acts: Map<number, number>,
  names: Map<number, number>,
  heads: Map<number, string>,
): Hit[] {
  const lone = (h: Hit) => (names.get(h.turn_id) ?? 0) < LISTING_NAMES_ALONE;
  const read: number[] = [];
  for (const h of hits.slice(0, limit + LISTING_TEXT_READS)) {
    if (read.length >= LISTING_TEXT_READS) break;
    if (lone(h) && acts.get(h.turn_id) === ENTITY_ACT.mention && h.candidate.toolName === "Bash") {
      read.push(h.turn_id);
    }
  }
  const text = headsOf(db, read, heads);
  return hits.filter((h) =>
    !lone(h) ||
    !(acts.get(h.turn_id) === ENTITY_ACT.listing || RECORDING_LINE.test(text.get(h.turn_id) ?? ""))
  );
}

/**
 * The prompt's words each turn's quotable text holds, and whether it is a Bash line running
 * `git add`/`git commit`, for the hits that tie (on score and act) with another inside the top
 * `limit`: only those can change places, so only their text is read, at most TIE_TEXT_READS
 * heads in all.
 */
function textScores(
  db: Db,
  hits: Hit[],
  words: string[],
  limit: number,
  tie: (x: Hit, y: Hit) => number,
  heads: Map<number, string>,
): Map<number, { words: number; listing: boolean }> {
  const out = new Map<number, { words: number; listing: boolean }>();
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
  for (const [id, t] of headsOf(db, ids, heads)) {
    let n = 0;
    if (want.size <= FEW_WORDS) {
      // a few words: each looked for in place, not the whole text split into a set
      const low = t.toLowerCase();
      for (const w of want) if (hasWord(low, w)) n++;
    } else {
      const have = wordsOf(t);
      for (const w of want) if (have.has(w)) n++;
    }
    out.set(id, { words: n, listing: GIT_LISTING_LINE.test(t) });
  }
  return out;
}

/** The first TIE_TEXT_CHARS of each of `ids`' texts, read once per lookup (kept in `heads`). */
function headsOf(db: Db, ids: number[], heads: Map<number, string>): Map<number, string> {
  for (const [id, t] of quotesFor(db, ids.filter((id) => !heads.has(id)), TIE_TEXT_CHARS)) {
    heads.set(id, t);
  }
  const out = new Map<number, string>();
  for (const id of ids) {
    const t = heads.get(id);
    if (t !== undefined) out.set(id, t);
  }
  return out;
}

/** Up to this many prompt words are looked for in a tied text one by one. */
const FEW_WORDS = 24;
const WORD_CHAR = /[a-z0-9_]/;

/** `low` holds `w` as a whole word of wordsOf's kind (runs of letters, digits and `_`). */
function hasWord(low: string, w: string): boolean {
  for (let i = low.indexOf(w); i >= 0; i = low.indexOf(w, i + 1)) {
    const before = i === 0 ? "" : low[i - 1];
    const after = low[i + w.length] ?? "";
    if (!WORD_CHAR.test(before) && !WORD_CHAR.test(after)) return true;
  }
  return false;
}
