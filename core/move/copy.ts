/**
 * Copying the data directory for `data move`: folders created 0700 and files 0600 in the
 * call that creates them, every file synced. Anything other than a file or a folder stops
 * the copy, because the data directory holds nothing else.
 */
import { syncDir } from "../fs.ts";
import { MOVE_STAGING } from "./target.ts";
import { join } from "../posix.ts";
import { DIR_MODE, FILE_MODE } from "../constants.ts";
import type { Progress } from "../progress.ts";

const CHUNK = 1024 * 1024;

/** Total bytes of the regular files below `dir`, links not followed. */
export function dirSize(dir: string): number {
  let total = 0;
  for (const ent of Deno.readDirSync(dir)) {
    const p = join(dir, ent.name);
    const info = Deno.lstatSync(p);
    if (info.isDirectory) total += dirSize(p);
    else if (info.isFile) total += info.size;
  }
  return total;
}

function copyFile(from: string, to: string, progress?: Progress): number {
  const src = Deno.openSync(from, { read: true });
  try {
    const dst = Deno.openSync(to, { write: true, createNew: true, mode: FILE_MODE });
    try {
      const buf = new Uint8Array(CHUNK);
      let total = 0;
      while (true) {
        const n = src.readSync(buf);
        if (n === null || n === 0) break;
        let off = 0;
        while (off < n) off += dst.writeSync(buf.subarray(off, n));
        total += n;
        progress?.add(n);
      }
      dst.syncSync();
      return total;
    } finally {
      dst.close();
    }
  } finally {
    src.close();
  }
}

/** Copies the contents of `from` into the existing, empty folder `to`. Returns bytes copied. */
export function copyTree(from: string, to: string, progress?: Progress): number {
  let total = 0;
  const entries = [...Deno.readDirSync(from)].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const ent of entries) {
    if (ent.name === MOVE_STAGING) continue; // an emptied staging folder a killed move left
    const src = join(from, ent.name);
    const dst = join(to, ent.name);
    const info = Deno.lstatSync(src);
    if (info.isDirectory) {
      Deno.mkdirSync(dst, { mode: DIR_MODE });
      total += copyTree(src, dst, progress);
    } else if (info.isFile) {
      total += copyFile(src, dst, progress);
    } else {
      throw new Error(`${src} is neither a file nor a folder, so it cannot be copied`);
    }
  }
  syncDir(to);
  return total;
}

/**
 * Copies `from` into `staging` (created 0700 inside `target`), then renames each entry into
 * `target`, leaving `staging` empty for the caller to remove once the move is recorded. A move
 * stopped part way leaves only `staging` and entries already complete, never a half-written
 * file under a real name.
 */
export function copyStaged(
  from: string,
  target: string,
  staging: string,
  progress?: Progress,
): number {
  Deno.mkdirSync(staging, { mode: DIR_MODE });
  const total = copyTree(from, staging, progress);
  for (const ent of [...Deno.readDirSync(staging)]) {
    Deno.renameSync(join(staging, ent.name), join(target, ent.name));
  }
  syncDir(target);
  // `staging`, empty now, stays until the caller has recorded the new location: a move killed
  // before then leaves it, and the next move to the same place knows the copy for its own
  return total;
}
