/**
 * The synthetic corpus: copies of the genuine transcripts under new session UUIDs, built once
 * and cached. Only the value of each `"sessionId":"<uuid>"` pair is rewritten (to the copy's
 * new id for that session, same length), so every other byte of every line is the original.
 *
 * Layout: two transcript roots, `a/` and `b/`, each `projects/<folder>/...` with half of the
 * project folders and half of the copies. The full corpus is both roots; the half corpus (for
 * the memory-scaling run) is root `a` alone.
 */
import { basename, dirname, join } from "node:path";
import { MB } from "./stats.ts";

/** Bumped whenever the layout or the rewrite changes, so a stale cache is rebuilt. */
const CORPUS_VERSION = 2;
const UUID_JSONL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;
const AGENT_JSONL = /^agent-.*\.jsonl$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const FOLDERS = 20;

interface SourceFile {
  path: string;
  size: number;
  mtimeMs: number;
  /** The session id the file belongs to: its own name, or the parent of a sidecar. */
  sessionId: string;
  sidecar: boolean;
  /** Path below `<uuid>/` for a sidecar (`subagents/agent-x.jsonl`). */
  below: string | null;
}

export interface CorpusPart {
  /** Transcript root (holds `projects/`). */
  root: string;
  bytes: number;
  files: number;
  sidecars: number;
  folders: number;
}

export interface Corpus {
  dir: string;
  source: string;
  targetMb: number;
  copies: number;
  /** Bytes, files and sidecars of the whole corpus (both parts). */
  bytes: number;
  files: number;
  sidecars: number;
  folders: number;
  /** `a` then `b`: the full corpus is both, the half corpus is `a`. */
  parts: [CorpusPart, CorpusPart];
  sourceFiles: number;
  sourceBytes: number;
  /** sessionId values rewritten (one per line that carries one). */
  rewrittenIds: number;
  built: "cached" | "now";
  buildMs: number;
}

function walk(dir: string, out: string[]): void {
  const entries = [...Deno.readDirSync(dir)].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory) walk(p, out);
    else if (e.isFile && p.endsWith(".jsonl")) out.push(p);
  }
}

/** Every transcript of the genuine corpus, main files first. */
function sources(source: string): SourceFile[] {
  const paths: string[] = [];
  walk(source, paths);
  const out: SourceFile[] = [];
  for (const p of paths) {
    const st = Deno.statSync(p);
    const name = basename(p);
    const base = { path: p, size: st.size, mtimeMs: st.mtime?.getTime() ?? 0 };
    if (UUID_JSONL.test(name) && basename(dirname(dirname(p))) === "projects") {
      out.push({ ...base, sessionId: name.slice(0, -6), sidecar: false, below: null });
      continue;
    }
    if (!AGENT_JSONL.test(name)) continue;
    // <folder>/<uuid>/subagents/.../agent-x.jsonl
    const segs = p.split("/");
    const i = segs.lastIndexOf("projects");
    const parent = segs[i + 2];
    if (i < 0 || !UUID_RE.test(parent ?? "")) continue;
    out.push({
      ...base,
      sessionId: parent,
      sidecar: true,
      below: segs.slice(i + 3).join("/"),
    });
  }
  out.sort((a, b) => Number(a.sidecar) - Number(b.sidecar) || (a.path < b.path ? -1 : 1));
  return out;
}

