/**
 * What a prompt names: path-shaped words (resolved against the session's cwd, since stored
 * paths are absolute) and then identifier-shaped tokens, strongest first, at most N.
 */
import { isAbsolute, resolve } from "../posix.ts";
import { pathWords, symbolsIn } from "../index/entities.ts";

/** Sentence punctuation closing a word is prose, not part of the path the word names. */
const TRAILING_PUNCTUATION = /[?!.,;:]+(?=\s|$)/g;

export function spellings(prompt: string, cwd: string | null, max: number): string[] {
  const out: string[] = [];
  const add = (s: string) => {
    if (s && !out.includes(s) && out.length < max) out.push(s);
  };
  for (const p of pathWords(prompt.replace(TRAILING_PUNCTUATION, ""))) {
    add(!isAbsolute(p) && cwd ? resolve(cwd, p) : p);
  }
  for (const s of symbolsIn(prompt)) add(s);
  return out;
}
