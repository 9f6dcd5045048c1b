/**
 * The ingest lock: an OS try-lock on `LOCK` in the data directory. The OS releases it when
 * the holder dies, so a killed pass never leaves a stale lock behind.
 */
import { join } from "../posix.ts";
import { DIR_MODE, FILE_MODE } from "../constants.ts";
import { LOCK_FILE } from "../paths.ts";
import { closeWrite, type Db, openWrite } from "./db.ts";

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

/** What `withIngestLock` returns when another process holds the lock: nothing was run. */
export const LOCK_HELD: unique symbol = Symbol("the ingest lock is held");

/**
 * Every writer takes the ingest lock here: `fn` runs holding it and it is released however
 * `fn` ends. Returns LOCK_HELD, having run nothing, when another process holds it.
 */
export async function withIngestLock<T>(
  dataDir: string,
  fn: () => T | Promise<T>,
): Promise<T | typeof LOCK_HELD> {
  const lock = tryIngestLock(dataDir);
  if (!lock) return LOCK_HELD;
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

/** The store opened for writing under the ingest lock, closed and released when `fn` ends. */
export function withLockedStore<T>(
  dataDir: string,
  store: string,
  fn: (db: Db) => T | Promise<T>,
): Promise<T | typeof LOCK_HELD> {
  return withIngestLock(dataDir, async () => {
    const { db } = openWrite(store);
    try {
      return await fn(db);
    } finally {
      closeWrite(db);
    }
  });
}
