/**
 * Whether archiving has stopped while Claude Code keeps running: the first hook that starts a
 * pass after the last finished one leaves a marker (one exclusive create, which fails at once
 * when it is there already), and a pass that finishes removes it. A marker older than
 * STALL_AFTER_MS means hooks have been starting passes for a day and none has finished.
 */
import { join } from "../posix.ts";
import { FILE_MODE, STALL_AFTER_MS } from "../constants.ts";
import { PASS_WANTED_FILE } from "../paths.ts";

/** Called when a hook starts a pass; keeps the time of the first such start. */
export function notePassWanted(dataDir: string): void {
  try {
    Deno.openSync(join(dataDir, PASS_WANTED_FILE), {
      createNew: true,
      write: true,
      mode: FILE_MODE,
    })
      .close();
  } catch { /* there already (the usual case), or unwritable: doctor reports the folder */ }
}

/** Called when a pass has finished. */
export function notePassFinished(dataDir: string): void {
  try {
    Deno.removeSync(join(dataDir, PASS_WANTED_FILE));
  } catch { /* none was wanted by a hook */ }
}

/** One line when hooks have started passes for a day and none finished; null otherwise. */
export function stalledArchiving(dataDir: string, now = Date.now()): string | null {
  let since: number;
  try {
    since = Deno.statSync(join(dataDir, PASS_WANTED_FILE)).mtime?.getTime() ?? now;
  } catch {
    return null;
  }
  if (now - since < STALL_AFTER_MS) return null;
  const hours = Math.floor((now - since) / 3_600_000);
  return `no archive pass has finished in ${hours} hours although Claude Code kept starting them (since ${
    new Date(since).toISOString()
  }); run terminus ingest to see why`;
}
