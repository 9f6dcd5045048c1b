/**
 * Finding transcripts: `<uuid>.jsonl` directly in a project folder, `agent-*.jsonl` at any
 * depth below one. Symlinked folders are not descended; entries are visited in sorted order.
 * Folders are matched against `exclude` before any file in them is opened.
 */
import { join } from "../posix.ts";
import { errorText } from "../errors.ts";
import { AGENT_JSONL, directKey, type KeyInfo, UUID_JSONL } from "./session_key.ts";

export interface Found {
  path: string;
  projectFolder: string;
  /** The entry is a symlink (its key is read from the file it points at). */
  link?: boolean;
  /**
   * Its key: set by discovery for a `<uuid>.jsonl` directly in a project folder, otherwise by
   * the pass the first time it reads it off the path (see `Archiver.keyOf`).
   */
  key?: KeyInfo;
}

export interface Discovery {
  files: Found[];
  /** Folders that could not be listed, one line each. */
  problems: string[];
  /** Project folders skipped because an exclude entry covers them. */
  excludedFolders: number;
}

/** Claude Code's folder-name encoding of a cwd: every non-alphanumeric character becomes `-`. */
export function encodeProjectFolder(path: string): string {
  return path.replace(/[^A-Za-z0-9]/g, "-");
}

/** A folder's entries in sorted order (a pass may hand discovery kept ones instead). */
export type Lister = (dir: string) => Deno.DirEntry[];

export function listSorted(dir: string): Deno.DirEntry[] {
  const byName = new Map<string, Deno.DirEntry>();
  for (const e of Deno.readDirSync(dir)) byName.set(e.name, e);
  // the default sort orders strings by code unit, as `<` does, without a JavaScript call per
  // comparison: 1.9 ms against 3-5.7 for a folder of 3,360 transcripts
  return [...byName.keys()].sort().map((n) => byName.get(n)!);
}

/**
 * Whether a project folder's name can only be an excluded path. The encoding is lossy
 * (`/a/demo/sub` and `/a/demo-sub` both give `-a-demo-sub`), so a name that merely starts
 * with an excluded path's encoding counts only when a folder below that path really
 * encodes to it; anything else is decided after reading, from the records' own cwd.
 */
export function folderExcluded(folderName: string, exclude: string[]): boolean {
  for (const e of exclude) {
    const enc = encodeProjectFolder(e);
    if (folderName === enc) return true;
    if (folderName.startsWith(enc + "-") && hasSubdirEncodingTo(e, enc, folderName, 0)) return true;
  }
  return false;
}

function hasSubdirEncodingTo(dir: string, enc: string, target: string, depth: number): boolean {
  if (depth > 32) return false;
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch {
    return false;
  }
  for (const ent of entries) {
    if (!ent.isDirectory) continue;
    const next = enc + "-" + encodeProjectFolder(ent.name);
    if (next === target) return true;
    if (
      target.startsWith(next + "-") &&
      hasSubdirEncodingTo(join(dir, ent.name), next, target, depth + 1)
    ) {
      return true;
    }
  }
  return false;
}

function walkAgents(dir: string, projectFolder: string, out: Discovery, list: Lister): void {
  let entries: Deno.DirEntry[];
  try {
    entries = list(dir);
  } catch (e) {
    out.problems.push(`${dir} cannot be listed: ${errorText(e)}`);
    return;
  }
  for (const ent of entries) {
    const p = `${dir}/${ent.name}`; // an entry's name is one segment: nothing to normalize
    if (ent.isDirectory && !ent.isSymlink) {
      if (ent.name === "tool-results") continue;
      walkAgents(p, projectFolder, out, list);
    } else if ((ent.isFile || ent.isSymlink) && AGENT_JSONL.test(ent.name)) {
      out.files.push({ path: p, projectFolder, link: ent.isSymlink, key: undefined });
    }
  }
}

export function discover(
  roots: string[],
  exclude: string[],
  list: Lister = listSorted,
): Discovery {
  const out: Discovery = { files: [], problems: [], excludedFolders: 0 };
  for (const root of roots) {
    const projects = join(root, "projects");
    let folders: Deno.DirEntry[];
    try {
      folders = list(projects);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) continue; // a root with no sessions yet
      out.problems.push(`${projects} cannot be listed: ${errorText(e)}`);
      continue;
    }
    for (const f of folders) {
      if (!f.isDirectory || f.isSymlink) continue;
      if (folderExcluded(f.name, exclude)) {
        out.excludedFolders++;
        continue;
      }
      const folder = join(projects, f.name);
      let entries: Deno.DirEntry[];
      try {
        entries = list(folder);
      } catch (e) {
        out.problems.push(`${folder} cannot be listed: ${errorText(e)}`);
        continue;
      }
      for (const ent of entries) {
        // an entry's name is one segment, so the path needs no normalizing (join split and
        // rebuilt every path, a few ms of a pass over thousands of transcripts)
        const p = `${folder}/${ent.name}`;
        if (ent.isDirectory && !ent.isSymlink) {
          if (ent.name === "tool-results") continue;
          walkAgents(p, folder, out, list);
        } else if (ent.isFile && UUID_JSONL.test(ent.name)) {
          // keyed here: a file directly in a project folder is keyed by its name
          out.files.push({
            path: p,
            projectFolder: folder,
            link: false,
            key: directKey(p, folder, ent.name),
          });
        } else if (
          (ent.isFile || ent.isSymlink) && (UUID_JSONL.test(ent.name) || AGENT_JSONL.test(ent.name))
        ) {
          out.files.push({ path: p, projectFolder: folder, link: ent.isSymlink, key: undefined });
        }
      }
    }
  }
  return out;
}
