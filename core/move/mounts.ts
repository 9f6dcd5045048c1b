/**
 * Whether a path sits on a network filesystem, read from /proc/self/mountinfo (Linux). Other
 * systems answer null, and `data move` still warns in its question on every system.
 */
import { NETWORK_FS_TYPES } from "../constants.ts";
import { covers } from "../paths.ts";
import { canonical } from "./target.ts";

export interface Mount {
  mountPoint: string;
  fsType: string;
}

/** mountinfo escapes space, tab, newline and backslash as three octal digits. */
function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(parseInt(o, 8)));
}

/** Parses mountinfo text: field 5 is the mount point, the field after " - " the type. */
export function parseMountinfo(text: string): Mount[] {
  const out: Mount[] = [];
  for (const line of text.split("\n")) {
    const fields = line.split(" ");
    const sep = fields.indexOf("-", 6);
    if (fields.length < 5 || sep < 0 || sep + 1 >= fields.length) continue;
    out.push({ mountPoint: unescapeOctal(fields[4]), fsType: fields[sep + 1] });
  }
  return out;
}

/** The mount holding `path`: the longest mount point that covers it (the last one wins ties). */
export function mountOf(path: string, mounts: Mount[]): Mount | null {
  let best: Mount | null = null;
  for (const m of mounts) {
    if (!covers(m.mountPoint, path)) continue;
    if (!best || m.mountPoint.length >= best.mountPoint.length) best = m;
  }
  return best;
}

export function isNetworkType(fsType: string): boolean {
  return (NETWORK_FS_TYPES as readonly string[]).includes(fsType) ||
    fsType.startsWith("nfs") || fsType.startsWith("fuse.sshfs");
}

/** The network filesystem type `path` (or its nearest existing ancestor) is on, else null. */
export function networkFsType(path: string, mountinfo?: string): string | null {
  let text = mountinfo;
  if (text === undefined) {
    if (Deno.build.os !== "linux") return null;
    try {
      text = Deno.readTextFileSync("/proc/self/mountinfo");
    } catch {
      return null;
    }
  }
  const m = mountOf(mountinfo === undefined ? canonical(path) : path, parseMountinfo(text));
  return m && isNetworkType(m.fsType) ? m.fsType : null;
}
