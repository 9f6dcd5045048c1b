/**
 * Lines of a file, streamed: read in chunks, never the whole file, and a line longer than
 * `max` bytes is reported as too long (its bytes skipped as they pass) rather than gathered.
 */
import { openPlain } from "../plain_file.ts";

const NL = 0x0a;
const CHUNK = 256 * 1024;

export type Line =
  | { no: number; bytes: Uint8Array; tooLong?: undefined }
  | { no: number; bytes: null; tooLong: number };

export async function* readLines(path: string, max: number): AsyncGenerator<Line> {
  // history.jsonl is Claude Code's: opened without blocking, read only if a regular file
  const f = openPlain(path);
  let at = 0;
  try {
    const buf = new Uint8Array(CHUNK);
    let parts: Uint8Array[] = [];
    let held = 0;
    let skipping = 0; // > 0: the current line passed `max`; counts its bytes
    let no = 0;
    const take = (piece: Uint8Array) => {
      if (skipping) skipping += piece.length;
      else if (held + piece.length > max) {
        skipping = held + piece.length;
        parts = [];
        held = 0;
      } else {
        parts.push(piece.slice());
        held += piece.length;
      }
    };
    const end = (): Line => {
      no++;
      if (skipping) {
        const n = skipping;
        skipping = 0;
        return { no, bytes: null, tooLong: n };
      }
      const out = new Uint8Array(held);
      let at = 0;
      for (const p of parts) {
        out.set(p, at);
        at += p.length;
      }
      parts = [];
      held = 0;
      return { no, bytes: out };
    };
    for (;;) {
      const n = f.readAt(buf, at);
      if (n === 0) break;
      at += n;
      let start = 0;
      for (let i = 0; i < n; i++) {
        if (buf[i] !== NL) continue;
        take(buf.subarray(start, i));
        yield end();
        start = i + 1;
      }
      if (start < n) take(buf.subarray(start, n));
    }
    if (held || skipping) yield end();
  } finally {
    f.close();
  }
}
