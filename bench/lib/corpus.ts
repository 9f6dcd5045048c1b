/**
 * The synthetic corpus: copies of the genuine transcripts under new session UUIDs, built once
 * and cached. Two things are rewritten, both in place at the same length: the value of each
 * `"sessionId":"<uuid>"` pair (to the copy's new id for that session), and the project roots
 * of `ROOTS` wherever they occur in a line (to the copy's own variant), so each copy is a set
 * of projects of its own, as a person's store holds many projects rather than one project
 * many times over. Every other byte of every line is the original.
 *
 * Layout: two transcript roots, `a/` and `b/`, each `projects/<folder>/...` with half of the
 * project folders and half of the copies. The full corpus is both roots; the half corpus (for
 * the memory-scaling run) is root `a` alone.
 */
import { basename, dirname, join } from "node:path";
import { MB } from "./stats.ts";

/** Bumped whenever the layout or the rewrite changes, so a stale cache is rebuilt. */
const CORPUS_VERSION = 3;
const UUID_JSONL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;
const AGENT_JSONL = /^agent-.*\.jsonl$/;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const FOLDERS = 20;

/**
 * The roots every `cwd` of the genuine corpus sits under (and their encoded folder-name forms,
 * as tool results quote `~/.claude/projects/<folder>/...`), each with its per-copy variant:
 * `{c}` is the copy's two-character code (`copyCode`), and the variant is exactly as long as
 * the root. Copy 7's erk checkout is `/home/r07ner/work/erk/erk`, its worktrees sit under
 * `/Users/c07rockn/`, and so on: every project of the genuine corpus exists once per copy.
 * A path that merely mentions a name (`pytest-of-schrockn`, `ls -l` owners) is left alone.
 */
export const ROOTS: readonly { from: string; to: string }[] = [
  { from: "/Users/schrockn/", to: "/Users/c{c}rockn/" },
  { from: "-Users-schrockn-", to: "-Users-c{c}rockn-" },
  { from: "/home/runner/", to: "/home/r{c}ner/" },
  { from: "-home-runner-work-", to: "-home-r{c}ner-work-" },
  { from: "/home/dev/", to: "/home/d{c}/" },
  { from: "-home-dev-code-", to: "-home-d{c}-code-" },
  { from: "/path/to/Demo", to: "/p{c}h/to/Demo" },
  { from: "-path-to-Demo", to: "-p{c}h-to-Demo" },
];

const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";

/** The two characters that name copy `c`: `00`..`99`, then `a0`..`zz`. */
export function copyCode(c: number): string {
  if (!Number.isInteger(c) || c < 0) throw new Error(`no copy ${c}`);
  if (c < 100) return String(c).padStart(2, "0");
  const k = c - 100;
  if (k >= 26 * 36) throw new Error(`more than ${100 + 26 * 36} copies: lower --corpus-mb`);
  return DIGITS[10 + Math.floor(k / 36)] + DIGITS[k % 36];
}

/** Each root's variant for copy `c`. */
export function rootVariants(c: number): string[] {
  const code = copyCode(c);
  return ROOTS.map((r) => {
    const v = r.to.replace("{c}", code);
    if (v.length !== r.from.length) throw new Error(`${r.to}: not as long as ${r.from}`);
    return v;
  });
}

/** A path (or any text) of the genuine corpus as copy `c` spells it. */
export function inCopy(text: string, c: number): string {
  const v = rootVariants(c);
  return ROOTS.reduce((t, r, k) => t.replaceAll(r.from, v[k]), text);
}

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
  /** Format version and build time: a store made from an older build of the corpus is stale. */
  buildId: string;
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
  /** Occurrences of a `ROOTS` entry rewritten, over every copy. */
  rewrittenRoots: number;
  /** Distinct `cwd` values over the whole corpus. */
  cwds: number;
  /** `cwd` values of the genuine corpus no `ROOTS` entry covers: the same in every copy. */
  sharedCwds: string[];
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
  const h = b.toHex();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const KEY = new TextEncoder().encode('"sessionId":"');
