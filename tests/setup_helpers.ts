/**
 * Helpers for the install, uninstall and doctor tests: a sandbox with its own PATH (holding
 * the real `claude`, a fake one, or none), the setup paths inside it, and a snapshot of a
 * whole tree (bytes, modes, mtimes, link targets) to prove a run wrote nothing.
 */
import { join } from "node:path";
import { findClaude } from "./e2e/claude.ts";
import {
  cliArgs,
  type CliResult,
  runCli,
  type Sandbox,
  sandbox,
  writeTranscript,
} from "./helpers.ts";
import { VERSION } from "../core/constants.ts";
import { detachedGone } from "./inject_helpers.ts";

export const CLAUDE = findClaude();
export const SLOW = Deno.env.get("TERMINUS_SLOW_TESTS") === "1";

if (!CLAUDE) {
  console.warn(
    "setup tests: the claude CLI was not found (TERMINUS_CLAUDE_BIN, ~/.cache/terminus-e2e/claude, PATH); the tests that need it are skipped",
  );
}

const SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin";

export interface SetupBox extends Sandbox {
  /** A folder at the front of PATH: `claude` goes here (or not). */
  bin: string;
  link: string;
  versions: string;
  versionFile: string;
  settings: string;
  backup: string;
  claudeJson: string;
}

export type ClaudeKind = "real" | "none" | { script: string };

/** A sandbox whose PATH holds the real claude, no claude, or a fake script named claude. */
export async function setupBox(kind: ClaudeKind = "real"): Promise<SetupBox> {
  const sb = await sandbox();
  const bin = join(sb.dir, "bin");
  await Deno.mkdir(bin);
  if (kind === "real") {
    if (!CLAUDE) throw new Error("no claude CLI");
    await Deno.symlink(CLAUDE, join(bin, "claude"));
  } else if (kind !== "none") {
    await Deno.writeTextFile(join(bin, "claude"), kind.script, { mode: 0o755 });
  }
  sb.env.PATH = `${bin}:${SYSTEM_PATH}`;
  const versions = join(sb.home, ".local", "lib", "crenshawdev", "terminus", "versions");
  return {
    ...sb,
    bin,
    link: join(sb.home, ".local", "bin", "terminus"),
    versions,
    versionFile: join(versions, VERSION, "terminus"),
    settings: join(sb.claude, "settings.json"),
    backup: join(sb.claude, "settings.json.terminus-backup"),
    claudeJson: join(sb.claude, ".claude.json"),
  };
}

/** Runs the installed program through its link, with the sandbox's environment. */
export function runLink(sb: Sandbox, args: string[]): Promise<CliResult> {
  return runCli(sb, args, { program: linkOf(sb) });
}

/**
 * Installs the checkout into the sandbox as a bundled copy: first the bundler in the sandbox's
 * module cache, as `deno task install` leaves it (Terminus itself never fetches it). Returns the
 * installed copy's folder; fails when the copy was not bundled.
 */
export async function installBundled(sb: Sandbox): Promise<string> {
  const scratch = join(sb.dir, "warm.ts");
  await Deno.writeTextFile(scratch, "export const warm = 1;\n");
  const warm = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "deno", "--outdir", join(sb.dir, "warm"), scratch],
    env: { DENO_DIR: sb.env.DENO_DIR! },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!warm.success) throw new Error(new TextDecoder().decode(warm.stderr));
  const r = await runCli(sb, ["install"]);
  if (/not as a bundle/.test(r.out)) throw new Error(`the copy was not bundled:\n${r.out}`);
  const versionFile = join(
    sb.home,
    ".local",
    "lib",
    "crenshawdev",
    "terminus",
    "versions",
    VERSION,
    "terminus",
  );
  const launcher = await Deno.readTextFile(await Deno.realPath(versionFile));
  const main = /(\S+\/source-[0-9a-f]+\/mod\.js)'? "\$@"/.exec(launcher)?.[1];
  if (!main) throw new Error(`the launcher does not run the bundle's entry:\n${launcher}`);
  return main.replace(/^'/, "").slice(0, -"/mod.js".length);
}

