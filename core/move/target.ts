/**
 * `terminus data move`: what the new location may be. The path is made absolute with its
 * `.` parts and trailing slashes dropped, then checked as the spec lists: not the data
 * directory or anything inside it, and either absent or an empty folder of the user's own
 * with no group or world bits. A probe taken before the question is compared with one taken
 * after it, so a path created, removed, replaced or changed meanwhile is refused.
 */
import { basename, dirname, isAbsolute, join, normalize } from "../posix.ts";
import { covers } from "../paths.ts";

/** Drops `.` parts, repeated and trailing slashes; a relative path is taken from `cwd`. */
export function normalizeTarget(raw: string, cwd: string): string {
  return normalize(isAbsolute(raw) ? raw : `${cwd}/${raw}`);
}

/** The fields that change when a folder is replaced (dev, ino) or changed (the rest). */
export interface Identity {
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  nlink: number;
  mtimeMs: number;
  ctimeMs: number;
}

export type Probe =
  | { ok: true; kind: "absent"; identity: null }
  | { ok: true; kind: "empty"; identity: Identity }
  /** What a move stopped part way left here: its staging folder and finished entries. */
  | { ok: true; kind: "leftover"; identity: Identity }
  | { ok: false; reason: string };

/** The folder inside the target a move copies into before renaming the entries into place. */
export const MOVE_STAGING = ".terminus-move.partial";

