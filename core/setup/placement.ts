/**
 * Placing the running program under its version and pointing the link at it.
 *
 * A compiled binary stores itself as `versions/<version>/terminus`. A source run (no
 * `deno compile` here: it needs a runtime download these machines cannot make) stores a
 * self-contained copy instead: the program's source in `versions/<version>/source-<hash>/`,
 * the npm packages it imports in a private module cache `versions/<version>/deno/`, and a
 * POSIX sh launcher as `versions/<version>/terminus` that runs that copy offline. Deleting
 * the checkout afterwards changes nothing. See docs/design/install.md.
 */
import { BUILD_MARKER, VERSION } from "../constants.ts";
import type { Env } from "../paths.ts";
import { basename, dirname, isAbsolute, join, resolve } from "../posix.ts";
import { covers } from "../paths.ts";
import { permissionFlags, runtimePath } from "../context.ts";
import { type Locations, shellWord, versionFile } from "./locations.ts";
import { copyFileWithMode, FILE_MODE, makeDirs } from "./modes.ts";
import { replaceAtomically } from "../fs.ts";
import { concat } from "../bytes.ts";

/* ---------- what sits at the link path ---------- */

export type LinkState =
  | { kind: "absent" }
  /** A symlink into the versions folder (it may name a version that is gone). */
  | { kind: "link"; target: string }
  /** A regular file that is a Terminus build (it carries the marker). */
  | { kind: "build" }
  /** Anything else: install refuses to touch it, uninstall leaves it. */
  | { kind: "foreign"; what: string };

const encoder = new TextEncoder();
const MARKER = encoder.encode(BUILD_MARKER);

function indexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(first, from); i !== -1 && i <= last; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** Whether a file holds the build marker, read in chunks so a large binary is no burden. */
export function hasBuildMarker(path: string): boolean {
  const f = Deno.openSync(path, { read: true });
  try {
    const chunk = new Uint8Array(1 << 20);
    let carry = new Uint8Array(0);
    while (true) {
      const n = f.readSync(chunk);
      if (n === null) return false;
      const buf = new Uint8Array(carry.length + n);
      buf.set(carry);
      buf.set(chunk.subarray(0, n), carry.length);
      if (indexOf(buf, MARKER) !== -1) return true;
      carry = buf.slice(Math.max(0, buf.length - (MARKER.length - 1)));
    }
  } finally {
    f.close();
  }
}

/** Reads a symlink's target as an absolute, normalised path. */
function linkTarget(link: string): string {
  const t = Deno.readLinkSync(link);
  return isAbsolute(t) ? resolve(t) : resolve(dirname(link), t);
}

export function examineLink(loc: Locations): LinkState {
  let st: Deno.FileInfo;
  try {
    st = Deno.lstatSync(loc.link);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return { kind: "absent" };
    return { kind: "foreign", what: `something that cannot be examined (${(e as Error).message})` };
  }
  if (st.isSymlink) {
    const target = linkTarget(loc.link);
    if (!covers(loc.versionsDir, target) || target === loc.versionsDir) {
      return { kind: "foreign", what: `a link to ${target}, outside ${loc.versionsDir}` };
    }
    try {
      if (Deno.statSync(loc.link).isDirectory) {
        return { kind: "foreign", what: `a link to the folder ${target}` };
      }
    } catch { /* a link to nothing inside the versions folder is ours */ }
    return { kind: "link", target };
  }
  if (st.isDirectory) return { kind: "foreign", what: "a folder" };
  if (!st.isFile) return { kind: "foreign", what: "neither a file nor a link" };
  try {
    if (hasBuildMarker(loc.link)) return { kind: "build" };
  } catch (e) {
    return { kind: "foreign", what: `a file that cannot be read (${(e as Error).message})` };
  }
  return { kind: "foreign", what: "a file that is not a Terminus build" };
}

/** The version a link into the versions folder names: `versions/<version>/terminus`. */
export function linkedVersion(loc: Locations, target: string): string | null {
  if (!covers(loc.versionsDir, target)) return null;
  const rest = target.slice(loc.versionsDir.length + 1).split("/");
  return rest.length === 2 && rest[1] === "terminus" ? rest[0] : null;
}

/* ---------- what is running ---------- */

export type Program =
  /** A `deno compile` binary. */
  | { kind: "compiled"; self: string }
  /** The source copy a source install placed, run through its launcher. */
  | { kind: "installed"; versionDir: string; sourceDir: string }
  /** A checkout: `deno task install`. */
  | { kind: "checkout"; root: string };

