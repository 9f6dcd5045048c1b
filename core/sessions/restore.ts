/**
 * `terminus sessions restore`: puts an archived transcript back where Claude Code looks for it
 * (`<config>/projects/<folder>/<uuid>.jsonl`, with its subagent sidecars), byte for byte, so
 * that `claude --resume <uuid>` works again after Claude Code deleted it.
 *
 * Every file is first written beside its target under a temporary name, and only when all of
 * them are written are they renamed into place: a failure removes what it wrote and the folders
 * it made, so nothing is left half-written.
 */
import { basename, dirname, join, resolve } from "../posix.ts";
import { covers } from "../paths.ts";
import { createLocked, sweepLeftovers } from "../fs.ts";
import { DIR_MODE, FILE_MODE, LINEAGE_MARK } from "../constants.ts";
import { NotFoundError, PathError, TerminusError } from "../errors.ts";
import type { Db } from "../store/db.ts";
import { listSessions, type SessionRow } from "../store/session_listing.ts";
import { type Visibility } from "../store/visibility.ts";
import { restoreFacts } from "../store/restore_sql.ts";
import { keyFor } from "../transcript/session_key.ts";
import { rawStream } from "./load.ts";
import { resumeCommand } from "./list.ts";

export type RestoreStatus = "restored" | "already present" | "would restore";

export interface RestoreFile {
  path: string;
  bytes: number;
  status: RestoreStatus;
}

export interface RestorePlan {
  /** The Claude Code config folder written into. */
  config: string;
  files: (RestoreFile & { data: Uint8Array })[];
  resume: string | null;
}

/** Claude Code's name for a project folder: every character but a letter or digit becomes `-`. */
export function encodeProjectFolder(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, "-");
}

/** Why a session's archived bytes cannot be written back whole, or null when they can. */
function notWhole(row: SessionRow, captureMode: string): string | null {
  if (row.evicted) {
    return `session #${row.session_no}'s text was evicted by retention; only its facts remain, so there is no transcript to restore`;
  }
  if (captureMode !== "full") {
    return `session #${row.session_no} was archived under capture = ${captureMode}, which keeps only part of each record; its bytes are not the transcript's, so it cannot be restored`;
  }
  return null;
}

/** The config folder to write into: --to, else the root the transcript came from, else the first. */
function configFolder(to: string | null, cwd: string, roots: string[], was: string | null): string {
  const dir = to !== null ? resolve(cwd, to) : (was && roots.find((r) => covers(r, was))) ??
    roots[0];
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(dir);
  } catch {
    throw new PathError(
      `${
        to !== null ? "--to " : ""
      }${dir} does not exist: restore writes into an existing Claude Code config folder (the one holding projects/)`,
    );
  }
  if (!info.isDirectory) throw new PathError(`${to !== null ? "--to " : ""}${dir} is not a folder`);
  return dir;
}

function sameBytes(path: string, data: Uint8Array): boolean | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch {
    return null; // not there
  }
  if (!info.isFile) {
    throw new TerminusError(`${path} exists and is not a regular file; restore leaves it alone`);
  }
  if (info.size !== data.length) return false;
  const have = Deno.readFileSync(path);
  for (let i = 0; i < have.length; i++) if (have[i] !== data[i]) return false;
  return true;
}

/**
 * Works out every file the session's restore writes, and refuses before anything is written:
 * a sidecar on its own, bytes that are not whole, a missing config folder, or a different file
 * already at a target (named).
 */