/** xorshift32: reproducible UUIDs, so a rebuilt corpus has the same file names. */
function rng(seed: number): () => number {
  let x = seed | 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

function uuidFrom(next: () => number): string {
  const b = new Uint8Array(16);
  for (let i = 0; i < 16; i += 4) new DataView(b.buffer).setUint32(i, next());
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const KEY = new TextEncoder().encode('"sessionId":"');
const enc = new TextEncoder();
const dec = new TextDecoder();

function isHexOrDash(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46) ||
    c === 0x2d;
}

/**
 * Rewrites every `"sessionId":"<uuid>"` value in place through `map` (unknown ids get a new
 * id from `fresh`). Same length in, same length out. Returns the number of values rewritten.
 */
function rewriteSessionIds(
  buf: Uint8Array,
  map: Map<string, string>,
  fresh: () => string,
): number {
  let n = 0;
  let i = 0;
  const first = KEY[0];
  while (true) {
    i = buf.indexOf(first, i);
    if (i < 0 || i + KEY.length + 37 > buf.length) break;
    let match = true;
    for (let k = 1; k < KEY.length; k++) {
      if (buf[i + k] !== KEY[k]) {
        match = false;
        break;
      }
    }
    if (!match) {
      i++;
      continue;
    }
    const v = i + KEY.length;
    let ok = buf[v + 36] === 0x22;
    for (let k = 0; ok && k < 36; k++) ok = isHexOrDash(buf[v + k]);
    if (ok) {
      const old = dec.decode(buf.subarray(v, v + 36));
      if (UUID_RE.test(old)) {
        let nu = map.get(old.toLowerCase());
        if (!nu) {
          nu = fresh();
          map.set(old.toLowerCase(), nu);
        }
        buf.set(enc.encode(nu), v);
        n++;
      }
    }
    i = v + 36;
  }
  return n;
}

function folderName(i: number): string {
  return `-home-bench-code-project-${String(i).padStart(2, "0")}`;
}

interface Manifest {
  version: number;
  targetMb: number;
  sources: { path: string; size: number; mtimeMs: number }[];
  corpus: Omit<Corpus, "built" | "buildMs">;
}

/** Builds (or reuses) the corpus of at least `targetMb` MB under `outDir/corpus-<N>mb`. */
export function prepareCorpus(
  source: string,
  outDir: string,
  targetMb: number,
  rebuild = false,
): Corpus {
  const dir = join(outDir, `corpus-${targetMb}mb`);
  const src = sources(source);
  if (src.length === 0) throw new Error(`no transcripts found under ${source}`);
  const fingerprint = src.map((s) => ({ path: s.path, size: s.size, mtimeMs: s.mtimeMs }));
  const manifestPath = join(dir, "manifest.json");
  if (!rebuild) {
    try {
      const m = JSON.parse(Deno.readTextFileSync(manifestPath)) as Manifest;
      if (
        m.version === CORPUS_VERSION && m.targetMb === targetMb &&
        JSON.stringify(m.sources) === JSON.stringify(fingerprint)
      ) {
        return { ...m.corpus, built: "cached", buildMs: 0 };
      }
    } catch { /* no usable cache: build */ }
  }
  const t0 = performance.now();
  try {
    Deno.removeSync(dir, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  return build();

  function build(): Corpus {
    const sourceBytes = src.reduce((n, s) => n + s.size, 0);
    const perPart = Math.ceil(Math.ceil((targetMb * MB) / sourceBytes) / 2);
    const copies = perPart * 2;
    const contents = src.map((s) => Deno.readFileSync(s.path));
    const metas = src.map((s) => {
      if (!s.sidecar) return null;
      try {
        return Deno.readFileSync(s.path.replace(/\.jsonl$/, ".meta.json"));
      } catch {
        return null;
      }
    });
    const parts: CorpusPart[] = ["a", "b"].map((p) => ({
      root: join(dir, p),
      bytes: 0,
      files: 0,
      sidecars: 0,
      folders: FOLDERS / 2,
    }));
    const next = rng(0x7e4a1 + targetMb);
    let rewrittenIds = 0;
    let fileNo = 0;
    for (let c = 0; c < copies; c++) {
      const partNo = c < perPart ? 0 : 1;
      const part = parts[partNo];
      const ids = new Map<string, string>();
      const fresh = () => uuidFrom(next);
      const folderOf = new Map<string, string>();
      src.forEach((s, k) => {
        const oldId = s.sessionId.toLowerCase();
        let newId = ids.get(oldId);
        if (!newId) {
          newId = fresh();
          ids.set(oldId, newId);
        }
        let folder = folderOf.get(oldId);
        if (!folder) {
          folder = join(
            part.root,
            "projects",
            folderName(partNo * FOLDERS / 2 + fileNo++ % (FOLDERS / 2)),
          );
          folderOf.set(oldId, folder);
        }
        const target = s.sidecar ? join(folder, newId, s.below!) : join(folder, `${newId}.jsonl`);
        const buf = contents[k].slice();
        const n = rewriteSessionIds(buf, ids, fresh);
        rewrittenIds += n;
        if (c === 0) verifyCopy(contents[k], buf, ids, s.path);
        Deno.mkdirSync(dirname(target), { recursive: true });
        Deno.writeFileSync(target, buf);
        part.bytes += buf.length;
        part.files++;
        if (s.sidecar) {
          part.sidecars++;
          const meta = metas[k];
          if (meta) Deno.writeFileSync(target.replace(/\.jsonl$/, ".meta.json"), meta);
        }
      });
    }
    const corpus: Omit<Corpus, "built" | "buildMs"> = {
      dir,
      source,
      targetMb,
      copies,
      bytes: parts[0].bytes + parts[1].bytes,
      files: parts[0].files + parts[1].files,
      sidecars: parts[0].sidecars + parts[1].sidecars,
      folders: FOLDERS,
      parts: [parts[0], parts[1]],
      sourceFiles: src.length,
      sourceBytes,
      rewrittenIds,
    };
    const manifest: Manifest = {
      version: CORPUS_VERSION,
      targetMb,
      sources: fingerprint,
      corpus,
    };
    Deno.writeTextFileSync(manifestPath, JSON.stringify(manifest, null, 2) + "\n");
    return { ...corpus, built: "now", buildMs: performance.now() - t0 };
  }
}

/**
 * Checks one copy: same length, every differing byte inside a rewritten sessionId value, and
 * each line's top-level sessionId (when it has one) now one of the copy's new ids.
 */
function verifyCopy(orig: Uint8Array, copy: Uint8Array, ids: Map<string, string>, path: string) {
  if (orig.length !== copy.length) throw new Error(`${path}: copy changed length`);
  const fresh = new Set(ids.values());
  let start = 0;
  while (start < copy.length) {
    let nl = copy.indexOf(0x0a, start);
    if (nl < 0) nl = copy.length;
    const line = dec.decode(copy.subarray(start, nl));
    const was = dec.decode(orig.subarray(start, nl));
    start = nl + 1;
    let rec: unknown;
    try {
      rec = JSON.parse(line);
    } catch {
      if (line !== was) throw new Error(`${path}: an unparsable line was changed`);
      continue;
    }
    const sid = (rec as Record<string, unknown>)?.sessionId;
    if (typeof sid === "string" && UUID_RE.test(sid) && !fresh.has(sid)) {
      throw new Error(`${path}: a top-level sessionId (${sid}) was not rewritten`);
    }
    // Undo the rewrite and compare: nothing but the ids may differ.
    let back = line;
    for (const [o, n] of ids) back = back.replaceAll(`"sessionId":"${n}"`, `"sessionId":"${o}"`);
    if (back.toLowerCase() !== was.toLowerCase()) {
      throw new Error(`${path}: a copied line differs beyond its sessionId`);
    }
  }
}
