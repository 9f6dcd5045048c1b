/**
 * The scale corpora (issue #24): copies of the shared real bench corpus (165 sessions, about
 * 124.5 MB) grown to about 1.1 GB and 3 GB. Copy `c` of a transcript has every UUID in it, in
 * its file name and its content alike, replaced by a fresh one derived from (c, uuid), at the
 * same length and case; every other byte is the original. The copies keep their projects, so a
 * popular path has `copies` times its turns, as in a heavy user's years of one project.
 *
 * Kept outside the checkout and reused between runs (other work reads them there):
 *
 *   ${XDG_CACHE_HOME:-$HOME/.cache}/terminus-bench/scale/
 *     source/projects/...          the shared tarball, unpacked
 *     corpus-3gb/projects/...      24 copies
 *     corpus-1gb/projects/...      hard links to copies 0..8 of corpus-3gb
 *     manifest.json                written last: what was built from what
 *     store-1gb/, store-3gb/       settled stores (data/, config/, claude/), made by the bench
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import { SHARED_REAL_TARBALL } from "./real.ts";

/** Bumped whenever the layout or the rewrite changes, so a stale cache is rebuilt. */
const SCALE_VERSION = 1;

export interface ScaleSize {
  /** "1gb" or "3gb": names the folders. */
  name: string;
  copies: number;
}

/** 9 and 24 copies of 124.5 MB: about 1.12 and 2.99 GB. */
export const SCALE_SIZES: readonly ScaleSize[] = [
  { name: "1gb", copies: 9 },
  { name: "3gb", copies: 24 },
];

export interface ScaleCorpus {
  size: ScaleSize;
  /** A root holding `projects/`. */
  root: string;
  files: number;
  bytes: number;
}

export interface ScaleCorpora {
  dir: string;
  built: "now" | "cached";
  corpora: ScaleCorpus[];
}

export function scaleDir(): string {
  const cache = Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") ?? "/tmp", ".cache");
  return join(cache, "terminus-bench", "scale");
}

