/**
 * Where things live: the config directory, the data directory, the transcript roots.
 * Pure resolution; nothing here creates a file or a folder.
 */
import { isAbsolute, join, resolve } from "./posix.ts";
import { PathError } from "./errors.ts";

export type Env = (name: string) => string | undefined;

/** The process environment, with the spec's rule that an empty value counts as unset. */
export const processEnv: Env = (name) => {
  const v = Deno.env.get(name);
  return v === undefined || v === "" ? undefined : v;
};

export function home(env: Env): string {
  const h = env("HOME");
  if (!h) throw new PathError("HOME is not set, so no default path can be resolved");
  return h;
}

export function configDir(env: Env): string {
  const explicit = env("TERMINUS_CONFIG_DIR");
  if (explicit) return explicit;
  const xdg = env("XDG_CONFIG_HOME");
  if (xdg) return join(xdg, "terminus");
  return join(home(env), ".config", "terminus");
}

export const CONFIG_FILE = "terminus.toml";
export const DATA_LOCATION_FILE = "data-location";
export const STORE_FILE = "terminus.db";
export const LOCK_FILE = "LOCK";
/** When a hook last started a detached pass (see core/ingest/gate.ts). */
export const PASS_STAMP_FILE = "PASS_STARTED";
/** Made when a hook first starts a pass after the last finished one; a finished pass removes it. */
export const PASS_WANTED_FILE = "PASS_WANTED";
export const SNAPSHOT_DIR = "snapshots";
export const STATE_DIR = "state";
/** Inside STATE_DIR: where a state file is written before it is renamed into place. */
export const TEMP_DIR = ".tmp";
export const QUEUE_DIR = "queue";

export function configFile(env: Env): string {
  return join(configDir(env), CONFIG_FILE);
}

export function platformDataDir(env: Env): string {
  if (Deno.build.os === "darwin") {
    return join(home(env), "Library", "Application Support", "terminus");
  }
  const xdg = env("XDG_DATA_HOME");
  if (xdg) return join(xdg, "terminus");
  return join(home(env), ".local", "share", "terminus");
}

/**
 * TERMINUS_DATA_DIR, else the location `data move` recorded, else the platform default.
 * A recorded location that is relative, or a file that exists and cannot be read, is an
 * error rather than a silent fall back to the default.
 */
export function dataDir(env: Env): string {
  const explicit = env("TERMINUS_DATA_DIR");
  if (explicit) return resolve(explicit);
  const locationFile = join(configDir(env), DATA_LOCATION_FILE);
  let recorded: string | undefined;
  try {
    recorded = Deno.readTextFileSync(locationFile).trim();
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) {
      throw new PathError(`${locationFile} cannot be read: ${(e as Error).message}`);
    }
  }
  if (recorded !== undefined) {
    if (!isAbsolute(recorded)) {
      throw new PathError(
        `${locationFile} records a relative path (${recorded}); it must be absolute`,
      );
    }
    return recorded;
  }
  return platformDataDir(env);
}

export function storePath(dir: string): string {
  return join(dir, STORE_FILE);
}

/** The roots from the config, else CLAUDE_CONFIG_DIR, else ~/.claude. */
export function transcriptRoots(configured: string[], env: Env): string[] {
  if (configured.length > 0) return configured;
  const claude = env("CLAUDE_CONFIG_DIR");
  if (claude) return [claude];
  return [join(home(env), ".claude")];
}

/** Expands a leading `~`, resolves `..`, drops a trailing `/`. Returns undefined if not absolute. */
export function normaliseUserPath(p: string, env: Env): string | undefined {
  let s = p;
  if (s === "~" || s.startsWith("~/")) {
    const h = env("HOME");
    if (!h) return undefined;
    s = h + s.slice(1);
  }
  if (!isAbsolute(s)) return undefined;
  return resolve(s);
}

/** True when `path` is `dir` or lies below it (`/a/b` covers `/a/b/c`, not `/a/bc`). */
export function covers(dir: string, path: string): boolean {
  if (path === dir) return true;
  const prefix = dir.endsWith("/") ? dir : dir + "/";
  return path.startsWith(prefix);
}
