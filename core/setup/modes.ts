/**
 * Modes for what install places, whatever the umask. A recursive mkdir asks for 0777 and
 * lets the umask narrow it, so under umask 000 the folders holding the code the hooks run
 * came out world-writable; a copied file keeps whatever mode it had in the cache.
 */
import { dirname } from "../posix.ts";

export const DIR_MODE = 0o755;
export const FILE_MODE = 0o644;
export const EXEC_MODE = 0o755;

/** Creates `dir` and each missing parent with exactly `mode`; folders already there keep theirs. */
export function makeDirs(dir: string, mode = DIR_MODE): void {
  const missing: string[] = [];
  for (let p = dir;; p = dirname(p)) {
    try {
      if (Deno.statSync(p).isDirectory) break;
      throw new Deno.errors.AlreadyExists(`${p} is not a folder`);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    missing.push(p);
    if (dirname(p) === p) break;
  }
  for (const p of missing.reverse()) {
    try {
      Deno.mkdirSync(p, { mode });
    } catch (e) {
      if (e instanceof Deno.errors.AlreadyExists && Deno.statSync(p).isDirectory) continue;
      throw e;
    }
    Deno.chmodSync(p, mode);
  }
}

/** Copies a file, then sets 0755 when the source is executable by anyone, else 0644. */
export function copyFileWithMode(from: string, to: string): void {
  Deno.copyFileSync(from, to);
  const m = Deno.statSync(from).mode ?? 0;
  Deno.chmodSync(to, m & 0o111 ? EXEC_MODE : FILE_MODE);
}
