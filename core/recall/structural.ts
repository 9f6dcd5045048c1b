/**
 * The structural match rule of prompt recall: a turn matches what a prompt names only when one
 * of its stored entities *is* that thing. Word overlap is a ranking signal for `search`, never a
 * match here, so a tool name, a command's basename or a parent folder cannot carry a turn in.
 *
 * - path: equal to the named path, or ending in it at a `/` boundary, in either direction
 *   (a stored `src/a.ts` from a Bash line matches `/repo/src/a.ts`, and back); for a named
 *   identifier, a file whose name is it and one extension (`sync_cmd` -> `sync_cmd.py`);
 * - symbol: equal to the named identifier;
 * - command: the stored value contains the named identifier as a whole word;
 * - error: the normalised error line contains the named identifier as a whole word;
 * - tool: equal to a named spelling, and it never counts alone.
 *
 * Pure functions: the lookup (core/store/inject_sql.ts) finds candidates by exact keys and this
 * module decides what each candidate really matched. The labels use the same rule, so a hit is
 * a later turn touching the very thing the injected turn was matched on.
 */

import { EVERYDAY_NAMES } from "../constants.ts";

export interface Matched {
  kind: string;
  value: string;
}

/** Kind, then value: the order matched entities are listed in. */
export function byKindValue(x: Matched, y: Matched): number {
  if (x.kind !== y.kind) return x.kind < y.kind ? -1 : 1;
  return x.value < y.value ? -1 : x.value > y.value ? 1 : 0;
}

/** `name.ext` or a dotfile, in the characters file names use. */
const FILE_NAME = /^(?:[A-Za-z0-9_@+-][A-Za-z0-9_.@+-]*|\.[A-Za-z0-9_][A-Za-z0-9_.-]*)$/;
/** An extension: lower case (`py`, `toml`, `d.ts`'s `ts`) or all capitals (`MD`), with a letter. */
const EXTENSION = /\.([a-z0-9]{1,8}|[A-Z0-9]{1,8})$/;
const LETTER = /[A-Za-z]/;
const SLASH = /[/\\]/;

/**
 * Whether a path's last part looks like a file name (`app.py`, `.env`, `S.ts`). A bare word
 * needs a stem of two characters or more, so `e.g.` and `i.e.` stay prose; `self.assertEqual`
 * is a method, not a file (an extension is not in mixed case).
 */
export function isFileName(part: string, bare = false): boolean {
  if (!FILE_NAME.test(part)) return false;
  if (part.startsWith(".")) return part.length > 1 && LETTER.test(part);
  const m = EXTENSION.exec(part);
  if (m === null || !LETTER.test(m[1])) return false;
  const stem = part.slice(0, m.index);
  return stem.length >= (bare ? 2 : 1) && LETTER.test(stem + m[1]);
}

/** The last part of a path spelling. */
export function lastPart(p: string): string {
  const parts = p.split(SLASH).filter((x) => x !== "");
  return parts.at(-1) ?? "";
}

/**
 * A path spelling with a file-name-shaped last part: it names a file on its own. Any other
 * path spelling needs the store to hold a path it can mean before it counts.
 */
export function isStrongPath(p: string): boolean {
  return isFileName(lastPart(p));
}

/** EVERYDAY_NAMES, lower-cased: the everyday words of the field. */
const EVERYDAY = new Set(EVERYDAY_NAMES.map((w) => w.toLowerCase()));

/**
 * An everyday word of the field (`GitHub`, `macOS`, `TypeScript`, `Node.js`): prose is full of
 * them, so such a spelling adds to a match on something else but brings no turn alone, however
 * rare it is in the archive. Any other name is held back only by how many sessions hold it.
 */
export function isEverydayName(s: string): boolean {
  return EVERYDAY.has(s.toLowerCase());
}

/** One extension after a stem (`.py`, `.MD`): letters and digits with a letter, in one case. */
const ONE_EXTENSION = /^\.(?=[A-Za-z0-9]*[A-Za-z])(?:[a-z0-9]{1,8}|[A-Z0-9]{1,8})$/;

/**
 * Whether a stored path names the file an identifier is the stem of: its last part is the
 * identifier and one extension (`src/sync_cmd.py` for `sync_cmd`, never `sync_cmd_test.py`).
 */
export function isStemOf(path: string, stem: string): boolean {
  const last = lastPart(canonicalPath(path));
  return last.length > stem.length && last.startsWith(stem) &&
    ONE_EXTENSION.test(last.slice(stem.length));
}