export function planRestore(
  db: Db,
  row: SessionRow,
  vis: Visibility,
  o: { roots: string[]; to: string | null; cwd: string; dryRun: boolean },
): RestorePlan {
  if (row.sidecar) {
    throw new TerminusError(
      `session #${row.session_no} is a subagent's sidecar; restore its parent session, which brings its sidecars back with it`,
    );
  }
  if (!row.session_id) {
    throw new NotFoundError(`session #${row.session_no} has no session id to resume it by`);
  }
  const facts = restoreFacts(db, row.session_no);
  const refusal = notWhole(row, facts?.captureMode ?? "full");
  if (refusal) throw new TerminusError(refusal);
  const was = facts?.transcriptPath ?? null;
  const config = configFolder(o.to, o.cwd, o.roots, was);
  const known = was ? keyFor(was, false).projectFolder : null;
  const where = row.cwd ?? row.project;
  if (!known && !where) {
    throw new NotFoundError(`session #${row.session_no} names no project folder to restore into`);
  }
  const folder = join(config, "projects", known ? basename(known) : encodeProjectFolder(where!));
  const sidecars = listSessions(db, vis, { parentKey: row.session_key });
  const files: RestorePlan["files"] = [];
  const add = (path: string, data: Uint8Array) => {
    const linked = linkOnTheWay(config, path);
    if (linked) throw new TerminusError(linked);
    const same = sameBytes(path, data);
    if (same === false) {
      throw new TerminusError(
        `${path} already exists and differs from the archived copy; restore never overwrites it (move it aside to restore)`,
      );
    }
    files.push({
      path,
      data,
      bytes: data.length,
      status: same ? "already present" : o.dryRun ? "would restore" : "restored",
    });
  };
  add(join(folder, `${row.session_id}.jsonl`), rawStream(db, row));
  for (const s of sidecars) {
    const f = restoreFacts(db, s.session_no);
    const why = notWhole(s, f?.captureMode ?? "full");
    if (why) throw new TerminusError(`${why} (a subagent of session #${row.session_no})`);
    // a 2.0.x sidecar sat in the project folder itself and is keyed by its whole path
    const rel = s.session_key.split(LINEAGE_MARK)[0];
    const path = join(folder, rel.startsWith("/") ? basename(rel) : rel);
    add(path, rawStream(db, s));
    // stores from before the pass stopped opening .meta.json files still hold them
    if (f?.agentMeta) add(path.replace(/\.jsonl$/, ".meta.json"), f.agentMeta);
  }
  return { config, files, resume: resumeCommand(row) };
}

/**
 * The first folder between the config folder and `path` that is a symbolic link, as a refusal,
 * or null. Writing through one would put the transcript wherever the link leads, outside the
 * folder restore was pointed at; the target file itself is checked by sameBytes.
 */
function linkOnTheWay(config: string, path: string): string | null {
  const parts = path.slice(config.length + 1).split("/").slice(0, -1);
  let at = config;
  for (const p of parts) {
    at = join(at, p);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(at);
    } catch {
      return null; // missing from here down: restore creates real folders
    }
    if (info.isSymlink) {
      return `${at} is a symbolic link; restore does not write through it (replace it with a real folder to restore)`;
    }
  }
  return null;
}

/** What a restore killed before its renames left beside a target: `.<name>.restore-<pid>`. */
const RESTORE_TEMP = /^\..+\.restore-\d+$/;

/** Folders from `dir` up to (not including) `stop` that do not exist yet, outermost first. */
function missingFolders(dir: string, stop: string): string[] {
  const out: string[] = [];
  for (let d = dir; d !== stop && d.length > stop.length; d = dirname(d)) {
    try {
      Deno.statSync(d);
      break;
    } catch {
      out.unshift(d);
    }
  }
  return out;
}

/** Writes the plan's new files: all to temporary names first, then renamed into place. */
export function writeRestore(plan: RestorePlan): void {
  const todo = plan.files.filter((f) => f.status === "restored");
  const made: string[] = [];
  const partials: { tmp: string; path: string }[] = [];
  const placed: string[] = [];
  const open: Deno.FsFile[] = [];
  // leftovers of killed restores in these folders go first; a live restore's are locked
  for (const d of new Set(plan.files.map((f) => dirname(f.path)))) {
    sweepLeftovers(d, (n) => RESTORE_TEMP.test(n));
  }
  try {
    for (const f of todo) {
      const linked = linkOnTheWay(plan.config, f.path);
      if (linked) throw new Error(linked);
      for (const d of missingFolders(dirname(f.path), plan.config)) {
        Deno.mkdirSync(d, { mode: DIR_MODE });
        Deno.chmodSync(d, DIR_MODE); // the umask may have narrowed or widened it
        made.push(d);
      }
      const tmp = join(dirname(f.path), `.${basename(f.path)}.restore-${Deno.pid}`);
      partials.push({ tmp, path: f.path });
      // held locked until the renames, so a concurrent restore's sweep leaves it alone
      const h = createLocked(tmp, FILE_MODE);
      open.push(h);
      let off = 0;
      while (off < f.data.length) off += h.writeSync(f.data.subarray(off));
      Deno.chmodSync(tmp, FILE_MODE);
    }
    for (const p of partials) {
      Deno.renameSync(p.tmp, p.path);
      placed.push(p.path);
    }
  } catch (e) {
    // every target was absent when planned: what this restore placed is its own to take back
    for (const p of placed) {
      try {
        Deno.removeSync(p);
      } catch { /* already gone */ }
    }
    for (const p of partials) {
      try {
        Deno.removeSync(p.tmp);
      } catch { /* never written, or already renamed */ }
    }
    for (const d of made.reverse()) {
      try {
        Deno.removeSync(d);
      } catch { /* not empty: something else put a file there */ }
    }
    throw new TerminusError(`cannot restore into ${plan.config}: ${(e as Error).message}`);
  } finally {
    for (const h of open) h.close();
  }
}
