/**
 * The source copy a source install places: which files of the checkout, which npm packages
 * from the module cache, and where each goes under versions/<version>/.
 */
import { VERSION } from "../constants.ts";
import type { Env } from "../paths.ts";
import { join, resolve } from "../posix.ts";
import { type Locations, versionFile } from "./locations.ts";
import { concat } from "../bytes.ts";

const encoder = new TextEncoder();

/** The parts of a checkout the program needs, and nothing else (no tests, docs, bench). */
export const SOURCE_FILES = [
  "mod.ts",
  "hook.ts",
  "search.ts",
  "ingest.ts",
  "command_run.ts",
  "deliver.ts",
  "io.ts",
  "deno.json",
  "deno.lock",
];
export const SOURCE_DIRS = ["commands", "core", "hooks", "mcp"];

export interface NpmPackage {
  name: string;
  version: string;
}

export interface SourcePlan {
  root: string;
  /** Relative paths of every file copied, sorted. */
  files: string[];
  hash: string;
  packages: NpmPackage[];
  /** Where each package (`name@version`) is copied from. */
  sources: Map<string, string>;
  /** The runtime the launcher names, by full path. */
  deno: string;
  registry: Registry;
  /** The module cache the packages are copied from, where the bundler is looked for too. */
  cache: string;
}

export function walkFiles(root: string, rel: string, out: string[]): void {
  for (const e of Deno.readDirSync(join(root, rel))) {
    const r = `${rel}/${e.name}`;
    if (e.isDirectory) walkFiles(root, r, out);
    else if (e.isFile) out.push(r);
  }
}

/** The runtime's module cache: DENO_DIR, else the platform's cache folder. */
export function denoDir(env: Env): string {
  const set = env("DENO_DIR");
  if (set) return resolve(set);
  const h = env("HOME") ?? "/";
  if (Deno.build.os === "darwin") return join(h, "Library", "Caches", "deno");
  const xdg = env("XDG_CACHE_HOME");
  return join(xdg ?? join(h, ".cache"), "deno");
}

/** `name@version[_peer@version...]` as deno.lock keys its npm section. */
export function parseLockKey(key: string): NpmPackage {
  const at = key.indexOf("@", key.startsWith("@") ? 1 : 0);
  const name = key.slice(0, at);
  const version = key.slice(at + 1).split("_")[0];
  return { name, version };
}

export function npmPackages(lockText: string, lockPath: string): NpmPackage[] {
  let lock: Record<string, unknown>;
  try {
    lock = JSON.parse(lockText);
  } catch {
    throw new Error(`${lockPath} is not JSON, so the packages the program needs are not known`);
  }
  for (const k of ["jsr", "remote"]) {
    if (lock[k] && Object.keys(lock[k] as object).length) {
      throw new Error(
        `${lockPath} lists ${k} modules; a source install copies npm packages only (see docs/design/install.md)`,
      );
    }
  }
  const seen = new Map<string, NpmPackage>();
  for (const key of Object.keys((lock.npm ?? {}) as object)) {
    const p = parseLockKey(key);
    seen.set(`${p.name}@${p.version}`, p);
  }
  return [...seen.values()].sort((a, b) =>
    a.name === b.name ? (a.version < b.version ? -1 : 1) : a.name < b.name ? -1 : 1
  );
}

/**
 * The registry the copy's packages are filed under: the runtime's cache keeps each registry's
 * packages in a folder named after it. The launcher pins that registry, so an
 * NPM_CONFIG_REGISTRY or .npmrc naming another one cannot send the runtime to look elsewhere.
 */
export interface Registry {
  url: string;
  folder: string;
}

export function npmDir(dir: string, p: NpmPackage, folder: string): string {
  return join(dir, "npm", folder, p.name, p.version);
}