/** The link `terminus install` places in a sandbox's HOME. */
export function linkOf(sb: Sandbox): string {
  return join(sb.home, ".local", "bin", "terminus");
}

export function install(
  sb: SetupBox,
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  return runCli(sb, ["install"], { env });
}

/** Runs the CLI with `input` on stdin. */
export async function runWithInput(sb: Sandbox, args: string[], input: string): Promise<CliResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(args),
    cwd: sb.dir,
    env: sb.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(input));
  await w.close();
  const o = await child.output();
  const dec = new TextDecoder();
  return {
    code: o.code,
    signal: o.signal,
    stdout: o.stdout,
    out: dec.decode(o.stdout),
    err: dec.decode(o.stderr),
  };
}

/** Runs the real claude with the sandbox's environment. */
export async function claude(
  sb: SetupBox,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  const o = await new Deno.Command(join(sb.bin, "claude"), {
    args,
    cwd: sb.dir,
    env: { ...sb.env, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  }).output();
  const dec = new TextDecoder();
  return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
}

/** mcpServers.terminus in the sandbox's .claude.json, or undefined. */
export async function mcpEntry(sb: SetupBox): Promise<unknown> {
  try {
    const doc = JSON.parse(await Deno.readTextFile(sb.claudeJson));
    return doc?.mcpServers?.terminus;
  } catch {
    return undefined;
  }
}

export async function sha256(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", bytes);
  return new Uint8Array(d).toHex();
}

/**
 * Every entry below `root` (not following links): its type, mode, size, mtime, link target
 * and a hash of its bytes. Two equal snapshots mean nothing was written, created or removed.
 */
export async function snapshot(
  root: string,
  skip: (path: string) => boolean = () => false,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (dir: string) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [];
      for await (const e of Deno.readDir(dir)) entries.push(e);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return;
      throw e;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (skip(p)) continue;
      const st = await Deno.lstat(p);
      let detail = `${
        st.isFile ? "f" : st.isDirectory ? "d" : st.isSymlink ? "l" : "?"
      } ${st.mode} ${st.mtime?.getTime() ?? 0}`;
      if (st.isSymlink) detail += ` -> ${await Deno.readLink(p)}`;
      if (st.isFile) detail += ` ${st.size} ${await sha256(await Deno.readFile(p))}`;
      out.set(p, detail);
      if (st.isDirectory) await walk(p);
    }
  };
  out.set(root, (await Deno.lstat(root)).mtime?.getTime().toString() ?? "");
  await walk(root);
  return out;
}

export function diffSnapshots(a: Map<string, string>, b: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of a) {
    if (!b.has(k)) out.push(`removed ${k}`);
    else if (b.get(k) !== v) out.push(`changed ${k}: ${v} => ${b.get(k)}`);
  }
  for (const k of b.keys()) if (!a.has(k)) out.push(`added ${k}`);
  return out;
}

/** Runs `ingest` until a pass really ran (a detached backfill may hold the lock). */
export async function settle(sb: Sandbox): Promise<void> {
  // First the detached passes install (or a hook) started: one not yet holding the lock would
  // otherwise slip past the loop below and write while a test compares snapshots.
  await detachedGone(sb.data);
  for (let i = 0; i < 120; i++) {
    const r = await runCli(sb, ["ingest"]);
    if (r.code === 0 && !r.err.includes("holds the ingest lock")) return;
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error("the ingest lock stayed held");
}

export { sandbox };

/** One session of one typed turn (`hello`) in `project`, written under the sandbox's Claude root. */
export async function oneTurnTranscript(sb: SetupBox, project: string): Promise<void> {
  const sessionId = "11111111-1111-4111-8111-111111111111";
  await writeTranscript(
    sb.claude,
    project,
    `${sessionId}.jsonl`,
    JSON.stringify({
      type: "user",
      uuid: "u1",
      parentUuid: null,
      timestamp: "2026-08-12T21:00:00.000Z",
      cwd: project,
      sessionId,
      message: { role: "user", content: "hello" },
    }) + "\n",
  );
}
