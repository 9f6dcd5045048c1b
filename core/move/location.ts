/**
 * Recording where the data directory is: the data-location file in the config directory,
 * written whole (a temporary file renamed over it), 0600 in folders created 0700.
 */
import { join } from "../posix.ts";
import { DIR_MODE, FILE_MODE } from "../constants.ts";
import { configDir, DATA_LOCATION_FILE, type Env } from "../paths.ts";
import { syncDir } from "./copy.ts";

export function dataLocationFile(env: Env): string {
  return join(configDir(env), DATA_LOCATION_FILE);
}

/** A path the file can hold and `dataDir()` reads back unchanged (it trims the text). */
export function recordable(path: string): boolean {
  return path.startsWith("/") && path.trim() === path && !path.includes("\n");
}

/** Writes `path` as the recorded data directory and returns the file written. */
export function recordDataLocation(env: Env, path: string): string {
  const dir = configDir(env);
  Deno.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const file = join(dir, DATA_LOCATION_FILE);
  const tmp = join(dir, `.${DATA_LOCATION_FILE}.${Deno.pid}.tmp`);
  const f = Deno.openSync(tmp, { write: true, createNew: true, mode: FILE_MODE });
  try {
    const bytes = new TextEncoder().encode(path + "\n");
    let off = 0;
    while (off < bytes.length) off += f.writeSync(bytes.subarray(off));
    f.syncSync();
  } catch (e) {
    f.close();
    Deno.removeSync(tmp);
    throw e;
  }
  f.close();
  try {
    Deno.renameSync(tmp, file);
  } catch (e) {
    Deno.removeSync(tmp);
    throw e;
  }
  syncDir(dir);
  return file;
}