const UUID_G = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The fresh UUID copy `c` gives `uuid`: SHA-256 of both, shaped as a version-4 UUID. */
export function copyUuid(c: number, uuid: string): string {
  const h = createHash("sha256").update(`terminus-scale/${c}/${uuid.toLowerCase()}`).digest(
    "hex",
  );
  const variant = "89ab"[parseInt(h[16], 16) & 3];
  const out = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${
    h.slice(17, 20)
  }-${h.slice(20, 32)}`;
  return uuid === uuid.toUpperCase() && /[A-F]/.test(uuid) ? out.toUpperCase() : out;
}

/** `text` with every UUID replaced by copy `c`'s; `memo` caches the derivations. */
export function rewriteUuids(text: string, c: number, memo: Map<string, string>): string {
  return text.replace(UUID_G, (u) => {
    let v = memo.get(u);
    if (v === undefined) {
      v = copyUuid(c, u);
      memo.set(u, v);
    }
    return v;
  });
}

interface Manifest {
  version: number;
  /** `mtimeMs` in manifests an earlier bench wrote; `sha256` since. */
  tarball: { size: number; sha256?: string; mtimeMs?: number };
  corpora: { name: string; copies: number; files: number; bytes: number }[];
}

function readManifest(dir: string): Manifest | null {
  try {
    return JSON.parse(Deno.readTextFileSync(join(dir, "manifest.json"))) as Manifest;
  } catch {
    return null;
  }
}

function rmrf(p: string): void {
  try {
    Deno.removeSync(p, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
}

function listJsonl(root: string): { rel: string; size: number }[] {
  const out: { rel: string; size: number }[] = [];
  const walk = (rel: string) => {
    for (const e of Deno.readDirSync(join(root, rel))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory) walk(r);
      else if (e.isFile && e.name.endsWith(".jsonl")) {
        out.push({ rel: r, size: Deno.statSync(join(root, r)).size });
      }
    }
  };
  walk("");
  return out.sort((a, b) => a.rel.localeCompare(b.rel));
}

/** Builds the corpora unless the manifest says they are there and current. */
export async function prepareScaleCorpora(
  log: (m: string) => void,
  rebuild = false,
): Promise<ScaleCorpora> {
  const dir = scaleDir();
  // by content: the shared folder is laid out anew for each session, with new mtimes
  const bytes = Deno.readFileSync(SHARED_REAL_TARBALL);
  const sha256 = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)).toHex();
  const mtimeMs = Deno.statSync(SHARED_REAL_TARBALL).mtime?.getTime() ?? 0;
  const tarball = { size: bytes.length, sha256, mtimeMs };
  return await withScaleLock(dir, () => prepareLocked(dir, tarball, rebuild, log));
}

/**
 * Runs `fn` holding the scale folder's lock: one builder of corpora or stores at a time, since
 * two benches building at once would delete each other's files.
 */
export async function withScaleLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  Deno.mkdirSync(dir, { recursive: true });
  const lock = Deno.openSync(join(dir, ".lock"), { create: true, write: true });
  await lock.lock(true);
  try {
    return await fn();
  } finally {
    lock.close();
  }
}

async function prepareLocked(
  dir: string,
  tarball: Manifest["tarball"],
  rebuild: boolean,
  log: (m: string) => void,
): Promise<ScaleCorpora> {
  const m = readManifest(dir);
  const fresh = m !== null && !rebuild && m.version === SCALE_VERSION &&
    m.tarball.size === tarball.size &&
    (m.tarball.sha256 === tarball.sha256 || m.tarball.mtimeMs === tarball.mtimeMs) &&
    SCALE_SIZES.every((s) => m.corpora.some((c) => c.name === s.name && c.copies === s.copies));
  const corpora = (mf: Manifest) =>
    SCALE_SIZES.map((s) => {
      const c = mf.corpora.find((x) => x.name === s.name)!;
      return { size: s, root: join(dir, `corpus-${s.name}`), files: c.files, bytes: c.bytes };
    });
  if (fresh) {
    if (m.tarball.sha256 !== tarball.sha256) {
      // an earlier bench's manifest, current by its mtime: say the content from now on
      m.tarball = tarball;
      Deno.writeTextFileSync(join(dir, "manifest.json"), JSON.stringify(m, null, 2) + "\n");
    }
    return { dir, built: "cached", corpora: corpora(m) };
  }

  rmrf(join(dir, "manifest.json"));
  // the stores were made from the old corpora: they go too
  for (const s of SCALE_SIZES) {
    rmrf(join(dir, `corpus-${s.name}`));
    rmrf(join(dir, `store-${s.name}`));
  }
  const source = join(dir, "source");
  rmrf(source);
  Deno.mkdirSync(source, { recursive: true });
  log(`scale: unpacking ${SHARED_REAL_TARBALL} into ${source}`);
  const tar = await new Deno.Command("tar", {
    args: ["-I", "zstd", "-xf", SHARED_REAL_TARBALL, "-C", source],
    stderr: "piped",
  }).output();
  if (!tar.success) {
    throw new Error(`tar could not unpack: ${new TextDecoder().decode(tar.stderr)}`);
  }
  const files = listJsonl(join(source, "projects"));
  const biggest = SCALE_SIZES.reduce((a, b) => (b.copies > a.copies ? b : a));
  const full = join(dir, `corpus-${biggest.name}`, "projects");
  const dec = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const enc = new TextEncoder();
  /** Relative paths of each copy, so the smaller corpora link the first copies. */
  const perCopy: string[][] = [];
  for (let c = 0; c < biggest.copies; c++) {
    const memo = new Map<string, string>();
    const mine: string[] = [];
    for (const f of files) {
      const bytes = Deno.readFileSync(join(source, "projects", f.rel));
      const out = enc.encode(rewriteUuids(dec.decode(bytes), c, memo));
      if (out.length !== bytes.length) {
        throw new Error(
          `${f.rel}: the rewrite changed the length (${bytes.length} -> ${out.length})`,
        );
      }
      const rel = rewriteUuids(f.rel, c, memo);
      const to = join(full, rel);
      Deno.mkdirSync(join(to, ".."), { recursive: true });
      Deno.writeFileSync(to, out);
      mine.push(rel);
    }
    perCopy.push(mine);
    log(`scale: copy ${c + 1}/${biggest.copies} written`);
  }
  const total = files.reduce((n, f) => n + f.size, 0);
  const manifest: Manifest = { version: SCALE_VERSION, tarball, corpora: [] };
  for (const s of SCALE_SIZES) {
    if (s !== biggest) {
      const projects = join(dir, `corpus-${s.name}`, "projects");
      for (const rel of perCopy.slice(0, s.copies).flat()) {
        const to = join(projects, rel);
        Deno.mkdirSync(join(to, ".."), { recursive: true });
        Deno.linkSync(join(full, rel), to);
      }
    }
    manifest.corpora.push({
      name: s.name,
      copies: s.copies,
      files: files.length * s.copies,
      bytes: total * s.copies,
    });
  }
  Deno.writeTextFileSync(join(dir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  return { dir, built: "now", corpora: corpora(manifest) };
}

if (import.meta.main) {
  const r = await prepareScaleCorpora((m) => console.error(m), Deno.args.includes("--rebuild"));
  console.log(JSON.stringify(r, null, 2));
}
