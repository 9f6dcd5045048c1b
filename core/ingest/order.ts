/**
 * The order a pass archives files in, which is the order new sessions get their numbers:
 * sessions the store already holds first (their numbers are fixed), then new ones by their
 * first turn's time, so a backfill of a month hands out #1 to the oldest session and a
 * number says something about when a session began. Only a new file's head is read.
 */
import { FIRST_TURN_PEEK_BYTES } from "../constants.ts";
import type { Found } from "../transcript/discover.ts";
import { isTurn, parseLine, str } from "../transcript/records.ts";
import { openPlain, readFully } from "../plain_file.ts";

/**
 * The timestamp of the first turn in the file's first FIRST_TURN_PEEK_BYTES, or null when
 * there is none there (a file of state records, or one whose first line is huge). `buf` is
 * where the head is read (FIRST_TURN_PEEK_BYTES long); nothing of it is kept.
 */
export function firstTurnTime(
  path: string,
  buf = new Uint8Array(FIRST_TURN_PEEK_BYTES),
): string | null {
  let head: Uint8Array;
  try {
    // never a blocking open: a link to a FIFO named like a transcript hung the pass here
    using f = openPlain(path);
    head = readFully(f, buf, 0);
  } catch {
    return null; // the pass reports an unreadable file, or what is not a file, when it comes to it
  }
  let start = 0;
  for (let i = 0; i < head.length; i++) {
    if (head[i] !== 0x0a) continue;
    const rec = parseLine(head.subarray(start, i));
    start = i + 1;
    if (rec && isTurn(rec)) return str(rec.timestamp);
  }
  return null;
}

/**
 * Known sessions in discovery order, then new ones oldest first; a new file with no turn in
 * its head goes last, in discovery order. `known` says whether the store holds the file's
 * session already.
 */
export function archiveOrder(files: Found[], known: (f: Found) => boolean): Found[] {
  const old: Found[] = [];
  const dated: { f: Found; at: number; i: number }[] = [];
  const undated: Found[] = [];
  // one buffer for every head: a fresh 64 KiB each was a backfill's garbage (3,960 of them at
  // 3 GB), which the allocator kept after the collector freed it (85 MiB of RSS before the
  // first file was archived)
  const buf = new Uint8Array(FIRST_TURN_PEEK_BYTES);
  files.forEach((f, i) => {
    if (known(f)) {
      old.push(f);
      return;
    }
    const ts = firstTurnTime(f.path, buf);
    const at = ts === null ? NaN : Date.parse(ts);
    if (Number.isNaN(at)) undated.push(f);
    else dated.push({ f, at, i });
  });
  dated.sort((a, b) => a.at - b.at || a.i - b.i);
  return [...old, ...dated.map((d) => d.f), ...undated];
}
