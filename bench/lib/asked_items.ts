/**
 * Queries as people and models ask them (issue #45), built by recorded rules from a folder of
 * real transcripts, each with the session it is about. None is picked by whether a system
 * finds it: every filter below reads the corpus alone, the same for every system.
 *
 * The kinds (each rule in full in bench/README.md, "Asked, not copied"):
 *
 * - `memory`: 2-4 words of one assistant reply, none two apart by less than one word, each
 *   distinctive (in at most DISTINCT_SHARE of the transcripts), in an order the reply did not
 *   use;
 * - `name-context`: a file name (the basename of a Read/Edit/Write `file_path`) or a name the
 *   Edit/Write defines, plus one word of the nearest prose turn before the call (after it when
 *   none is before), within NEIGHBOUR_RECORDS records;
 * - `pasted-error`: one line of a failed tool result as the person sees it (JSON escapes
 *   decoded, `<tool_use_error>` tags dropped), cut at a space to at most 80 characters;
 * - `question`: the words of a `git commit -m` message's first line or of one sentence of a
 *   compaction summary, reordered, behind a question opening ("why did we", ...); the target is
 *   the session that made it;
 * - `typed-prompt`: a prompt a person typed, whole, whitespace folded;
 * - `symbol`: a class-like name (`class`, `interface`, `struct`, `type`) defined in a Write or
 *   Edit body, alone, when many transcripts name it; its targets are the sessions defining it.
 *
 * Common to all: the seed of each choice is an FNV-1a hash of the record's uuid; candidates of
 * a kind are walked in the order of a hash of the query text; a query text arising from more
 * than one record is dropped; and a query is kept only when its words (less the question
 * opening) stand together in at least 1 and at most MAX_FILES transcripts (for `symbol`: in at
 * least SYMBOL_MIN_FILES, defined in at most MAX_FILES), until the kind has its quota.
 */
import { type CorpusFile, fnv1a, isTurnRecord, type KnownItem } from "./known_items.ts";

export type AKind =
  | "memory"
  | "name-context"
  | "pasted-error"
  | "question"
  | "typed-prompt"
  | "symbol";

export const ASKED_QUOTA: Record<AKind, number> = {
  memory: 24,
  "name-context": 24,
  "pasted-error": 24,
  question: 24,
  "typed-prompt": 20,
  symbol: 20,
};

/** The kinds that are not text copied from one turn (the "not verbatim" table). */
export const NOT_VERBATIM: AKind[] = ["memory", "name-context", "pasted-error", "question"];

/** A query's words stand together in at most this many transcripts (else: which is meant?). */
const MAX_FILES = 3;
/** A memory word is distinctive: in at most this share of the corpus's transcripts. */
const DISTINCT_SHARE = 0.05;
/** A context word carries something: in at most this share of the transcripts. */
const CONTEXT_SHARE = 0.5;
/** How far (in records) the neighbouring prose turn may be from the call. */
const NEIGHBOUR_RECORDS = 4;
/** A bare class name is used across many sessions: named in at least this many transcripts. */
const SYMBOL_MIN_FILES = 4;
/** The question openings a model puts before the words it remembers. */
const OPENINGS = [
  "why did we",
  "when did we",
  "how did we",
  "where did we",
  "what made us",
  "did we ever",
];
/** Sentences taken from each compaction summary. */
const SUMMARY_SENTENCES = 3;
/** A typed prompt pasted whole has at least this many words. */
const PROMPT_WORDS_MIN = 5;
/** A pasted error line is at most this long. */
const ERROR_CHARS = 80;
/** A typed prompt pasted whole is at most this long (a plan pasted as a prompt is longer). */
const PROMPT_CHARS_MAX = 2000;

/** An asked query: its text, kind, a target record and every session counted as right. */
export interface AskedItem extends Omit<KnownItem, "kind"> {
  kind: AKind;
}

type Rec = Record<string, unknown>;