const enc = new TextEncoder();
const dec = new TextDecoder();

function isHexOrDash(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46) ||
    c === 0x2d;
}

/** Offsets of every occurrence of `needle` in `buf`. */
function findAll(buf: Uint8Array, needle: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = buf.indexOf(needle[0]); i >= 0; i = buf.indexOf(needle[0], i + 1)) {
    if (i + needle.length > buf.length) break;
    let k = 1;
    while (k < needle.length && buf[i + k] === needle[k]) k++;
    if (k === needle.length) {
      out.push(i);
      i += needle.length - 1;
    }
  }
  return out;
}

interface RootHit {
  at: number;
  root: number;
}

/** Where the `ROOTS` occur in one genuine file, in offset order, none overlapping. */
function rootHits(buf: Uint8Array, path: string): RootHit[] {
  const hits = ROOTS.flatMap((r, root) =>
    findAll(buf, enc.encode(r.from)).map((at) => ({ at, root }))
  ).sort((a, b) => a.at - b.at);
  for (let k = 1; k < hits.length; k++) {
    if (hits[k - 1].at + ROOTS[hits[k - 1].root].from.length > hits[k].at) {
      throw new Error(`${path}: two roots overlap at byte ${hits[k].at}`);
    }
  }
  return hits;
}

/** The distinct top-level `cwd` values of one file. */
function cwdsOf(buf: Uint8Array): Set<string> {
  const out = new Set<string>();
  for (const m of dec.decode(buf).matchAll(/"cwd":"((?:[^"\\]|\\.)*)"/g)) {
    try {
      out.add(JSON.parse(`"${m[1]}"`));
    } catch { /* not a JSON string after all */ }
  }
  return out;
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
    const hits = contents.map((b, k) => rootHits(b, src[k].path));
    const sourceCwds = new Set(contents.flatMap((b) => [...cwdsOf(b)]));
    const sharedCwds = [...sourceCwds].filter((d) => ROOTS.every((r) => !d.includes(r.from)))
      .sort();
    const corpusCwds = new Set(sharedCwds);
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
    let rewrittenRoots = 0;
    let fileNo = 0;
    for (let c = 0; c < copies; c++) {
      const partNo = c < perPart ? 0 : 1;
      const part = parts[partNo];
      const variants = rootVariants(c).map((v) => enc.encode(v));
      for (const d of sourceCwds) if (!sharedCwds.includes(d)) corpusCwds.add(inCopy(d, c));
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
        for (const h of hits[k]) buf.set(variants[h.root], h.at);
        rewrittenRoots += hits[k].length;
        if (c === 0 || c === copies - 1) verifyCopy(contents[k], buf, ids, c, s.path);
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
      buildId: `v${CORPUS_VERSION} ${new Date().toISOString()}`,
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
      rewrittenRoots,
      cwds: corpusCwds.size,
      sharedCwds,
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
 * Checks one copy: same length; no `ROOTS` entry left anywhere; each line's top-level
 * sessionId (when it has one) now one of the copy's new ids; and, with the copy's root variants
 * and ids turned back into the originals, every line byte for byte the original (so nothing
 * but the ids and the roots changed).
 */
function verifyCopy(
  orig: Uint8Array,
  copy: Uint8Array,
  ids: Map<string, string>,
  c: number,
  path: string,
) {
  if (orig.length !== copy.length) throw new Error(`${path}: copy changed length`);
  const variants = rootVariants(c);
  for (const r of ROOTS) {
    if (findAll(copy, enc.encode(r.from)).length) {
      throw new Error(`${path}: copy ${c} still holds ${r.from}`);
    }
  }
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
    // Undo the rewrite and compare: nothing but the ids and the roots may differ.
    let back = line;
    for (const [o, n] of ids) back = back.replaceAll(`"sessionId":"${n}"`, `"sessionId":"${o}"`);
    ROOTS.forEach((r, k) => back = back.replaceAll(variants[k], r.from));
    if (back.toLowerCase() !== was.toLowerCase()) {
      throw new Error(`${path}: a copied line differs beyond its sessionId and project roots`);
    }
  }
}
