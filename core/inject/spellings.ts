/**
 * What a prompt names: path-shaped words (resolved against the session's cwd, since stored
 * paths are absolute) and then identifier-shaped tokens, strongest first, at most N.
 */
import { isAbsolute, resolve } from "../posix.ts";
import { pathWords, symbolsIn } from "../index/entities.ts";

/** Sentence punctuation closing a word is prose, not part of the path the word names. */
const TRAILING_PUNCTUATION = /[?!.,;:]+(?=\s|$)/g;
/** How pathWords splits a line into words. */
const PATH_SEPARATORS = /[\s;&|<>()]+/;
const SLASH = /[/\\]/;
const SLASH_COMMAND = /^\s*\/[A-Za-z0-9_:.-]+(?=\s|$)/;

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
  for (const p of pathWords(text)) {
    if (p === "~" || p.startsWith("~/")) {
      // `~/.claude/settings.json` is under HOME, not the working directory
      if (home) add(resolve(home, p.slice(2)));
      continue;
    }
    add(!isAbsolute(p) && cwd ? resolve(cwd, p) : p);
  }
  // The parts of a named path are not named on their own: `src/erk_cli/x.py` names a file,
  // not the folder `erk_cli`.
  for (const s of symbolsIn(text.split(PATH_SEPARATORS).filter((w) => !SLASH.test(w)).join(" "))) {
    add(s);
  }
  return out;
}
