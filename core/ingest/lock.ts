/**
 * The ingest lock: an OS try-lock on `LOCK` in the data directory. The OS releases it when
 * the holder dies, so a killed pass never leaves a stale lock behind.
 */
import { join } from "../posix.ts";
import { DIR_MODE, FILE_MODE } from "../constants.ts";
import { LOCK_FILE } from "../paths.ts";

export interface Lock {
  release(): void;
}

/** Returns null when another process holds the lock. Creates the data directory (0700). */
export function tryIngestLock(dataDir: string): Lock | null {
  Deno.mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  const f = Deno.openSync(join(dataDir, LOCK_FILE), {
    read: true,
    write: true,
    create: true,
    mode: FILE_MODE,
  });
  let got = false;
  try {
    got = f.tryLockSync(true);
  } catch {
    got = false;
  }
  if (!got) {
    f.close();
    return null;
  }
  return {
    release() {
      try {
        f.unlockSync();
      } finally {
        f.close();
      }
    },
  };
}

export function lockHeldMessage(dataDir: string): string {
  return `another Terminus process holds the ingest lock (${join(dataDir, LOCK_FILE)})`;
}
