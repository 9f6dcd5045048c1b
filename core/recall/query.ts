/**
 * Query words are never passed raw to FTS5: split on anything not a letter, mark or digit,
 * deduplicated case-insensitively, the first 32 kept, each double-quoted, joined with AND.
 * Words the person put between double quotes are one FTS5 phrase: they match only in order.
 */
import { BROWSE_PREFIX_MIN_CHARS, MAX_QUERY_TOKENS, QUERY_WORD_CHARS_MAX } from "../constants.ts";
import { UsageError } from "../errors.ts";
import { lazyRegExp } from "../lazy_regexp.ts";

const TOKEN = lazyRegExp(String.raw`[\p{L}\p{M}\p{N}]+`, "gu");
/** unicode61 makes a token only of letters and digits: a run of marks alone is no word. */
const SEARCHABLE = lazyRegExp(String.raw`[\p{L}\p{N}]`, "u");

/** ASCII text: its only letters and digits are these, so the Unicode classes are not needed. */
const ASCII = /^[^\u0080-\uffff]*$/;
const ASCII_TOKEN = /[A-Za-z0-9]+/g;

export function tokens(text: string): string[] {
  // The ranking splits every entity of 200 candidates: the Unicode-class regex costs a cold
  // process about 3 ms there, and on ASCII text it finds exactly these runs.
  if (ASCII.test(text)) return text.match(ASCII_TOKEN) ?? [];
  return [...eachToken(text)];
}

/** The searchable tokens of `text`, one at a time: a caller that stops early reads no further. */
export function* eachToken(text: string): Generator<string> {
  if (ASCII.test(text)) {
    for (const m of text.matchAll(ASCII_TOKEN)) yield m[0];
    return;
  }
  const searchable = SEARCHABLE();
  for (const m of text.matchAll(TOKEN())) if (searchable.test(m[0])) yield m[0];
}

/**
 * The first MAX_QUERY_TOKENS distinct tokens (case-insensitively), and whether there was
 * another. It stops at that next distinct token, so a query of megabytes costs what its first
 * few dozen distinct words cost, not a token array of the whole text.
 */
export function keepTerms(tokens: Iterable<string>): { terms: string[]; truncated: boolean } {
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const t of tokens) {
    const k = t.toLowerCase();
    if (seen.has(k)) continue;
    if (terms.length >= MAX_QUERY_TOKENS) return { terms, truncated: true };
    seen.add(k);
    terms.push(t);
  }
  return { terms, truncated: false };
}

export interface Query {
  /** As typed. */
  text: string;
  /** Distinct tokens kept, in order. */
  terms: string[];
  /** Lower-cased kept terms, for entity matching and excerpts. */
  folded: string[];
  truncated: boolean;
  /** Token groups for structured matching: one group per spelling (the CLI has one). */
  groups: string[][];
  /** Words typed between double quotes, two or more each: they must stand in this order. */
  phrases: string[][];
  /** The FTS5 MATCH expression; null when nothing is left to search. */
  match: string | null;
  /** Its clauses, each an FTS5 phrase (a word, quoted words, a prefix): `match` is them ANDed. */
  clauses: string[];
  /** Every kept word quoted, AND: for an index that keeps no positions (no phrases there). */
  wordsMatch: string | null;
  /** Its clauses, one quoted word each. */
  wordClauses: string[];
  /**
   * Every word, in the order typed, as one FTS5 phrase: a turn that says them so ranks above
   * one that only holds them apart. Null for one word, or when the person quoted phrases.
   */
  phrase: string | null;
  /** The words an excerpt is centred on when they stand together: the first phrase, or all. */
  inOrder: string[];
}

const quote = (t: string) => `"${t.replace(/"/g, '""')}"`;

/** The text cut into its parts outside and inside double quotes (an unpaired quote is text). */
function segments(text: string): { quoted: boolean; text: string }[] {
  const out: { quoted: boolean; text: string }[] = [];
  let at = 0;
  for (const m of text.matchAll(/"([^"]*)"/g)) {
    out.push({ quoted: false, text: text.slice(at, m.index) });
    out.push({ quoted: true, text: m[1] });
    at = m.index! + m[0].length;
  }
  out.push({ quoted: false, text: text.slice(at) });
  return out;
}

/** Why the query cannot be searched as typed (a kept word too long), or null. */
export function overlongWord(terms: string[]): string | null {
  const long = terms.find((t) => t.length > QUERY_WORD_CHARS_MAX);
  return long === undefined
    ? null
    : `a search word is ${long.length} characters long (it starts ${
      JSON.stringify(long.slice(0, 16))
    }); the longest searched is ${QUERY_WORD_CHARS_MAX}`;
}

/** Throws UsageError for a word over QUERY_WORD_CHARS_MAX (see overlongWord). */
export function parseQuery(text: string): Query {
  const { terms, truncated } = keepTerms(eachToken(text));
  const long = overlongWord(terms);
  if (long) throw new UsageError(long);
  const folded = terms.map((t) => t.toLowerCase());
  const kept = new Set(folded);
  // a phrase is words in double quotes; each of its words must also be among the kept terms
  const phrases: string[][] = [];
  const inPhrase = new Set<string>();
  if (text.includes('"')) {
    for (const seg of segments(text)) {
      if (!seg.quoted) continue;
      const words = [...eachToken(seg.text)];
      if (words.length < 2 || !words.every((w) => kept.has(w.toLowerCase()))) continue;
      phrases.push(words.map((w) => w.toLowerCase()));
      for (const w of words) inPhrase.add(w.toLowerCase());
    }
  }
  const clauses = [
    ...phrases.map((p) => quote(p.join(" "))),
    ...terms.filter((t) => !inPhrase.has(t.toLowerCase())).map(quote),
  ];
  const match = clauses.length ? clauses.join(" AND ") : null;
  // the words as typed, repeats included, for the phrase bonus
  const typed: string[] = [];
  if (terms.length > 1 && phrases.length === 0 && !truncated) {
    for (const t of eachToken(text)) if (typed.push(t) > MAX_QUERY_TOKENS) break;
  }
  const phrase = typed.length > 1 && typed.length <= MAX_QUERY_TOKENS
    ? quote(typed.join(" "))
    : null;
  const wordClauses = terms.map(quote);
  const wordsMatch = terms.length ? wordClauses.join(" AND ") : null;
  return {
    text,
    terms,
    folded,
    truncated,
    match,
    clauses,
    wordsMatch,
    wordClauses,
    groups: [folded],
    phrases,
    phrase,
    inOrder: phrases[0] ?? typed.slice(0, MAX_QUERY_TOKENS).map((t) => t.toLowerCase()),
  };
}

/**
 * The query with its last term matched as a prefix (`"Sear"*`), for a word still being typed.
 * A term shorter than BROWSE_PREFIX_MIN_CHARS stays whole: one or two letters would expand to a
 * large share of the index's terms on every keystroke.
 */
export function asPrefix(q: Query): Query {
  const last = q.terms.at(-1);
  // a phrase stays as typed: a word still being typed is outside quotes
  if (!q.match || !last || q.phrases.length || [...last].length < BROWSE_PREFIX_MIN_CHARS) return q;
  const quoted = q.terms.map(quote);
  quoted[quoted.length - 1] += "*";
  const match = quoted.join(" AND ");
  return { ...q, match, clauses: quoted, wordsMatch: match, wordClauses: quoted, phrase: null };
}

export const NO_WORDS_REASON = "the query has no words that can be searched";
export const TRUNCATED_NOTE =
  `the query has more than ${MAX_QUERY_TOKENS} distinct terms; only the first ${MAX_QUERY_TOKENS} were searched`;
