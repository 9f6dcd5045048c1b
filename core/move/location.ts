/**
 * Recording where the data directory is: the data-location file in the config directory,
 * written whole (a temporary file renamed over it), 0600 in folders created 0700.
 */
import { join } from "../posix.ts";
import { DIR_MODE, FILE_MODE } from "../constants.ts";
import { configDir, DATA_LOCATION_FILE, type Env } from "../paths.ts";
import { writeFileAtomic } from "../fs.ts";

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
  writeFileAtomic(file, path + "\n", { mode: FILE_MODE, sync: true, sweep: true });
  return file;
}
