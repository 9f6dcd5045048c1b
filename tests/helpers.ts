/**
 * Shared test helpers: a sandbox of temp folders, the CLI run as a real child process with
 * the program's own permission flags, a transcript tree builder, and read-only looks into
 * the store. Nothing here mocks anything.
 */
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { permissionFlags } from "../core/context.ts";
import { openRead } from "../core/store/db.ts";
import { readWholeStream } from "../core/store/archive.ts";
import { initCodec } from "../core/store/codec.ts";
import { concat } from "../core/bytes.ts";

/** The CLI's entry, found relative to this file. */
export const MOD_PATH = fileURLToPath(new URL("../mod.ts", import.meta.url));
export const REPO_DIR = dirname(MOD_PATH);
export const FIXTURES_DIR = fileURLToPath(new URL("./fixtures/", import.meta.url));

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/* ---------- the sandbox ---------- */

export interface Sandbox extends AsyncDisposable {
  /** The temp folder holding everything below. */
  dir: string;
  home: string;
  /** TERMINUS_DATA_DIR (not created: the first pass creates it). */
  data: string;
  /** TERMINUS_CONFIG_DIR (created, empty). */
  config: string;
  /** CLAUDE_CONFIG_DIR, the default transcript root (created, with an empty projects/). */
  claude: string;
  store: string;
  /** The environment every CLI child gets. */
  env: Record<string, string>;
}

let denoDirPromise: Promise<string> | undefined;

/**
 * The children get a temp HOME, so they are pointed at the runtime's real module cache;
 * otherwise each would try to fetch the npm dependencies again.
 */
function denoDir(): Promise<string> {
  denoDirPromise ??= (async () => {
    const set = Deno.env.get("DENO_DIR");
    if (set) return set;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json"],
      stdout: "piped",
      stderr: "null",
      env: { NO_COLOR: "1" },
    }).output();
    return JSON.parse(decoder.decode(out.stdout)).denoDir as string;
  })();
  return denoDirPromise;
}

/**
 * A temp world: HOME, TERMINUS_CONFIG_DIR and CLAUDE_CONFIG_DIR (with an empty projects/)
 * made, TERMINUS_DATA_DIR named but not made (the first pass creates it), and `env` naming
 * them plus `extra`. The in-process layer (tests/unit/world.ts) builds on it too.
 */