export function runningProgram(loc: Locations): Program {
  if (Deno.build.standalone) return { kind: "compiled", self: Deno.execPath() };
  const main = new URL(Deno.mainModule).pathname;
  const root = dirname(decodeURIComponent(main));
  if (covers(loc.versionsDir, root)) {
    return { kind: "installed", versionDir: dirname(root), sourceDir: root };
  }
  return { kind: "checkout", root };
}

/* ---------- the source copy ---------- */

/** The parts of a checkout the program needs, and nothing else (no tests, docs, bench). */
export const SOURCE_FILES = ["mod.ts", "io.ts", "deno.json", "deno.lock"];
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

function walkFiles(root: string, rel: string, out: string[]): void {
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

function npmDir(dir: string, p: NpmPackage, folder: string): string {
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

/**
 * The argv that runs the installed copy, offline, with the program's own permissions. A bundle
 * holds its npm packages and imports nothing else but the runtime's own modules, so it runs
 * with no config at all (reading deno.json and the lock costs a start about 1 ms); the source
 * needs the copy's import map and lock, and the module cache beside it.
 */
export function installedArgv(deno: string, sourceDir: string): string[] {
  if (bundled(sourceDir)) {
    return [deno, "run", "--no-config", ...permissionFlags(deno), join(sourceDir, BUNDLE_ENTRY)];
  }
  return [
    deno,
    "run",
    "--cached-only",
    "--frozen",
    "--config",
    join(sourceDir, "deno.json"),
    ...permissionFlags(deno),
    join(sourceDir, "mod.ts"),
  ];
}

/* ---------- the bundle ---------- */

/** The bundle's entry, beside mod.ts in the copy; its presence is what says the copy is bundled. */
export const BUNDLE_ENTRY = "mod.js";
/** The derive worker's entry, bundled at its source path (core/ingest/deriver.ts looks there). */
const WORKER_SOURCE = "core/ingest/derive_worker.ts";

export function bundled(sourceDir: string): boolean {
  try {
    return Deno.statSync(join(sourceDir, BUNDLE_ENTRY)).isFile;
  } catch {
    return false;
  }
}

/**
 * Whether the bundler is in the module cache: `deno bundle` fetches esbuild on first use and
 * keeps it in DENO_DIR/dl. Terminus opens no connection, so it bundles only with the bundler
 * already there (`deno task install` runs a bundle first, which fetches it).
 */
function bundlerCached(cache: string): boolean {
  try {
    for (const e of Deno.readDirSync(join(cache, "dl"))) {
      if (e.isDirectory && e.name.startsWith("esbuild-")) return true;
    }
  } catch { /* no downloads kept */ }
  return false;
}

/**
 * Bundles the copy in `dir` in place with `deno bundle` (code split: the program's entry
 * `mod.js`, one chunk per command, shared chunks; npm packages inside, `node:` modules left to
 * the runtime). A command then loads a few files instead of some forty modules and their npm
 * resolution: about 4 ms of every start. It is built in a folder of its own and moved in only
 * whole, so a failure leaves the copy as it was, run from its source. Returns why it was not
 * bundled, or null.
 */
function bundleCopy(plan: SourcePlan, dir: string): string | null {
  if (!bundlerCached(plan.cache)) {
    return `no bundler in ${plan.cache} (deno task install fetches it)`;
  }
  const out = join(dir, ".bundle");
  try {
    const r = new Deno.Command(runtimePath(), {
      args: [
        "bundle",
        "--quiet",
        "--frozen",
        "--config",
        join(dir, "deno.json"),
        "--platform",
        "deno",
        "--code-splitting",
        "--outdir",
        out,
        join(dir, "mod.ts"),
        join(dir, WORKER_SOURCE),
      ],
      env: {
        DENO_DIR: plan.cache,
        DENO_NO_UPDATE_CHECK: "1",
        NPM_CONFIG_REGISTRY: plan.registry.url,
        NO_COLOR: "1",
      },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    const worker = WORKER_SOURCE.replace(/\.ts$/, ".js");
    if (r.code !== 0 || !isFile(join(out, BUNDLE_ENTRY)) || !isFile(join(out, worker))) {
      const why = new TextDecoder().decode(r.stderr).trim();
      return `deno bundle failed: ${why.split("\n")[0] || `exit ${r.code}`}`;
    }
    const moved: string[] = [];
    walkFiles(out, ".", moved);
    // the entry goes last: until it is there, the copy is the plain source copy
    moved.sort((a, b) =>
      (a.endsWith(`/${BUNDLE_ENTRY}`) ? 1 : 0) - (b.endsWith(`/${BUNDLE_ENTRY}`) ? 1 : 0)
    );
    for (const f of moved) {
      makeDirs(dirname(join(dir, f)));
      Deno.renameSync(join(out, f), join(dir, f));
      Deno.chmodSync(join(dir, f), FILE_MODE); // the bundler's files carry the umask's mode
    }
    return null;
  } catch (e) {
    return `deno bundle could not run: ${(e as Error).message}`;
  } finally {
    try {
      Deno.removeSync(out, { recursive: true });
    } catch { /* never made */ }
  }
}

function isFile(p: string): boolean {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
}

const RUNTIME_WORD = "\0runtime\0";

/**
 * The launcher: the runtime recorded at install, else whichever `deno` is on PATH when it
 * runs (moving or upgrading Deno must not break every hook); with neither, one line naming
 * both, and exit 1.
 */
export function launcherText(deno: string, layout: SourceLayout, registry: string): string {
  const argv = installedArgv(RUNTIME_WORD, layout.sourceDir).map((a) =>
    a === RUNTIME_WORD
      ? '"$deno"'
      : a.endsWith(RUNTIME_WORD)
      ? `${shellWord(a.slice(0, -RUNTIME_WORD.length))}"$deno"`
      : shellWord(a)
  ).join(" ");
  const missing =
    `terminus: no Deno runtime: ${deno} (where it was at install) is gone and no deno is on PATH; put Deno ${Deno.version.deno} on PATH, then run terminus again`;
  return [
    "#!/bin/sh",
    `# Terminus ${VERSION}, installed from source by terminus install. ${BUILD_MARKER}`,
    `# It runs the copy in ${basename(layout.sourceDir)} offline, from the module cache beside it.`,
    `deno=${shellWord(deno)}`,
    'if [ ! -x "$deno" ]; then',
    "  deno=$(command -v deno 2>/dev/null) || deno=",
    '  if [ -z "$deno" ]; then',
    `    printf '%s\\n' ${shellWord(missing)} >&2`,
    "    exit 1",
    "  fi",
    "fi",
    `DENO_DIR=${shellWord(layout.denoDir)}`,
    "DENO_NO_UPDATE_CHECK=1",
    `NPM_CONFIG_REGISTRY=${shellWord(registry)}`,
    "export DENO_DIR DENO_NO_UPDATE_CHECK NPM_CONFIG_REGISTRY",
    `exec ${argv} "$@"`,
    "",
  ].join("\n");
}

function shellWords(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]
  );
}

/** Reads the runtime recorded in a launcher and the entry it runs, for doctor. */
export function launcherNames(text: string): { deno: string; main: string } | null {
  const lines = text.split("\n");
  const rec = lines.find((l) => l.startsWith("deno="));
  const exec = lines.find((l) => l.startsWith("exec "));
  if (!rec || !exec) return null;
  const deno = shellWords(rec.slice("deno=".length))[0];
  const main = shellWords(exec).find((w) =>
    w.endsWith("/mod.ts") || w.endsWith(`/${BUNDLE_ENTRY}`)
  );
  return deno && main ? { deno, main } : null;
}

/* ---------- writing ---------- */

/**
 * Copies a package folder out of the module cache: real copies, not hard links, so that
 * nothing done to the cache later (an edit for debugging, a clean) reaches the installed copy.
 */
function copyTree(from: string, to: string): void {
  makeDirs(to);
  for (const e of Deno.readDirSync(from)) {
    const a = join(from, e.name);
    const b = join(to, e.name);
    if (e.isSymlink) Deno.symlinkSync(Deno.readLinkSync(a), b);
    else if (e.isDirectory) copyTree(a, b);
    else if (e.isFile) copyFileWithMode(a, b);
  }
}

/** Builds `dest` beside itself and renames it into place, so a half-copied folder never shows. */
function placeTree(dest: string, fill: (tmp: string) => void): boolean {
  if (existsDir(dest)) return false;
  try {
    replaceAtomically(dest, fill);
  } catch (e) {
    if (existsDir(dest)) return false; // another install placed it first
    throw e;
  }
  return true;
}

function existsDir(p: string): boolean {
  try {
    return Deno.statSync(p).isDirectory;
  } catch {
    return false;
  }
}

function sameText(path: string, text: string): boolean {
  try {
    return Deno.readTextFileSync(path) === text;
  } catch {
    return false;
  }
}

function sameBytes(a: string, b: string): boolean {
  try {
    const sa = Deno.statSync(a);
    const sb = Deno.statSync(b);
    if (sa.size !== sb.size) return false;
    const fa = Deno.openSync(a);
    const fb = Deno.openSync(b);
    try {
      const ba = new Uint8Array(1 << 20);
      const bb = new Uint8Array(1 << 20);
      while (true) {
        const na = fa.readSync(ba);
        if (na === null) return true;
        let got = 0;
        while (got < na) {
          const nb = fb.readSync(bb.subarray(got, na));
          if (nb === null) return false;
          got += nb;
        }
        for (let i = 0; i < na; i++) if (ba[i] !== bb[i]) return false;
      }
    } finally {
      fa.close();
      fb.close();
    }
  } catch {
    return false;
  }
}

/** Writes an executable file through a temp file and a rename: a running copy keeps the old one. */
function placeExecutable(path: string, write: (tmp: string) => void): void {
  makeDirs(dirname(path));
  replaceAtomically(path, (tmp) => {
    write(tmp);
    Deno.chmodSync(tmp, 0o755);
  });
}

export interface Placed {
  /** versions/<version>/terminus */
  versionFile: string;
  /** Whether that file (or the copy behind it) was written on this run. */
  wroteVersion: boolean;
  /** For a source install: the folders behind the launcher. */
  source: SourceLayout | null;
  /** How the running program can run the placed one, for the detached backfill. */
  argv: string[] | null;
  env: Record<string, string>;
  /** A source copy placed now and run from its source, not bundled: why. */
  unbundled?: string;
}

export function placeCompiled(loc: Locations, self: string): Placed {
  const target = versionFile(loc, VERSION);
  let same = false;
  try {
    same = Deno.realPathSync(target) === Deno.realPathSync(self) || sameBytes(target, self);
  } catch { /* not there yet */ }
  if (!same) {
    try {
      if (Deno.lstatSync(target).isDirectory) {
        throw new Error(`${target} is a folder, so the binary cannot be stored there`);
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    placeExecutable(target, (tmp) => Deno.copyFileSync(self, tmp));
  }
  return { versionFile: target, wroteVersion: !same, source: null, argv: null, env: {} };
}

export function placeSource(loc: Locations, plan: SourcePlan): Placed {
  const layout = sourceLayout(loc, plan.hash);
  let unbundled: string | null = null;
  let wrote = placeTree(layout.sourceDir, (tmp) => {
    for (const f of plan.files) {
      makeDirs(dirname(join(tmp, f)));
      copyFileWithMode(join(plan.root, f), join(tmp, f));
    }
    unbundled = bundleCopy(plan, tmp);
  });
  for (const p of plan.packages) {
    const dest = npmDir(layout.denoDir, p, plan.registry.folder);
    makeDirs(dirname(dest));
    const from = plan.sources.get(`${p.name}@${p.version}`)!;
    if (placeTree(dest, (tmp) => copyTree(from, tmp))) wrote = true;
  }
  const text = launcherText(plan.deno, layout, plan.registry.url);
  if (!sameText(layout.launcher, text)) {
    placeExecutable(layout.launcher, (tmp) => Deno.writeTextFileSync(tmp, text, { mode: 0o755 }));
    wrote = true;
  }
  return {
    versionFile: layout.launcher,
    wroteVersion: wrote,
    source: layout,
    argv: installedArgv(plan.deno, layout.sourceDir),
    env: {
      DENO_DIR: layout.denoDir,
      DENO_NO_UPDATE_CHECK: "1",
      NPM_CONFIG_REGISTRY: plan.registry.url,
    },
    ...(unbundled !== null ? { unbundled } : {}),
  };
}

/** Already running the installed copy: nothing to store, only the link to check. */
export function placeInstalled(program: { versionDir: string }): Placed {
  const launcher = join(program.versionDir, "terminus");
  try {
    Deno.statSync(launcher);
  } catch {
    throw new Error(
      `${launcher} is missing; run terminus install from a checkout or a release binary`,
    );
  }
  return { versionFile: launcher, wroteVersion: false, source: null, argv: null, env: {} };
}

/** Points the link at `target` (atomically, through a temp link and a rename). */
export function placeLink(loc: Locations, target: string): { wrote: boolean; was: string | null } {
  let was: string | null = null;
  try {
    if (Deno.lstatSync(loc.link).isSymlink) {
      was = linkTarget(loc.link);
      if (was === target) return { wrote: false, was };
    }
  } catch { /* nothing there */ }
  makeDirs(dirname(loc.link));
  replaceAtomically(loc.link, (tmp) => Deno.symlinkSync(target, tmp));
  return { wrote: true, was };
}
