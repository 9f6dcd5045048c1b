/**
 * Capture modes. `full` keeps every byte; `lean` and `minimal` replace a record's top-level
 * toolUseResult and attachment with a note of their size before the line is archived.
 */
import type { CaptureMode } from "../config.ts";
import { LEAN_THRESHOLD_BYTES } from "../constants.ts";
import type { Rec } from "../transcript/records.ts";

const encoder = new TextEncoder();
const REPLACED = ["toolUseResult", "attachment"] as const;

/** Returns the line to archive (without its newline): the original bytes unless a field was replaced. */
export function captureLine(
  line: Uint8Array,
  rec: Rec | null,
  mode: CaptureMode,
): { bytes: Uint8Array; rec: Rec | null } {
  if (mode === "full" || rec === null) return { bytes: line, rec };
  let changed = false;
  const out: Rec = { ...rec };
  for (const field of REPLACED) {
    if (!(field in out)) continue;
    const size = encoder.encode(JSON.stringify(out[field])).length;
    if (mode === "minimal" || size > LEAN_THRESHOLD_BYTES) {
      out[field] = `[terminus capture ${mode}: ${field} of ${size} bytes not kept]`;
      changed = true;
    }
  }
  if (!changed) return { bytes: line, rec };
  return { bytes: encoder.encode(JSON.stringify(out)), rec: out };
}