export async function tempWorld(prefix: string, extra: Record<string, string>): Promise<Sandbox> {
  const dir = await Deno.makeTempDir({ prefix });
  const home = join(dir, "home");
  const config = join(dir, "config");
  const claude = join(dir, "claude");
  const data = join(dir, "data");
  await Deno.mkdir(home);
  await Deno.mkdir(config);
  await Deno.mkdir(join(claude, "projects"), { recursive: true });
  const env: Record<string, string> = {
    HOME: home,
    TERMINUS_DATA_DIR: data,
    TERMINUS_CONFIG_DIR: config,
    CLAUDE_CONFIG_DIR: claude,
    NO_COLOR: "1",
    ...extra,
  };
  return {
    dir,
    home,
    data,
    config,
    claude,
    store: join(data, "terminus.db"),
    env,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

export async function sandbox(): Promise<Sandbox> {
  return tempWorld("terminus-test-", {
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    DENO_DIR: await denoDir(),
    DENO_NO_UPDATE_CHECK: "1",
  });
}

/* ---------- running the CLI ---------- */

export interface CliOptions {
  /** Extra variables; `undefined` removes one of the sandbox's. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /**
   * Run with the permission checks root would skip: as root, CAP_DAC_OVERRIDE and
   * CAP_DAC_READ_SEARCH leave the bounding set, so a 0500 folder is read-only to the child.
   */
  asUser?: boolean;
  /** Another way in to the program than `deno run mod.ts`: an installed link, say. */
  program?: string;
}

export interface CliResult {
  code: number;
  signal: Deno.Signal | null;
  /** stdout exactly as written. */
  stdout: Uint8Array;
  /** stdout decoded. */
  out: string;
  err: string;
}

/** The argv the CLI runs under: the runtime (by its full path, as the program names itself), its flags, mod.ts. */
export function cliArgs(args: string[]): string[] {
  return ["run", ...permissionFlags(Deno.execPath()), MOD_PATH, ...args];
}

function childEnv(sb: Sandbox, extra: CliOptions["env"]): Record<string, string> {
  const env = { ...sb.env };
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** A CLI command ready to spawn, with piped stdout and stderr unless told otherwise. */
export function cliCommand(
  sb: Sandbox,
  args: string[],
  opts: CliOptions & {
    stdin?: "piped" | "null";
    stdout?: "piped" | "null";
    stderr?: "piped" | "null";
    /** In a session and process group of its own, as Claude Code starts a hook. */
    detached?: boolean;
  } = {},
): Deno.Command {
  const argv = opts.program ? [opts.program, ...args] : [Deno.execPath(), ...cliArgs(args)];
  const [cmd, ...rest] = opts.asUser && Deno.uid() === 0
    ? ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--", ...argv]
    : argv;
  return new Deno.Command(cmd, {
    args: rest,
    cwd: opts.cwd ?? sb.dir,
    env: childEnv(sb, opts.env),
    clearEnv: true,
    stdin: opts.stdin ?? "null",
    stdout: opts.stdout ?? "piped",
    stderr: opts.stderr ?? "piped",
    detached: opts.detached ?? false,
  });
}

export async function runCli(
  sb: Sandbox,
  args: string[],
  opts: CliOptions = {},
): Promise<CliResult> {
  const o = await cliCommand(sb, args, opts).output();
  return {
    code: o.code,
    signal: o.signal,
    stdout: o.stdout,
    out: decoder.decode(o.stdout),
    err: decoder.decode(o.stderr),
  };
}

/** Runs the CLI and fails with its output when the exit code is not the one expected. */
export async function cliOk(
  sb: Sandbox,
  args: string[],
  opts: CliOptions & { code?: number } = {},
): Promise<CliResult> {
  const r = await runCli(sb, args, opts);
  const want = opts.code ?? 0;
  if (r.code !== want) {
    throw new Error(
      `terminus ${
        args.join(" ")
      } exited ${r.code} (wanted ${want})\nstdout: ${r.out}\nstderr: ${r.err}`,
    );
  }
  return r;
}

/* ---------- JSON ---------- */

/** An independent re-serialisation with keys sorted at every depth. */
export function sortedStringify(v: unknown): string {
  const sort = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(sort);
    if (x !== null && typeof x === "object") {
      const o = x as Record<string, unknown>;
      return Object.fromEntries(Object.keys(o).sort().map((k) => [k, sort(o[k])]));
    }
    return x;
  };
  return JSON.stringify(sort(v));
}

export interface Envelope {
  command: string;
  data: Record<string, unknown>;
  ok: boolean;
  reason: string | null;
}

/**
 * Checks that stdout is exactly one line of JSON, with keys sorted at every depth and the
 * envelope's four keys, and returns it parsed.
 */
export function parseEnvelope(out: string): Envelope {
  if (!out.endsWith("\n")) throw new Error(`stdout does not end in a newline: ${out}`);
  const body = out.slice(0, -1);
  if (body.includes("\n")) throw new Error(`stdout holds more than one line: ${out}`);
  const doc = JSON.parse(body);
  if (sortedStringify(doc) !== body) {
    throw new Error(`keys are not sorted at every depth:\n${body}\n${sortedStringify(doc)}`);
  }
  const keys = Object.keys(doc).join(",");
  if (keys !== "command,data,ok,reason") throw new Error(`envelope keys are ${keys}`);
  return doc as Envelope;
}

/* ---------- transcript trees ---------- */

/** Claude Code's project folder name: every non-alphanumeric character of the cwd becomes `-`. */
export function encodeCwd(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, "-");
}

export function projectDir(root: string, cwd: string): string {
  return join(root, "projects", encodeCwd(cwd));
}

/**
 * Writes a transcript at `<root>/projects/<encoded cwd>/<rel>` (rel is `<uuid>.jsonl` or a
 * sidecar path below the project folder) and returns its absolute path.
 */
export async function writeTranscript(
  root: string,
  cwd: string,
  rel: string,
  content: string | Uint8Array,
): Promise<string> {
  const path = join(projectDir(root, cwd), rel);
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeFile(path, typeof content === "string" ? encoder.encode(content) : content);
  return path;
}

export async function appendTo(path: string, content: string | Uint8Array): Promise<void> {
  await Deno.writeFile(path, typeof content === "string" ? encoder.encode(content) : content, {
    append: true,
  });
}

/** Reads a fixture from tests/fixtures/. */
export function fixture(name: string): Promise<Uint8Array> {
  return Deno.readFile(join(FIXTURES_DIR, name));
}

export function fixtureText(name: string): Promise<string> {
  return Deno.readTextFile(join(FIXTURES_DIR, name));
}

/** Serialises records (or raw lines) as JSONL; every line ends in a newline. */
export function jsonl(lines: (Record<string, unknown> | string)[]): string {
  return lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l)) + "\n").join("");
}