/** The registry URL a cache folder stands for (`host_port/path` -> `https://host:port/path/`). */
export function registryUrl(folder: string): string {
  const [first, ...rest] = folder.split("/");
  const host = first.replace(/_(\d+)$/, ":$1");
  return `https://${[host, ...rest].join("/")}/`;
}

/** The registry the module cache holds the program's packages under. */
function cachedRegistry(
  from: string,
  packages: NpmPackage[],
  mirror: string | undefined,
): Registry {
  if (mirror) {
    const folder = registryFolder(mirror);
    if (folder) return { url: mirror.endsWith("/") ? mirror : mirror + "/", folder };
  }
  let folders: string[] = [];
  try {
    folders = [...Deno.readDirSync(join(from, "npm"))].filter((e) => e.isDirectory).map((e) =>
      e.name
    )
      .sort();
  } catch { /* no npm cache at all: reported as missing packages below */ }
  const holds = (f: string) => {
    try {
      return packages.length > 0 && Deno.statSync(npmDir(from, packages[0], f)).isDirectory;
    } catch {
      return false;
    }
  };
  const folder = folders.find(holds) ?? folders[0] ?? "";
  return { url: folder ? registryUrl(folder) : "", folder };
}

/** The cache folder Deno files a registry's packages under: host, `_port`, then the path. */
export function registryFolder(url: string): string | null {
  try {
    const u = new URL(url);
    const path = u.pathname.split("/").filter((x) => x !== "").join("/");
    return (u.port ? `${u.hostname}_${u.port}` : u.hostname) + (path ? `/${path}` : "");
  } catch {
    return null;
  }
}

/** Everything a source install will copy, checked before anything is written. */
export async function planSource(root: string, env: Env): Promise<SourcePlan> {
  const files: string[] = [];
  for (const f of SOURCE_FILES) {
    try {
      if (!Deno.statSync(join(root, f)).isFile) throw new Error();
    } catch {
      throw new Error(`${join(root, f)} is missing, so ${root} is not a whole Terminus checkout`);
    }
    files.push(f);
  }
  for (const d of SOURCE_DIRS) walkFiles(root, d, files);
  files.sort();
  const parts: Uint8Array[] = [];
  for (const f of files) {
    const b = Deno.readFileSync(join(root, f));
    parts.push(encoder.encode(`${f}\0${b.length}\0`), b);
  }
  const digest = await crypto.subtle.digest("SHA-256", concat(parts));
  const hash = new Uint8Array(digest).toHex().slice(0, 16);
  const lockPath = join(root, "deno.lock");
  const packages = npmPackages(Deno.readTextFileSync(lockPath), lockPath);
  const from = denoDir(env);
  const registry = cachedRegistry(from, packages, env("NPM_CONFIG_REGISTRY"));
  const sources = new Map<string, string>();
  const missing = packages.filter((p) => {
    const d = npmDir(from, p, registry.folder);
    try {
      if (registry.folder && Deno.statSync(d).isDirectory) {
        sources.set(`${p.name}@${p.version}`, d);
        return false;
      }
    } catch { /* missing */ }
    return true;
  });
  if (missing.length) {
    throw new Error(
      `the module cache ${from} lacks ${missing.length} npm package(s) the program needs (${
        missing.slice(0, 3).map((p) => `${p.name}@${p.version}`).join(", ")
      }${
        missing.length > 3 ? ", ..." : ""
      }); run deno task install once with network access, or set DENO_DIR to the cache that holds them`,
    );
  }
  return { root, files, hash, packages, sources, deno: Deno.execPath(), registry, cache: from };
}

export interface SourceLayout {
  versionDir: string;
  sourceDir: string;
  denoDir: string;
  launcher: string;
}

export function sourceLayout(loc: Locations, hash: string): SourceLayout {
  const versionDir = join(loc.versionsDir, VERSION);
  return {
    versionDir,
    sourceDir: join(versionDir, `source-${hash}`),
    denoDir: join(versionDir, "deno"),
    launcher: versionFile(loc, VERSION),
  };
}
