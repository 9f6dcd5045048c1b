/**
 * Placing the running program under its version and pointing the link at it.
 *
 * A compiled binary stores itself as `versions/<version>/terminus`. A source run (no
 * `deno compile` here: it needs a runtime download these machines cannot make) stores a
 * self-contained copy instead: the program's source in `versions/<version>/source-<hash>/`,
 * the npm packages it imports in a private module cache `versions/<version>/deno/`, and a
 * POSIX sh launcher as `versions/<version>/terminus` that runs that copy offline. Deleting
 * the checkout afterwards changes nothing. See docs/design/install.md.
 *
 * This module writes; what it writes is worked out in link.ts (what is at the link path),
 * source.ts (the source copy's files and packages) and bundle.ts (the bundle and launcher).
 */
import { VERSION } from "../constants.ts";
import { dirname, join } from "../posix.ts";
import { type Locations, versionFile } from "./locations.ts";
import { copyFileWithMode, makeDirs } from "./modes.ts";
import { replaceAtomically } from "../fs.ts";
import { npmDir, type SourceLayout, sourceLayout, type SourcePlan } from "./source.ts";
import { bundleCopy, installedArgv, launcherText } from "./bundle.ts";
import { linkTarget } from "./link.ts";

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