export function bytes(...parts: (string | Uint8Array | number[])[]): Uint8Array {
  const arrs = parts.map((p) =>
    typeof p === "string" ? encoder.encode(p) : p instanceof Uint8Array ? p : new Uint8Array(p)
  );
  return concat(arrs);
}

/** A deterministic pseudo-random source (mulberry32), so a failing tree can be rebuilt. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function uuidFrom(rand: () => number): string {
  const h = () => Math.floor(rand() * 16).toString(16);
  const s = (n: number) => Array.from({ length: n }, h).join("");
  return `${s(8)}-${s(4)}-4${s(3)}-8${s(3)}-${s(12)}`;
}

const WORDS = (
  "the retry budget worker search manager index block archive session transcript turn hook " +
  "prompt brief recall compact store verify hash stream offset watermark cargo test build " +
  "src/worker/S.ts error failed passed function const let return await async import export"
).split(" ");

function words(rand: () => number, chars: number): string {
  const out: string[] = [];
  let n = 0;
  while (n < chars) {
    const w = rand() < 0.05
      ? Math.floor(rand() * 1e9).toString(36)
      : WORDS[Math.floor(rand() * WORDS.length)];
    out.push(w);
    n += w.length + 1;
  }
  return out.join(" ");
}

export interface SessionOptions {
  sessionId: string;
  cwd: string;
  /** Roughly how many bytes to write. */
  bytes: number;
  rand: () => number;
  /** Start time of the first turn. */
  start?: Date;
  sidechain?: boolean;
}

/**
 * A synthetic session of alternating user, assistant, tool-result, attachment and state
 * records, mostly small with the odd large tool output, close to `bytes` long.
 */
export function syntheticSession(o: SessionOptions): string {
  const lines: string[] = [];
  let size = 0;
  let t = (o.start ?? new Date("2026-08-12T21:00:00.000Z")).getTime();
  let parent: string | null = null;
  let i = 0;
  const push = (r: Record<string, unknown>) => {
    const s = JSON.stringify(r) + "\n";
    lines.push(s);
    size += s.length;
  };
  while (size < o.bytes) {
    const uuid = uuidFrom(o.rand);
    t += 1000 + Math.floor(o.rand() * 5000);
    const base = {
      parentUuid: parent,
      isSidechain: o.sidechain ?? false,
      uuid,
      timestamp: new Date(t).toISOString(),
      cwd: o.cwd,
      sessionId: o.sessionId,
      version: "2.1.328",
      gitBranch: "main",
    };
    const kind = i++ % 5;
    const r = o.rand();
    const big = r < 0.02 ? 150_000 : r < 0.2 ? 6_000 : 300;
    if (kind === 0) {
      push({ ...base, type: "user", message: { role: "user", content: words(o.rand, 120) } });
    } else if (kind === 1) {
      push({
        ...base,
        type: "assistant",
        message: {
          id: `msg_${i}`,
          role: "assistant",
          content: [
            { type: "text", text: words(o.rand, 200) },
            { type: "tool_use", id: `toolu_${i}`, name: "Bash", input: { command: "cargo test" } },
          ],
        },
      });
    } else if (kind === 2) {
      const output = words(o.rand, Math.min(big, Math.max(100, o.bytes - size)));
      push({
        ...base,
        type: "user",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: `toolu_${i - 1}`, content: output }],
        },
        toolUseResult: { stdout: output, stderr: "", interrupted: false, isImage: false },
      });
    } else if (kind === 3) {
      push({
        ...base,
        type: "attachment",
        attachment: { type: "hook_success", stdout: words(o.rand, 80), exitCode: 0 },
      });
    } else {
      push({ type: "progress", sessionId: o.sessionId, data: { note: words(o.rand, 60) } });
      push({ type: "last-prompt", lastPrompt: words(o.rand, 40), sessionId: o.sessionId });
      continue;
    }
    parent = uuid;
  }
  return lines.join("");
}

export interface BigTree {
  files: string[];
  totalBytes: number;
}

/**
 * A larger tree: `files` transcripts (some of them subagent sidecars) spread over a few
 * project folders, about `totalBytes` in all.
 */