/** A spelling that names a path (or a bare file name) rather than an identifier. */
export function isPathSpelling(s: string): boolean {
  return s.includes("/") || s.includes("\\") || isFileName(s, true);
}

/** One spelling of a path: no leading `./`, no trailing `/` (the root stays `/`). */
export function canonicalPath(p: string): string {
  let s = p;
  while (s.startsWith("./")) s = s.slice(2);
  while (s.length > 1 && s.endsWith("/")) s = s.slice(0, -1);
  return s;
}

/** Equal, or one ends in the other at a `/` boundary. */
export function pathMatches(stored: string, named: string): boolean {
  const a = canonicalPath(stored);
  const b = canonicalPath(named);
  if (a === "" || b === "") return false;
  if (a === b) return true;
  return endsAtBoundary(a, b) || endsAtBoundary(b, a);
}

function endsAtBoundary(long: string, short: string): boolean {
  // Two absolute paths name the same file only when they are equal.
  if (short.startsWith("/") || long.length <= short.length || !long.endsWith(short)) return false;
  return long[long.length - short.length - 1] === "/";
}

/**
 * The stored spellings that equal a named path or that it ends in at a `/` boundary: the exact
 * keys one index lookup per spelling needs (`/r/src/a.ts` -> itself, `r/src/a.ts`, `src/a.ts`,
 * `a.ts`). A bare file name is kept: a relative `file_path` is stored as typed. Stored paths
 * that end in a relative spelling (the other direction) need a scan; see the lookup.
 */
export function pathKeys(named: string): string[] {
  const p = canonicalPath(named);
  if (p === "") return [];
  const out = new Set<string>([p]);
  for (let i = p.indexOf("/"); i >= 0; i = p.indexOf("/", i + 1)) {
    const tail = p.slice(i + 1);
    if (tail !== "") out.add(tail);
  }
  return [...out];
}

const WORD = /[A-Za-z0-9_$]/;

/** `text` contains `word` with no identifier character on either side. */
export function containsWord(text: string, word: string): boolean {
  if (word === "") return false;
  for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
    const before = i === 0 ? "" : text[i - 1];
    const after = text[i + word.length] ?? "";
    if (!WORD.test(before) && !WORD.test(after)) return true;
  }
  return false;
}

/**
 * Whether one stored entity matches one spelling, tools aside. An `exact` path spelling (an
 * absolute path outside the session's project) matches only an equal stored path.
 */
export function entityMatches(
  e: Matched,
  spelling: string,
  exact = false,
  path = isPathSpelling(spelling),
): boolean {
  switch (e.kind) {
    case "path":
      if (!path) return isStemOf(e.value, spelling);
      if (exact) return canonicalPath(e.value) === canonicalPath(spelling);
      return pathMatches(e.value, spelling);
    case "symbol":
      return !path && e.value === spelling;
    case "command":
    case "error":
      return !path && containsWord(e.value, spelling);
    default:
      return false;
  }
}

function toolNamed(e: Matched, spellings: string[]): boolean {
  const v = e.value.toLowerCase();
  return spellings.some((s) => s.toLowerCase() === v);
}

export interface TurnMatch {
  /** The entities that matched, sorted by kind then value. */
  matched: Matched[];
  /** The spellings some entity matched. */
  spellings: string[];
}

/**
 * What a turn's entities match among the spellings. A tool counts only when a spelling names it
 * and something else matched too.
 */
export function matchTurn(
  entities: Matched[],
  spellings: string[],
  exactOnly: ReadonlySet<string> = new Set(),
): TurnMatch {
  const matched: Matched[] = [];
  const hitSpellings = new Set<string>();
  const shapes = spellings.map((s) => ({ s, exact: exactOnly.has(s), path: isPathSpelling(s) }));
  for (const e of entities) {
    if (e.kind === "tool") continue;
    let any = false;
    for (const { s, exact, path } of shapes) {
      if (entityMatches(e, s, exact, path)) {
        hitSpellings.add(s);
        any = true;
      }
    }
    if (any) matched.push({ kind: e.kind, value: e.value });
  }
  if (matched.length) {
    for (const e of entities) {
      if (e.kind === "tool" && toolNamed(e, spellings)) {
        matched.push({ kind: e.kind, value: e.value });
      }
    }
  }
  matched.sort(byKindValue);
  return { matched, spellings: [...hitSpellings] };
}
