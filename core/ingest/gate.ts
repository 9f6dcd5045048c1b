/**
 * Whether a hook should start one more detached archive pass. Every hook event used to start
 * one; under a burst of prompts they queued on two cores behind each other and pushed the
 * hooks past their deadline. Now a pass is started only when none was started in the last
 * few seconds, decided under an OS try-lock on a stamp file beside the ingest lock, so of a
 * burst exactly one hook starts it. Session start and end always start one.
 */
import { join } from "../posix.ts";
import { DIR_MODE, FILE_MODE, PASS_DEBOUNCE_MS } from "../constants.ts";
import { PASS_STAMP_FILE } from "../paths.ts";

/**
 * True when the caller should start a pass; records the start when it says so. Any failure to
 * read or write the stamp answers true: a pass too many costs less than one missed.
 */
export function claimPassStart(dataDir: string, always: boolean, now = Date.now()): boolean {
  let f: Deno.FsFile;
  try {
    Deno.mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
    f = Deno.openSync(join(dataDir, PASS_STAMP_FILE), {
      read: true,
      write: true,
      create: true,
      mode: FILE_MODE,
    });
  } catch {
    return true;
  }
  try {
    let mine = false;
    try {
      mine = f.tryLockSync(true);
    } catch {
      return true;
    }
    if (!mine) return always; // another hook is starting one this very moment
    try {
      const last = f.statSync().mtime?.getTime() ?? 0;
      const fresh = f.statSync().size > 0 && now - last >= 0 && now - last < PASS_DEBOUNCE_MS;
      if (fresh && !always) return false;
      // the size marks a stamp written by a start, not one just created empty
      f.truncateSync(0);
      f.writeSync(new Uint8Array([0x31]));
      f.utimeSync(new Date(now), new Date(now));
      return true;
    } finally {
      f.unlockSync();
    }
  } catch {
    return true;
  } finally {
    f.close();
  }
}
