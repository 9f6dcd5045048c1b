/** Finding and wiring the real Claude Code CLI for end-to-end tests, in a temp HOME. */
import { join } from "node:path";
import { permissionFlags } from "../../core/context.ts";

export const CLAUDE_VERSION = "2.1.328";
const REPO = new URL("../../", import.meta.url).pathname;

/** TERMINUS_CLAUDE_BIN, the cache .ci/run fills, or `claude` on PATH; null when none. */
export function findClaude(): string | null {
  const explicit = Deno.env.get("TERMINUS_CLAUDE_BIN");
  const cacheRoot = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/", ".cache");
  const candidates = [
    explicit,
    join(cacheRoot, "terminus-e2e", "claude", "node_modules", ".bin", "claude"),
  ];
  for (const c of candidates) {
    if (c) {
      try {
        Deno.statSync(c);
        return c;
      } catch { /* not there */ }
    }
  }
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const p = join(dir, "claude");
      Deno.statSync(p);
      return p;
    } catch { /* next */ }
  }
  return null;
}

async function denoDir(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "null",
  })
    .output();
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

export interface Home {
  root: string;
  home: string;
  project: string;
  data: string;
  config: string;
  launcher: string;
  /** Every hook's stderr, appended (the hooks run through a wrapper that copies it here). */
  hookLog: string;
  env: Record<string, string>;
}

/** A temp HOME with a git project, a `terminus` launcher for this checkout, and Terminus's dirs. */
export async function makeHome(modelUrl: string): Promise<Home> {
  const root = await Deno.makeTempDir({ prefix: "terminus-e2e-" });
  const home = join(root, "home");
  const project = join(home, "code", "alpha");
  const data = join(root, "data");
  const config = join(root, "config");
  const bin = join(root, "bin");
  for (const d of [join(project, "src", "worker"), bin, config, join(home, ".claude")]) {
    await Deno.mkdir(d, { recursive: true });
  }
  const launcher = join(bin, "terminus");
  const flags = permissionFlags(Deno.execPath()).map((f) => `'${f}'`).join(" ");
  // The temp HOME has no module cache: point the runtime at this machine's, offline only.
  await Deno.writeTextFile(
    launcher,
    `#!/bin/sh\nDENO_DIR='${await denoDir()}' DENO_NO_UPDATE_CHECK=1 exec '${Deno.execPath()}' run --cached-only ${flags} '${
      join(REPO, "mod.ts")
    }' "$@"\n`,
    { mode: 0o755 },
  );
  const env: Record<string, string> = {
    HOME: home,
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    TERMINUS_DATA_DIR: data,
    TERMINUS_CONFIG_DIR: config,
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: "sk-ant-test-offline",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
  };
  await Deno.writeTextFile(
    join(project, "src", "worker", "S.ts"),
    "export const retryBudget = 3;\nexport class SearchManager {\n  retries = retryBudget;\n}\n",
  );
  for (
    const args of [["init", "-q", "-b", "main"], ["add", "."], [
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@t",
      "commit",
      "-qm",
      "init",
    ]]
  ) {
    const r = await new Deno.Command("git", {
      args,
      cwd: project,
      env,
      clearEnv: true,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!r.success) throw new Error(`git ${args[0]} failed: ${new TextDecoder().decode(r.stderr)}`);
  }
  // Claude Code keeps a quiet hook's stderr to itself; a test told "no brief" needs to know
  // whether the hook said it ran past its deadline, so the hooks' stderr is also kept here.
  const hookLog = join(root, "hook-stderr.log");
  const hookLauncher = join(bin, "terminus-hook");
  await Deno.writeTextFile(
    hookLauncher,
    `#!/bin/sh\nerr="$(mktemp)"\n'${launcher}' "$@" 2>"$err"\nrc=$?\ncat "$err" >>'${hookLog}'\ncat "$err" >&2\nrm -f "$err"\nexit $rc\n`,
    { mode: 0o755 },
  );
  const hooks: Record<string, unknown> = {};
  for (const event of ["SessionStart", "UserPromptSubmit", "SessionEnd", "PostCompact"]) {
    hooks[event] = [{
      matcher: "",
      hooks: [{ type: "command", command: hookLauncher, args: ["hook", event] }],
    }];
  }
  await Deno.writeTextFile(
    join(home, ".claude", "settings.json"),
    JSON.stringify({ hooks }, null, 2) + "\n",
  );
  return { root, home, project, data, config, launcher, hookLog, env };
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export async function run(cmd: string, args: string[], h: Home, timeoutMs = 120_000): Promise<Run> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: h.project,
    env: h.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutMs),
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Every transcript record Claude Code wrote for this project, per file. */
export function transcripts(h: Home): Map<string, Record<string, unknown>[]> {
  const dir = join(h.home, ".claude", "projects");
  const out = new Map<string, Record<string, unknown>[]>();
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) walk(p);
      else if (e.name.endsWith(".jsonl")) {
        out.set(
          p,
          Deno.readTextFileSync(p).split("\n").filter((l) => l.trim()).map((l) => {
            try {
              return JSON.parse(l);
            } catch {
              return {};
            }
          }),
        );
      }
    }
  };
  try {
    walk(dir);
  } catch { /* no transcripts yet */ }
  return out;
}

/** Runs passes until one really ran: hooks start detached passes, and one at a time runs. */
export async function ingestSettled(h: Home): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const r = await run(h.launcher, ["ingest"], h, 60_000);
    if (r.code !== 0) throw new Error(`terminus ingest exited ${r.code}: ${r.stderr}`);
    if (!r.stderr.includes("holds the ingest lock")) return;
    await new Promise((res) => setTimeout(res, 250));
  }
  throw new Error("the ingest lock stayed held");
}