const STOP = new Set(
  ("the and for that this with from are was were you your but not all any can has have had its our out she him his her they them then than there here what when which who will would into onto also just " +
    "should could does did done been being about after before while where why how some more most other such only over very each both same these those now use used using make made need let get got")
    .split(" "),
);

const TOKEN = /[\p{L}\p{N}]+/gu;
const tokensOf = (s: string) => (s.toLowerCase().match(TOKEN) ?? []);

/** A seeded generator (mulberry32): the same seed makes the same choices. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `xs` shuffled by `r`, never left in its own order when it has two or more. */
function reorder<T>(xs: T[], r: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  if (out.length > 1 && out.every((x, i) => x === xs[i])) out.reverse();
  return out;
}

function blocks(r: Rec): Rec[] {
  const m = r.message as Rec | undefined;
  const c = m && typeof m === "object" ? m.content : undefined;
  return Array.isArray(c) ? c.filter((b): b is Rec => !!b && typeof b === "object") : [];
}

function replyText(r: Rec): string | null {
  if (r.type !== "assistant") return null;
  const t = blocks(r).filter((b) => b.type === "text" && typeof b.text === "string").map((b) =>
    b.text as string
  );
  return t.length ? t.join("\n") : null;
}

function typedText(r: Rec): string | null {
  if (r.type !== "user" || r.isMeta === true || r.isCompactSummary === true) return null;
  if (r.isSidechain === true) return null;
  const m = r.message as Rec | undefined;
  if (!m || typeof m !== "object") return null;
  if (typeof m.content === "string") return m.content;
  const bs = blocks(r);
  if (bs.some((b) => b.type === "tool_result")) return null;
  const t = bs.filter((b) => b.type === "text" && typeof b.text === "string").map((b) =>
    b.text as string
  );
  return t.length ? t.join("\n") : null;
}

/** Prose a person or the model wrote: a reply's text, or a typed prompt (no harness tags). */
function proseOf(r: Rec): string | null {
  const t = replyText(r) ?? typedText(r);
  return t && !t.trimStart().startsWith("<") ? t : null;
}