/** A path for a shell command line: left bare when it needs no quoting. */
export function shellWord(p: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(p) ? p : `'${p.replaceAll("'", `'\\''`)}'`;
}

function identityOf(info: Deno.FileInfo): Identity {
  return {
    dev: info.dev,
    ino: info.ino ?? 0,
    mode: info.mode ?? 0,
    uid: info.uid ?? -1,
    gid: info.gid ?? -1,
    nlink: info.nlink ?? 0,
    mtimeMs: info.mtime?.getTime() ?? 0,
    ctimeMs: info.ctime?.getTime() ?? 0,
  };
}

/** The realpath of `p`'s nearest existing ancestor, with the missing parts put back. */
export function canonical(p: string): string {
  const missing: string[] = [];
  let at = p;
  while (true) {
    try {
      const real = Deno.realPathSync(at);
      return missing.length ? join(real, ...missing.reverse()) : real;
    } catch {
      if (at === "/") return p;
      missing.push(basename(at));
      at = dirname(at);
    }
  }
}

/** The nearest ancestor of `p` that exists (following links), or "/" . */
export function nearestExisting(p: string): string {
  let at = dirname(p);
  while (at !== "/") {
    try {
      Deno.statSync(at);
      return at;
    } catch {
      at = dirname(at);
    }
  }
  return "/";
}

/** Refuses the data directory itself and any path inside it, literally or through links. */
export function insideDataDir(target: string, dataDir: string): string | null {
  const pairs: [string, string][] = [[target, dataDir], [canonical(target), canonical(dataDir)]];
  for (const [t, d] of pairs) {
    if (t === d) return `${target} is the data directory itself`;
    if (covers(d, t)) return `${target} is inside the data directory ${dataDir}`;
  }
  return null;
}

/**
 * The user running the command. Deno.uid() needs --allow-sys, which the program's own flags
 * do not grant, so the owner of /proc/self (Linux) or of a fresh temporary file stands in.
 */
export function currentUid(): number {
  try {
    const uid = Deno.uid();
    if (uid !== null) return uid;
  } catch {
    // not granted: fall through
  }
  try {
    const uid = Deno.statSync("/proc/self").uid;
    if (uid !== null) return uid;
  } catch {
    // no /proc: fall through
  }
  const probe = Deno.makeTempFileSync({ prefix: "terminus-uid-" });
  try {
    return Deno.statSync(probe).uid ?? -1;
  } finally {
    Deno.removeSync(probe);
  }
}

/**
 * Checks `path` in the spec's order of refusals. A folder holding a move's staging folder,
 * and otherwise only names the data directory holds (`ours`), is an earlier move's leftover.
 */
export function probeTarget(
  path: string,
  uid: number = currentUid(),
  ours: ReadonlySet<string> = new Set(),
): Probe {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) {
      // the runtime guards /proc, /dev and /sys and advises every permission: never ours to give
      return {
        ok: false,
        reason:
          `${path} cannot be written: it is a system path (below /proc, /dev or /sys), and the data directory must be a folder of your own`,
      };
    }
    if (!(e instanceof Deno.errors.NotFound)) {
      return { ok: false, reason: `${path} cannot be checked: ${(e as Error).message}` };
    }
    const anc = nearestExisting(path);
    if (!Deno.statSync(anc).isDirectory) {
      return { ok: false, reason: `${anc} is not a folder, so ${path} cannot be created` };
    }
    return { ok: true, kind: "absent", identity: null };
  }
  if (info.isSymlink) {
    return {
      ok: false,
      reason: `${path} is a symbolic link; name a real folder, or a path that does not exist`,
    };
  }
  if (info.isFile) return { ok: false, reason: `${path} is a file, not a folder` };
  if (!info.isDirectory) return { ok: false, reason: `${path} is not a folder` };
  if (info.uid !== uid) {
    return {
      ok: false,
      reason: `${path} is owned by another user (uid ${info.uid}); it must be your own folder`,
    };
  }
  const mode = (info.mode ?? 0) & 0o7777;
  if ((mode & 0o077) !== 0) {
    return {
      ok: false,
      reason: `${path} has group or world permission bits (mode ${
        mode.toString(8).padStart(4, "0")
      }); narrow it with: chmod 700 ${shellWord(path)}`,
    };
  }
  let entries = 0;
  let staging = false;
  let foreign = false;
  try {
    for (const e of Deno.readDirSync(path)) {
      entries++;
      if (e.name === MOVE_STAGING) staging = true;
      else if (!ours.has(e.name)) foreign = true;
    }
  } catch (e) {
    return { ok: false, reason: `${path} cannot be listed: ${(e as Error).message}` };
  }
  if (staging && !foreign) return { ok: true, kind: "leftover", identity: identityOf(info) };
  if (entries > 0) {
    return {
      ok: false,
      reason: `${path} already holds files (${entries} entr${
        entries === 1 ? "y" : "ies"
      }); name an empty folder or a path that does not exist`,
    };
  }
  return { ok: true, kind: "empty", identity: identityOf(info) };
}

/**
 * After the question: the path is checked again and held to what it was before it.
 * Returns the refusal, or null when it is unchanged and still acceptable.
 */
export function recheckTarget(
  path: string,
  before: Probe & { ok: true },
  ours: ReadonlySet<string> = new Set(),
): string | null {
  const now = probeTarget(path, undefined, ours);
  const was = before.kind === "absent" ? "absent" : "an empty folder";
  const exists = (() => {
    try {
      Deno.lstatSync(path);
      return true;
    } catch {
      return false;
    }
  })();
  if (before.kind === "absent" && exists) {
    return `${path} was created while the question waited (it was ${was}); nothing moved`;
  }
  if (before.kind !== "absent" && !exists) {
    return `${path} was removed while the question waited; nothing moved`;
  }
  if (!now.ok) return `${now.reason} (it changed while the question waited); nothing moved`;
  if (now.kind !== before.kind) {
    return `${path} was changed while the question waited; nothing moved`;
  }
  if (before.kind !== "absent" && now.kind !== "absent") {
    const a = before.identity;
    const b = now.identity;
    if (a.dev !== b.dev || a.ino !== b.ino) {
      return `${path} was replaced while the question waited; nothing moved`;
    }
    if (
      a.mode !== b.mode || a.uid !== b.uid || a.gid !== b.gid || a.nlink !== b.nlink ||
      a.mtimeMs !== b.mtimeMs || a.ctimeMs !== b.ctimeMs
    ) {
      return `${path} was changed while the question waited; nothing moved`;
    }
  }
  return null;
}