export async function bigTree(
  root: string,
  opts: { files: number; totalBytes: number; seed: number },
): Promise<BigTree> {
  const rand = prng(opts.seed);
  const out: string[] = [];
  let total = 0;
  const per = Math.floor(opts.totalBytes / opts.files);
  const parents: { cwd: string; id: string }[] = [];
  for (let i = 0; i < opts.files; i++) {
    const cwd = `/nonexistent/terminus-big/project-${i % 6}`;
    const size = Math.floor(per * (0.3 + 1.4 * rand()));
    let rel: string;
    let sid: string;
    if (i % 10 === 9 && parents.length > 0) {
      const p = parents[Math.floor(rand() * parents.length)];
      sid = p.id;
      rel = `${p.id}/subagents/agent-a${i.toString(16)}.jsonl`;
      const text = syntheticSession({
        sessionId: sid,
        cwd: p.cwd,
        bytes: size,
        rand,
        sidechain: true,
      });
      out.push(await writeTranscript(root, p.cwd, rel, text));
      total += text.length;
      continue;
    }
    sid = uuidFrom(rand);
    rel = `${sid}.jsonl`;
    parents.push({ cwd, id: sid });
    const text = syntheticSession({ sessionId: sid, cwd, bytes: size, rand });
    out.push(await writeTranscript(root, cwd, rel, text));
    total += text.length;
  }
  return { files: out, totalBytes: total };
}

/* ---------- looking into the store ---------- */

/** Every archived session's whole stream, by session_key, read in-process. */
export async function archivedStreams(store: string): Promise<Map<string, Uint8Array>> {
  await initCodec();
  const opened = openRead(store);
  if (!opened) return new Map();
  try {
    const rows = opened.db.prepare("SELECT session_no, session_key FROM sessions").all() as {
      session_no: number;
      session_key: string;
    }[];
    return new Map(rows.map((r) => [r.session_key, readWholeStream(opened.db, r.session_no)]));
  } finally {
    opened.db.close();
  }
}

/** Runs one query against the store, opened read-only. */
export function query<T = Record<string, unknown>>(
  store: string,
  sql: string,
  ...params: (string | number | null)[]
): T[] {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    // node:sqlite rows have a null prototype; plain objects compare with deepEqual
    return db.prepare(sql).all(...params).map((r) => ({ ...r })) as T[];
  } finally {
    db.close();
  }
}

/** The session key a transcript gets: its path below the project folder. */
export function keyOf(root: string, path: string): string {
  const projects = join(root, "projects") + "/";
  if (!path.startsWith(projects)) throw new Error(`${path} is not under ${projects}`);
  const rest = path.slice(projects.length).split("/").slice(1);
  // an agent-*.jsonl directly in a project folder is outside the two shapes: its canonical path
  if (rest.length === 1 && rest[0].startsWith("agent-")) return Deno.realPathSync(path);
  return rest.join("/");
}

/** Fails with the first differing offset rather than dumping two large arrays. */
export function assertSameBytes(
  actual: Uint8Array | undefined,
  expected: Uint8Array,
  what: string,
) {
  if (actual === undefined) throw new Error(`${what}: nothing archived`);
  const n = Math.min(actual.length, expected.length);
  for (let i = 0; i < n; i++) {
    if (actual[i] !== expected[i]) {
      throw new Error(
        `${what}: first difference at byte ${i} (archived ${actual.length} byte(s), file ${expected.length})`,
      );
    }
  }
  if (actual.length !== expected.length) {
    throw new Error(`${what}: archived ${actual.length} byte(s), file ${expected.length}`);
  }
}

/** Asserts every file's archived stream equals the file, and that nothing else is archived. */
export async function assertArchiveEqualsFiles(
  store: string,
  root: string,
  files: string[],
): Promise<void> {
  const streams = await archivedStreams(store);
  for (const f of files) {
    assertSameBytes(streams.get(keyOf(root, f)), await Deno.readFile(f), f);
  }
  const want = new Set(files.map((f) => keyOf(root, f)));
  const extra = [...streams.keys()].filter((k) => !want.has(k));
  if (extra.length) throw new Error(`archived sessions with no file: ${extra.join(", ")}`);
}

export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

export async function writeConfig(sb: Sandbox, toml: string): Promise<string> {
  const path = join(sb.config, "terminus.toml");
  await Deno.writeTextFile(path, toml);
  return path;
}

/** The transcript roots of a corpus folder: each subfolder holding a `projects/` folder. */
export function corpusRoots(corpus: string): string[] {
  return [...Deno.readDirSync(corpus)]
    .filter((e) => e.isDirectory)
    .map((e) => join(corpus, e.name))
    .filter((d) => {
      try {
        return Deno.statSync(join(d, "projects")).isDirectory;
      } catch {
        return false;
      }
    })
    .sort();
}