/** Plain words of prose: letters only, at least `min` long, stripped of punctuation. */
function plainWords(text: string, min: number): string[] {
  return text.split(/\s+/).map((w) => w.replace(/^[("'`*_]+|[.,;:!?)"'`*_]+$/g, ""))
    .filter((w) => new RegExp(`^[A-Za-z]{${min},}$`).test(w));
}

function resultText(b: Rec): string {
  if (typeof b.content === "string") return b.content;
  if (!Array.isArray(b.content)) return "";
  return b.content.map((c: Rec) => (typeof c?.text === "string" ? c.text : "")).join("\n");
}

/** The first line of a `git commit` message in a Bash command (`-m "..."` or a heredoc). */
export function commitMessage(cmd: string): string | null {
  if (!/\bgit\b[^\n|;&]*\bcommit\b/.test(cmd)) return null;
  const here = /<<-?\s*'?"?(\w+)'?"?\s*\n([\s\S]*?)\n\s*\1\b/.exec(cmd);
  let body: string | null = null;
  if (here && /-m\s+"?\$\(cat/.test(cmd)) body = here[2];
  if (body === null) {
    const m = /-m\s+(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/.exec(cmd);
    if (m) body = (m[1] ?? m[2] ?? "").replace(/\\(.)/g, "$1");
  }
  if (body === null) return null;
  const line = body.split("\n").map((l) => l.trim()).find((l) => l !== "");
  return line ?? null;
}

/** Sentences of a compaction summary's text. */
function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n+/).map((s) => s.trim()).filter((s) => s !== "");
}

function summaryText(r: Rec): string | null {
  if (r.type !== "user" || r.isCompactSummary !== true) return null;
  const m = r.message as Rec | undefined;
  if (!m) return null;
  if (typeof m.content === "string") return m.content;
  const t = blocks(r).filter((b) => b.type === "text" && typeof b.text === "string").map((b) =>
    b.text as string
  );
  return t.length ? t.join("\n") : null;
}

const CLASSLIKE =
  /^[ \t]*(?:export[ \t]+)?(?:(?:default|abstract|public|declare)[ \t]+)*(?:class|interface|struct|type)[ \t]+([A-Z][A-Za-z0-9_]{3,})/gm;
const DEFINED =
  /^[ \t]*(?:export[ \t]+)?(?:async[ \t]+)?(?:def|class|function|func(?:[ \t]*\([^)\n]*\))?|interface|type|fn)[ \t]+([A-Za-z_][A-Za-z0-9_]{4,})/gm;

function writtenBodies(r: Rec): { tool: string; path: string | null; texts: string[] }[] {
  const out: { tool: string; path: string | null; texts: string[] }[] = [];
  for (const b of blocks(r)) {
    if (b.type !== "tool_use" || typeof b.name !== "string") continue;
    const input = (b.input ?? {}) as Rec;
    const texts: string[] = [];
    if (b.name === "Write" && typeof input.content === "string") texts.push(input.content);
    if (b.name === "Edit" && typeof input.new_string === "string") texts.push(input.new_string);
    if (b.name === "MultiEdit" && Array.isArray(input.edits)) {
      for (const e of input.edits as Rec[]) {
        if (typeof e?.new_string === "string") texts.push(e.new_string);
      }
    }
    const path = typeof input.file_path === "string" ? input.file_path : null;
    out.push({ tool: b.name, path, texts });
  }
  return out;
}

/** Which transcripts hold each token (index into `files`), built once per corpus. */
export class TokenIndex {
  readonly files: number;
  readonly #df = new Map<string, number>();
  readonly #holders = new Map<string, Uint16Array | number[]>();
  constructor(files: CorpusFile[]) {
    this.files = files.length;
    files.forEach((f, i) => {
      const seen = new Set(tokensOf(f.folded));
      for (const t of seen) {
        this.#df.set(t, (this.#df.get(t) ?? 0) + 1);
        const l = this.#holders.get(t) as number[] | undefined;
        if (l) l.push(i);
        else this.#holders.set(t, [i]);
      }
    });
  }
  df(token: string): number {
    return this.#df.get(token.toLowerCase()) ?? 0;
  }
  /** How many transcripts hold every one of these tokens. */
  together(tokens: string[]): number {
    const ts = [...new Set(tokens.map((t) => t.toLowerCase()))];
    if (!ts.length) return 0;
    const lists = ts.map((t) => (this.#holders.get(t) ?? []) as number[]).sort((a, b) =>
      a.length - b.length
    );
    let cur = new Set(lists[0]);
    for (const l of lists.slice(1)) {
      const s = new Set(l);
      cur = new Set([...cur].filter((x) => s.has(x)));
      if (!cur.size) return 0;
    }
    return cur.size;
  }
}

interface Cand {
  kind: AKind;
  q: string;
  uuid: string;
  key: string;
  /** The tokens that must stand together in few transcripts (the question opening left out). */
  words: string[];
  /** `symbol`: the targets are the sessions defining it, not the record's copies. */
  targets?: string[];
}

/** The asked items of a corpus, by the rules above, in kind order. */
export function buildAskedItems(files: CorpusFile[], index = new TokenIndex(files)): AskedItem[] {
  const sessionsOf = new Map<string, Set<string>>();
  const found = new Map<string, Cand[]>();
  const push = (c: Cand) => {
    const k = c.kind + "\u0000" + c.q.toLowerCase();
    const l = found.get(k) ?? [];
    if (!l.some((x) => x.uuid === c.uuid)) l.push(c);
    found.set(k, l);
  };
  const distinct = Math.max(MAX_FILES, Math.floor(DISTINCT_SHARE * index.files));
  const context = Math.max(MAX_FILES, Math.floor(CONTEXT_SHARE * index.files));
  // symbol: where each class-like name is defined, and its first defining record
  const definers = new Map<
    string,
    { sessions: Set<string>; first: { uuid: string; key: string } }
  >();
  for (const f of files) {
    const recs = f.records.filter(isTurnRecord);
    for (const [i, r] of recs.entries()) {
      const u = r.uuid as string;
      let s = sessionsOf.get(u);
      if (!s) sessionsOf.set(u, s = new Set());
      s.add(f.sessionKey);
      const seed = fnv1a(u);
      const rand = rng(seed);
      // memory
      const reply = replyText(r);
      if (reply && !reply.trimStart().startsWith("<")) {
        const words = plainWords(reply, 4);
        const pos: number[] = [];
        words.forEach((w, j) => {
          const lw = w.toLowerCase();
          if (!STOP.has(lw) && index.df(lw) <= distinct) pos.push(j);
        });
        const want = 2 + (seed % 3);
        const picked: number[] = [];
        for (const j of reorder(pos, rand)) {
          if (picked.length >= want) break;
          if (picked.some((p) => Math.abs(p - j) < 2)) continue;
          if (picked.some((p) => words[p].toLowerCase() === words[j].toLowerCase())) continue;
          picked.push(j);
        }
        if (picked.length >= 2) {
          const inOrder = [...picked].sort((a, b) => a - b).map((j) => words[j]);
          const q = reorder(inOrder, rand);
          push({ kind: "memory", q: q.join(" "), uuid: u, key: f.sessionKey, words: q });
        }
      }
      // name + context, defined symbols
      for (const w of writtenBodies(r)) {
        for (const t of w.texts) {
          for (const m of t.matchAll(CLASSLIKE)) {
            const d = definers.get(m[1]);
            if (d) d.sessions.add(f.sessionKey);
            else {
              definers.set(m[1], {
                sessions: new Set([f.sessionKey]),
                first: { uuid: u, key: f.sessionKey },
              });
            }
          }
        }
      }
      for (const b of blocks(r)) {
        if (b.type !== "tool_use") continue;
        if (b.name !== "Read" && b.name !== "Edit" && b.name !== "Write") continue;
        const input = (b.input ?? {}) as Rec;
        if (typeof input.file_path !== "string") continue;
        const base = input.file_path.split(/[\\/]/).pop() ?? "";
        const defs: string[] = [];
        for (const w of writtenBodies(r)) {
          for (const t of w.texts) for (const m of t.matchAll(DEFINED)) defs.push(m[1]);
        }
        const name = defs.length && seed % 2 === 1 ? defs[Math.floor(rand() * defs.length)] : base;
        if (!name || !/[A-Za-z]/.test(name)) continue;
        // the nearest prose turn before the call, else after it
        let prose: string | null = null;
        for (let d = 1; d <= NEIGHBOUR_RECORDS && prose === null; d++) {
          const p = recs[i - d];
          if (p) prose = proseOf(p);
        }
        for (let d = 1; d <= NEIGHBOUR_RECORDS && prose === null; d++) {
          const n = recs[i + d];
          if (n) prose = proseOf(n);
        }
        if (!prose) continue;
        const nameTokens = new Set(tokensOf(name));
        const ctx = [...new Set(plainWords(prose, 5).map((x) => x.toLowerCase()))].filter((x) =>
          !STOP.has(x) && !nameTokens.has(x) && index.df(x) <= context
        );
        if (!ctx.length) continue;
        const word = ctx[Math.floor(rand() * ctx.length)];
        const q = seed % 3 === 0 ? `${word} ${name}` : `${name} ${word}`;
        push({
          kind: "name-context",
          q,
          uuid: u,
          key: f.sessionKey,
          words: [...nameTokens, word],
        });
      }
      // pasted errors
      for (const b of blocks(r)) {
        if (b.type !== "tool_result" || b.is_error !== true) continue;
        const lines = resultText(b).replace(/<\/?tool_use_error>/g, "").split("\n").map((l) =>
          l.trim()
        ).filter((l) => l.length >= 20 && tokensOf(l).length >= 3);
        if (!lines.length) continue;
        let line = lines[Math.floor(rand() * Math.min(lines.length, 5))];
        if (line.length > ERROR_CHARS) {
          const cut = line.slice(0, ERROR_CHARS + 1);
          const sp = cut.lastIndexOf(" ");
          line = (sp > 20 ? cut.slice(0, sp) : cut.slice(0, ERROR_CHARS)).trim();
        }
        push({ kind: "pasted-error", q: line, uuid: u, key: f.sessionKey, words: tokensOf(line) });
      }
      // questions: a commit message, a compaction summary's sentence
      const asked = (text: string) => {
        const ws = [...new Set(plainWords(text, 3).filter((w) => !STOP.has(w.toLowerCase())))];
        if (ws.length < 2) return;
        const kept = ws.slice(0, 6);
        const opening = OPENINGS[seed % OPENINGS.length];
        const q = `${opening} ${reorder(kept, rand).join(" ")}`;
        push({ kind: "question", q, uuid: u, key: f.sessionKey, words: kept });
      };
      for (const b of blocks(r)) {
        if (b.type !== "tool_use" || b.name !== "Bash") continue;
        const cmd = (b.input as Rec | undefined)?.command;
        if (typeof cmd !== "string") continue;
        const msg = commitMessage(cmd);
        if (msg) asked(msg);
      }
      const summary = summaryText(r);
      if (summary) {
        const ss = sentences(summary).filter((s) => plainWords(s, 4).length >= 6);
        for (const s of reorder(ss, rand).slice(0, SUMMARY_SENTENCES)) {
          const ws = [...new Set(plainWords(s, 4).filter((w) => !STOP.has(w.toLowerCase())))];
          const chosen = reorder(ws, rand).slice(0, 5);
          if (chosen.length >= 3) {
            const opening = OPENINGS[Math.floor(rand() * OPENINGS.length)];
            push({
              kind: "question",
              q: `${opening} ${chosen.join(" ")}`,
              uuid: u,
              key: f.sessionKey,
              words: chosen,
            });
          }
        }
      }
      // whole typed prompts
      const typed = typedText(r);
      if (typed && !typed.trimStart().startsWith("<") && !typed.trimStart().startsWith("/")) {
        const folded = typed.replace(/\s+/g, " ").trim();
        if (folded.length <= PROMPT_CHARS_MAX && folded.split(" ").length >= PROMPT_WORDS_MIN) {
          push({
            kind: "typed-prompt",
            q: folded,
            uuid: u,
            key: f.sessionKey,
            words: tokensOf(folded).slice(0, 32),
          });
        }
      }
    }
  }
  for (const [name, d] of definers) {
    if (d.sessions.size > MAX_FILES) continue;
    push({
      kind: "symbol",
      q: name,
      uuid: d.first.uuid,
      key: d.first.key,
      words: [name],
      targets: [...d.sessions].sort(),
    });
  }
  const byKind = new Map<AKind, Cand[]>();
  for (const l of found.values()) {
    if (l.length !== 1) continue; // from more than one record: which is the target?
    const list = byKind.get(l[0].kind) ?? [];
    list.push(l[0]);
    byKind.set(l[0].kind, list);
  }
  const items: AskedItem[] = [];
  for (const kind of Object.keys(ASKED_QUOTA) as AKind[]) {
    const list = (byKind.get(kind) ?? []).sort((a, b) =>
      fnv1a(a.q) - fnv1a(b.q) || (a.q < b.q ? -1 : 1)
    );
    let kept = 0;
    for (const c of list) {
      if (kept >= ASKED_QUOTA[kind]) break;
      const n = index.together(c.words);
      if (kind === "symbol" ? n < SYMBOL_MIN_FILES : n === 0 || n > MAX_FILES) continue;
      items.push({
        q: c.q,
        kind,
        uuid: c.uuid,
        sessionKey: c.key,
        sessions: c.targets ?? [...sessionsOf.get(c.uuid)!].sort(),
      });
      kept++;
    }
  }
  return items;
}
