/**
 * What sits at the link path (a Terminus build, a link into the versions folder, something
 * else) and which program is running: what install, uninstall and doctor look at first.
 */
import { BUILD_MARKER } from "../constants.ts";
import { covers } from "../paths.ts";
import { dirname, isAbsolute, resolve } from "../posix.ts";
import type { Locations } from "./locations.ts";

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
export function linkTarget(link: string): string {
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
