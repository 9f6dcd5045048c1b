/**
 * Putting a file in place whole: it is written under a temporary name beside its final path
 * and renamed over it, so a reader (or a process killed midway) sees the old file or the new
 * one, never half of one. Uses only Deno's own calls, so any path may import it.
 */
import { dirname } from "./posix.ts";

/**
 * `fill(tmp)` makes the new file (or link, or folder) at `tmp`, a name beside `path`; it is then
 * renamed over `path`. A failure at any step removes what `fill` left and rethrows.
 */
export function replaceAtomically(path: string, fill: (tmp: string) => void): void {
  const tmp = `${dirname(path)}/.${path.slice(dirname(path).length + 1)}.tmp-${Deno.pid}`;
  try {
    Deno.removeSync(tmp, { recursive: true });
  } catch { /* none left over by a killed process with the same pid */ }
  try {
    fill(tmp);
    Deno.renameSync(tmp, path);
  } catch (e) {
    try {
      Deno.removeSync(tmp, { recursive: true });
    } catch { /* never made */ }
    throw e;
  }
}

/**
 * Writes `data` to `path` whole, with `mode` set in the creating call (and again, past the
 * umask). `sync` flushes the file and its folder, for a record that must survive a crash.
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  { mode, sync = false }: { mode: number; sync?: boolean },
): void {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  replaceAtomically(path, (tmp) => {
    const f = Deno.openSync(tmp, { write: true, createNew: true, mode });
    try {
      let off = 0;
      while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
      if (sync) f.syncSync();
    } finally {
      f.close();
    }
    Deno.chmodSync(tmp, mode);
  });
  if (sync) syncDir(dirname(path));
}

/** Best effort: a folder's own entries reach the disk. */
export function syncDir(dir: string): void {
  try {
    const f = Deno.openSync(dir, { read: true });
    try {
      f.syncSync();
    } finally {
      f.close();
    }
  } catch {
    // not every system lets a folder be opened for sync; the files themselves are synced
  }
}
