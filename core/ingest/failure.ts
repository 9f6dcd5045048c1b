/**
 * The failure record: why the last pass stopped, kept outside the store. A full disk refuses
 * the store's own writes (the run row stays "in flight" and would read as a killed process), so
 * the record is a file allocated at its full size while there is room, and a failing pass only
 * overwrites those bytes in place. The next pass takes it and names the real cause.
 */
import { join } from "../posix.ts";
import { FAILURE_RECORD_BYTES, FILE_MODE } from "../constants.ts";

export const FAILURE_FILE = "pass-failure";

const blank = () => new Uint8Array(FAILURE_RECORD_BYTES).fill(0x20);

function overwrite(path: string, bytes: Uint8Array, create: boolean): void {
  const f = Deno.openSync(path, { write: true, create, mode: FILE_MODE });
  try {
    let off = 0;
    while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
    f.syncSync();
  } finally {
    f.close();
  }
}

/** Allocates the record when it is missing or short. Best effort: no room means no record. */
export function reserveFailureRecord(dataDir: string): void {
  const path = join(dataDir, FAILURE_FILE);
  try {
    if (Deno.statSync(path).size === FAILURE_RECORD_BYTES) return;
  } catch { /* not there yet */ }
  try {
    overwrite(path, blank(), true);
  } catch { /* a full disk: the pass still runs */ }
}

/** Writes why the pass that started at `startedAt` stopped, into the allocated bytes only. */
export function writeFailureRecord(dataDir: string, startedAt: string, error: string): void {
  const bytes = blank();
  let text = JSON.stringify({ startedAt, error });
  const enc = new TextEncoder();
  while (enc.encode(text).length > FAILURE_RECORD_BYTES) {
    error = error.slice(0, Math.floor(error.length * 0.8));
    text = JSON.stringify({ startedAt, error: error + "…" });
  }
  bytes.set(enc.encode(text));
  try {
    const path = join(dataDir, FAILURE_FILE);
    if (Deno.statSync(path).size !== FAILURE_RECORD_BYTES) return; // never grow it now
    overwrite(path, bytes, false);
  } catch { /* nothing more can be done on a failing disk */ }
}

/** The recorded failure, cleared as it is read; null when there is none. */
export function takeFailureRecord(dataDir: string): { startedAt: string; error: string } | null {
  const path = join(dataDir, FAILURE_FILE);
  let rec: { startedAt?: unknown; error?: unknown };
  try {
    const text = Deno.readTextFileSync(path).trim();
    if (text === "") return null;
    rec = JSON.parse(text);
  } catch {
    return null;
  }
  try {
    overwrite(path, blank(), false);
  } catch { /* read again next time */ }
  return typeof rec.startedAt === "string" && typeof rec.error === "string"
    ? { startedAt: rec.startedAt, error: rec.error }
    : null;
}
