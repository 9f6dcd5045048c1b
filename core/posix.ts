/**
 * POSIX path helpers. Terminus runs on Linux and macOS only, and `node:path` costs the hook
 * path about 6 ms of compatibility-layer start-up (node:fs about 19 ms), so the few
 * operations it needs live here, on the runtime's own APIs.
 */

export function isAbsolute(p: string): boolean {
  return p.startsWith("/");
}

/** Collapses `.`, `..`, repeated and trailing slashes of an absolute or relative path. */
export function normalize(p: string): string {
  const abs = isAbsolute(p);
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (out.length && out[out.length - 1] !== "..") out.pop();
      else if (!abs) out.push("..");
      continue;
    }
    out.push(part);
  }
  const s = out.join("/");
  return abs ? "/" + s : s === "" ? "." : s;
}

export function join(...parts: string[]): string {
  const kept = parts.filter((p) => p !== "");
  return kept.length ? normalize(kept.join("/")) : ".";
}

/** Like path.resolve: right to left until an absolute path, then against the cwd. */
export function resolve(...parts: string[]): string {
  let acc = "";
  for (let i = parts.length - 1; i >= 0 && !isAbsolute(acc); i--) {
    if (parts[i] === "") continue;
    acc = acc === "" ? parts[i] : `${parts[i]}/${acc}`;
  }
  if (!isAbsolute(acc)) acc = `${Deno.cwd()}/${acc}`;
  return normalize(acc);
}

export function dirname(p: string): string {
  const n = p.length > 1 ? p.replace(/\/+$/, "") : p;
  const i = n.lastIndexOf("/");
  if (i < 0) return ".";
  if (i === 0) return "/";
  return n.slice(0, i);
}

export function basename(p: string, ext?: string): string {
  const n = p.length > 1 ? p.replace(/\/+$/, "") : p;
  const b = n.slice(n.lastIndexOf("/") + 1);
  return ext && b.endsWith(ext) && b !== ext ? b.slice(0, -ext.length) : b;
}

export function exists(p: string): boolean {
  try {
    Deno.lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/** Path: trimmed, unquoted, a trailing `:line[:col]` removed; never resolved on disk. */
export function normalisePath(p: string): string {
  let s = p.trim();
  s = s.replace(/^["'`]+|["'`]+$/g, "");
  s = s.replace(/:\d+(?::\d+)?$/, "");
  return windowsPath(s) ?? s;
}

const DRIVE = /^([A-Za-z]):(?:[\\/]|$)/;

/**
 * A path written on Windows (`D:\repo`, `d:/repo`), spelled for matching: the drive letter
 * upper-cased and every separator `/`, so `D:\a\git.go` and `D:/a/git.go` are one path. Such a
 * path is absolute, though it starts with no `/`. Null for any other path. Transcripts from
 * Windows carry these; what is archived keeps the bytes as written.
 */
export function windowsPath(p: string): string | null {
  const m = DRIVE.exec(p);
  if (!m) return null;
  const rest = p.slice(2).replace(/\\/g, "/").replace(/\/{2,}/g, "/");
  const out = `${m[1].toUpperCase()}:${rest === "" ? "/" : rest}`;
  return out.length > 3 && out.endsWith("/") ? out.slice(0, -1) : out;
}
