/**
 * session_key: the transcript's path below its project folder, read off the path's shape.
 * `<uuid>.jsonl`, or `<sessionId>/subagents/[workflows/wf_*\/]agent-*.jsonl` for a sidecar.
 * Any other path, such as 2.0.x's `agent-*.jsonl` directly in a project folder, is keyed by its
 * canonical path: its bare name is the same in every project that has one.
 */
import { basename } from "../posix.ts";

export const UUID_JSONL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;
export const AGENT_JSONL = /^agent-.*\.jsonl$/;

export interface KeyInfo {
  sessionKey: string;
  /** The canonical path the key was read from. */
  canonical: string;
  /** `<sessionId>.jsonl` of the parent, for a sidecar whose path names it. */
  parentKey: string | null;
  isSidecar: boolean;
  /** The session id the file name carries (`<uuid>.jsonl`), if any. */
  fileSessionId: string | null;
  /** The project folder (`<root>/projects/<folder>`) the file sits in, if any. */
  projectFolder: string | null;
}

function shapeOf(rest: string[]): { parentKey: string | null; isSidecar: boolean } | null {
  if (rest.length === 1) {
    return UUID_JSONL.test(rest[0]) ? { parentKey: null, isSidecar: false } : null;
  }
  const last = rest[rest.length - 1];
  if (!AGENT_JSONL.test(last) || rest[1] !== "subagents") return null;
  const mid = rest.slice(2, -1);
  const ok = mid.length === 0 ||
    (mid.length === 2 && mid[0] === "workflows" && mid[1].startsWith("wf_"));
  return ok ? { parentKey: `${rest[0]}.jsonl`, isSidecar: true } : null;
}

/**
 * The key of `<folder>/<name>`, a `<uuid>.jsonl` directly in a project folder (`folder` is
 * `<root>/projects/<folder>`): its name. Discovery, which has just matched the name, keys
 * such a file with it, without reading the path again.
 */
export function directKey(path: string, folder: string, name: string): KeyInfo {
  return {
    sessionKey: name,
    canonical: path,
    parentKey: null,
    isSidecar: false,
    fileSessionId: name.slice(0, -6),
    projectFolder: folder,
  };
}

/**
 * The key of a transcript path. `resolveLinks` resolves the file through symlinks (a linked
 * transcript takes the key of the file it points at); discovery asks for it only for entries
 * that are links, since the key never depends on a linked folder above the project folder.
 */
export function keyFor(path: string, resolveLinks = true): KeyInfo {
  let canonical = path;
  if (resolveLinks) {
    try {
      canonical = Deno.realPathSync(path);
    } catch {
      // a file that vanished keeps the path it was found at
    }
  }
  // the shape of nearly every transcript, `<root>/projects/<folder>/<uuid>.jsonl`, read off
  // its last three slashes: what the loop below finds first for it, without splitting the path
  const a = canonical.lastIndexOf("/");
  const b = a > 0 ? canonical.lastIndexOf("/", a - 1) : -1;
  if (b > 0) {
    const c = canonical.lastIndexOf("/", b - 1);
    const name = canonical.slice(a + 1);
    if (canonical.slice(c + 1, b) === "projects" && UUID_JSONL.test(name)) {
      return directKey(canonical, canonical.slice(0, a), name);
    }
  }
  const segs = canonical.split("/");
  for (let i = segs.length - 3; i >= 0; i--) {
    if (segs[i] !== "projects") continue;
    const rest = segs.slice(i + 2);
    const shape = shapeOf(rest);
    if (!shape) continue;
    const name = basename(canonical);
    return {
      sessionKey: rest.join("/"),
      canonical,
      parentKey: shape.parentKey,
      isSidecar: shape.isSidecar,
      fileSessionId: !shape.isSidecar && UUID_JSONL.test(name) ? name.slice(0, -6) : null,
      projectFolder: segs.slice(0, i + 2).join("/"),
    };
  }
  if (!resolveLinks) {
    // outside the two shapes the key is the canonical path itself (rare: resolved only here)
    try {
      canonical = Deno.realPathSync(path);
    } catch {
      // a file that vanished keeps the path it was found at
    }
  }
  const name = basename(canonical);
  // the project folder still bounds exclusion: `<root>/projects/<folder>/...`
  const at = segs.lastIndexOf("projects", segs.length - 3);
  return {
    sessionKey: canonical,
    canonical,
    parentKey: null,
    isSidecar: AGENT_JSONL.test(name),
    fileSessionId: UUID_JSONL.test(name) ? name.slice(0, -6) : null,
    projectFolder: at >= 0 ? segs.slice(0, at + 2).join("/") : null,
  };
}
