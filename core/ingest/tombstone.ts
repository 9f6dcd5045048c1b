/**
 * Whether a transcript file is the one a tombstone buried: its first bytes hash as they did
 * when `terminus sessions delete` ran. A file whose head differs is another transcript that
 * happens to have the same key, and is archived as usual.
 */
import { TOMBSTONE_HEAD_BYTES } from "../constants.ts";
import { tailHash } from "../store/tails.ts";
import type { Tombstone } from "../store/tombstones_sql.ts";
import { readRange } from "./window.ts";

export interface Head {
  len: number;
  hash: number;
}

/** The identity of the transcript at `path`; null when there is no file to read. */
export function transcriptHead(path: string): Head | null {
  let size: number;
  try {
    size = Deno.statSync(path).size;
  } catch {
    return null;
  }
  const bytes = readRange(path, 0, Math.min(size, TOMBSTONE_HEAD_BYTES));
  return { len: bytes.length, hash: tailHash(bytes) };
}

/** A tombstone taken with no file on disk matches any file at its key. */
export function buried(t: Tombstone, path: string): boolean {
  if (t.headLen === null || t.headHash === null) return true;
  const h = transcriptHead(path);
  // a file shorter than the head it was deleted with is not that transcript, nor is one
  // that grew from nothing
  if (!h || h.len < t.headLen) return false;
  if (h.len === t.headLen) return h.hash === t.headHash;
  return tailHash(readRange(path, 0, t.headLen)) === t.headHash;
}
