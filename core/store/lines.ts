/**
 * A session's archived stream as lines, decompressed one block at a time, so a reader's
 * memory is bounded by the longest line it keeps rather than by the session. A line longer
 * than `maxLine` (an oversized record, archived unparsed) is skipped without being joined.
 */
import type { Db } from "./db.ts";
import { decompress } from "./codec.ts";
import { concat } from "../bytes.ts";

const NL = 0x0a;

export function* streamLines(db: Db, sessionNo: number, maxLine: number): Generator<Uint8Array> {
  const next = db.prepare(
    "SELECT block_no AS no, bytes FROM blocks WHERE session_no = ? AND block_no >= ? ORDER BY block_no LIMIT 1",
  );
  let parts: Uint8Array[] = [];
  let held = 0;
  let skipping = false;
  const line = () => parts.length === 1 ? parts[0] : concat(parts);
  for (let blockNo = 0;;) {
    const row = next.get(sessionNo, blockNo) as { no: number; bytes: Uint8Array } | undefined;
    if (!row) break;
    blockNo = row.no + 1;
    const raw = decompress(row.bytes);
    let start = 0;
    while (start < raw.length) {
      const nl = raw.indexOf(NL, start);
      const end = nl < 0 ? raw.length : nl;
      if (!skipping) {
        parts.push(raw.subarray(start, end));
        held += end - start;
        if (held > maxLine) {
          skipping = true;
          parts = [];
        }
      }
      if (nl < 0) break;
      if (!skipping) yield line();
      parts = [];
      held = 0;
      skipping = false;
      start = nl + 1;
    }
  }
  if (!skipping && held > 0) yield line();
}
