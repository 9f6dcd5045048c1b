/**
 * Putting a file in place whole: it is written under a temporary name beside its final path
 * and renamed over it, so a reader (or a process killed midway) sees the old file or the new
 * one, never half of one. Uses only Deno's own calls, so any path may import it.
 */
import { dirname } from "./posix.ts";

/**
 * `fill(tmp)` makes the new file (or link, or folder) at `tmp`, a name beside `path` (or in
 * `tmpDir`, a folder on the same filesystem); it is then renamed over `path`. A failure at any
 * step removes what `fill` left and rethrows.
 */
export function replaceAtomically(
  path: string,
  fill: (tmp: string) => void,
  tmpDir?: string,
): void {
  const name = path.slice(dirname(path).length + 1);
  const tmp = tmpDir
    ? `${tmpDir}/${name}.tmp-${Deno.pid}`
    : `${dirname(path)}/.${name}.tmp-${Deno.pid}`;
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
  { mode, sync = false, sweep = false, tmpDir }: {
    mode: number;
    sync?: boolean;
    sweep?: boolean;
    /** Where the temporary is made (see replaceAtomically); created when missing. */
    tmpDir?: string;
  },
): void {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  // `sweep`: first remove what a writer of this same file killed before its rename left (a
  // listing of the folder, so not for the hook's many-file state folder, which the pass sweeps)
  if (sweep) sweepLeftovers(dirname(path), tempOf(path.slice(dirname(path).length + 1)));
  replaceAtomically(path, (tmp) => {
    let f: Deno.FsFile;
    try {
      f = createLocked(tmp, mode);
    } catch (e) {
      if (!tmpDir || !(e instanceof Deno.errors.NotFound)) throw e;
      Deno.mkdirSync(tmpDir, { mode: 0o700 });
      f = createLocked(tmp, mode);
    }
    try {
      let off = 0;
      while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
      if (sync) f.syncSync();
    } finally {
      f.close();
    }
    Deno.chmodSync(tmp, mode);
  }, tmpDir);
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

/** Matches the temporary names replaceAtomically gives `name` (any pid's). */
export function tempOf(name: string): (n: string) => boolean {
  const prefix = `.${name}.tmp-`;
  return (n) => n.startsWith(prefix) && /^\d+$/.test(n.slice(prefix.length));
}

/** Any temporary name replaceAtomically gives, beside its target or in a `tmpDir`. */
export const anyTemp = (n: string): boolean => /\.tmp-\d+$/.test(n);

/**
 * Creates `path` (it must not exist) for writing and takes an exclusive OS lock on it at once,
 * held until the handle is closed. The lock is how a later run tells a temporary file that a
 * live writer is still filling from one a killed writer left: the OS drops a dead holder's lock.
 */
export function createLocked(path: string, mode: number): Deno.FsFile {
  const f = Deno.openSync(path, { write: true, createNew: true, mode });
  try {
    f.lockSync(true);
  } catch { /* a filesystem without locks: the file is still written, only never swept */ }
  return f;
}

/**
 * Removes the regular files in `dir` that `match` names and no live process holds locked
 * (see createLocked): what a writer killed before its rename left. Returns what it removed.
 */
export function sweepLeftovers(dir: string, match: (name: string) => boolean): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => e.isFile && match(e.name)).map((e) => e.name);
  } catch {
    return removed; // no folder yet, or not listable: nothing of ours to find
  }
  for (const n of names) {
    const p = `${dir}/${n}`;
    let f: Deno.FsFile;
    try {
      f = Deno.openSync(p, { read: true, write: true });
    } catch {
      continue;
    }
    try {
      if (!f.tryLockSync(true)) continue; // a live writer is filling it
      Deno.removeSync(p);
      removed.push(p);
    } catch {
      /* gone meanwhile, or not ours to remove */
    } finally {
      f.close();
    }
  }
  return removed;
}
