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

export interface StopCause {
  startedAt: string;
  error: string;
}

/**
 * Adds why the pass that started at `startedAt` stopped, into the allocated bytes only. The
 * causes already there are kept (the oldest dropped when they no longer fit): on a full disk
 * every hook starts a pass that fails too, and one overwriting the other lost the cause of a
 * pass whose run row stayed in flight, which then read as killed.
 */
export function writeFailureRecord(dataDir: string, startedAt: string, error: string): void {
  const path = join(dataDir, FAILURE_FILE);
  try {
    if (Deno.statSync(path).size !== FAILURE_RECORD_BYTES) return; // never grow it now
    const all = [...readFailureRecords(dataDir), { startedAt, error }];
    overwrite(path, encodeRecords(all), false);
  } catch { /* nothing more can be done on a failing disk */ }
}

/** The causes as they fit the record: the newest kept whole where it can be, older ones dropped. */
function encodeRecords(all: StopCause[]): Uint8Array {
  const enc = new TextEncoder();
  const bytes = blank();
  let list = all.slice();
  let text = JSON.stringify(list);
  while (enc.encode(text).length > FAILURE_RECORD_BYTES) {
    if (list.length > 1) list = list.slice(1);
    else {
      const e = list[0].error;
      list = [{ ...list[0], error: e.slice(0, Math.floor(e.length * 0.8)) + "…" }];
    }
    text = JSON.stringify(list);
  }
  bytes.set(enc.encode(text));
  return bytes;
}

/** The recorded causes, oldest first (a record of one earlier build's shape is read too). */
export function readFailureRecords(dataDir: string): StopCause[] {
  let v: unknown;
  try {
    const text = Deno.readTextFileSync(join(dataDir, FAILURE_FILE)).trim();
    if (text === "") return [];
    v = JSON.parse(text);
  } catch {
    return [];
  }
  const ok = (r: unknown): r is StopCause =>
    !!r && typeof (r as StopCause).startedAt === "string" &&
    typeof (r as StopCause).error === "string";
  return (Array.isArray(v) ? v : [v]).filter(ok);
}

/** Drops these causes from the record, once what they say is kept in the store. */
export function dropFailureRecords(dataDir: string, gone: StopCause[]): void {
  if (gone.length === 0) return;
  const left = readFailureRecords(dataDir).filter((r) =>
    !gone.some((g) => g.startedAt === r.startedAt && g.error === r.error)
  );
  try {
    overwrite(join(dataDir, FAILURE_FILE), left.length ? encodeRecords(left) : blank(), false);
  } catch { /* read again next time */ }
}
