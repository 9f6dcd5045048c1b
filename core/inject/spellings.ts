/**
 * What a prompt names: path-shaped words (resolved against the session's cwd, since stored
 * paths are absolute; `~/` against HOME), bare file names, then identifier-shaped tokens,
 * strongest first, at most N (the lookup then keeps the rarest 8). A path is read as people
 * paste it: `@src/a.go` (a file mention) and `src/a.go:680-706` (an IDE selection) name
 * `src/a.go`.
 *
 * Only spellings that can mean a path are kept: a word of slashes alone (`/`, `//`), a number
 * fraction (`1/1`) and a word with nothing file-like in it are prose. A path spelling whose
 * last part is not file-name shaped (`if/else`, `src/erk_cli`) is kept only as weak: the lookup
 * counts it only when the store has a path it can mean (core/recall/structural.ts).
 */
import { isAbsolute, resolve } from "../posix.ts";
import { pathWords, symbolsIn } from "../index/entities.ts";
import { isFileName, isStemOf, lastPart } from "../recall/structural.ts";

/** Sentence punctuation closing a word is prose, not part of the path the word names. */
const TRAILING_PUNCTUATION = /[?!.,;:]+(?=\s|$)/g;
/** How pathWords splits a line into words. */
const PATH_SEPARATORS = /[\s;&|<>()]+/;
const SLASH = /[/\\]/;
const LETTER = /[A-Za-z]/;
const SLASH_COMMAND = /^\s*\/[A-Za-z0-9_:.-]+(?=\s|$)/;
/**
 * A place in a file as people paste it: a line or a range after the path (`a.go:680`,
 * `a.go:680-706`, the form Claude Code's IDE selection inserts, or `a.go#L680-L706`).
 */
const LINE_SUFFIX = /(?::\d+(?:[-:]\d+)?|#L\d+(?:-L?\d+)?)$/;

/** The path a pasted word names: no `@` mention mark before it, no line or range after it. */
function asPasted(w: string): string {
  const s = w.startsWith("@") ? w.slice(1) : w;
  return s.replace(LINE_SUFFIX, "");
}

/** A Windows path (`D:\\oh-my-posh`, `C:/Users`): never resolved as a POSIX one. */
const WINDOWS_PATH = /^[A-Za-z]:[\\/]/;

/** A path-shaped word that is prose whatever the store holds. */
function isProse(w: string): boolean {
  const parts = w.split(SLASH).filter((x) => x !== "");
  if (parts.length === 0) return true; // `/`, `//`
  // `1/1`, `2/2`, `3/4/5`: no part has a letter
  if (!parts.some((x) => LETTER.test(x))) return true;
  // `/summary` of `</summary>`, `/erk:plan-save`, `/issues/`: one part under the root, no file
  if (/^[/\\]/.test(w) && parts.length === 1 && !isFileName(parts[0])) return true;
  // a code sample's escapes (`\n".join`, `Rules:\n`) and quotes are not in a path
  if (/\\[ntr"'\\]|["'`]/.test(w)) return true;
  return false;
}

export function spellings(
  prompt: string,
  cwd: string | null,
  max: number,
  home: string | null = null,
): string[] {
  const out: string[] = [];
  const add = (s: string) => {
    if (s && !out.includes(s) && out.length < max) out.push(s);
  };
  // A slash command's name (`/erk:plan-implement 8511`) is a command, not a path.
  const text = prompt.replace(SLASH_COMMAND, "").replace(TRAILING_PUNCTUATION, "");
  // Strongest first, so the cap keeps them: paths naming a file, bare file names, then
  // identifiers, then the weak paths (`src/erk_cli`, `if/else`) only the store can vouch for.
  const weak: string[] = [];
  for (const w of pathWords(text)) {
    const p = asPasted(w);
    if (p === "" || isProse(p)) continue;
    let s: string | null;
    if (p === "~" || p.startsWith("~/")) {
      // `~/.claude/settings.json` is under HOME, not the working directory
      s = home ? resolve(home, p.slice(2)) : null;
    } else if (isAbsolute(p) || WINDOWS_PATH.test(p) || !cwd || WINDOWS_PATH.test(cwd)) {
      // a Windows working directory (`D:\\repo`) is not resolved against: the relative path is
      // looked up as typed, by the stored paths that end in it
      s = p;
    } else s = resolve(cwd, p);
    if (s === null) continue;
    if (isFileName(lastPart(s))) add(s);
    else weak.push(s);
  }
  const words = text.split(PATH_SEPARATORS).map((w) =>
    asPasted(w.replace(/^["'`(]+|["'`)]+$/g, ""))
  );
  // A bare file name (`pyproject.toml`, `land_cmd.py`) names a file wherever it lies: it is
  // looked up as a path's last part, never as the identifier before its dot.
  for (const w of words) if (!SLASH.test(w) && isFileName(w, true)) add(w);
  // The parts of a named path are not named on their own: `src/erk_cli/x.py` names a file,
  // not the folder `erk_cli`; nor is a named file's stem (`land_cmd` of `land_cmd.py`).
  const rest = words.filter((w) => !SLASH.test(w) && !isFileName(w, true)).join(" ");
  // nor is the stem of a file named anywhere in the prompt (`integration_test` beside
  // `integration_test.go`): the file was named, and its stem would bring its siblings too
  const files = out.map((s) => lastPart(s));
  for (const s of symbolsIn(rest)) if (!files.some((f) => isStemOf(f, s))) add(s);
  for (const s of weak) add(s);
  return out;
}
