/**
 * Running the Terminus CLI the way a person does: `deno run <PERMISSION_FLAGS> mod.ts <cmd>`,
 * with its own data, config and Claude directories so nothing outside bench/out is touched.
 */
import { join } from "node:path";
import { permissionFlags } from "../../core/context.ts";
import { MALLOC_MMAP_THRESHOLD_BYTES, MALLOC_TRIM_THRESHOLD_BYTES } from "../../core/constants.ts";
import { type RunResult, runTimed } from "./proc.ts";

export interface Scenario {
  name: string;
  /** Holds data/, config/, claude/. */
  dir: string;
  dataDir: string;
  configDir: string;
  claudeDir: string;
  store: string;
  roots: string[];
}

/** Creates (emptying first when `fresh`) a scenario folder whose terminus.toml names `roots`. */
export function scenario(workDir: string, name: string, roots: string[], fresh: boolean): Scenario {
  const dir = join(workDir, name);
  if (fresh) {
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
  const s: Scenario = {
    name,
    dir,
    dataDir: join(dir, "data"),
    configDir: join(dir, "config"),
    claudeDir: join(dir, "claude"),
    store: join(dir, "data", "terminus.db"),
    roots,
  };
  Deno.mkdirSync(s.configDir, { recursive: true });
  Deno.mkdirSync(s.claudeDir, { recursive: true });
  Deno.writeTextFileSync(
    join(s.configDir, "terminus.toml"),
    `roots = [${roots.map((r) => JSON.stringify(r)).join(", ")}]\n`,
  );
  return s;
}

export function scenarioEnv(s: Scenario): Record<string, string> {
  return {
    TERMINUS_DATA_DIR: s.dataDir,
    TERMINUS_CONFIG_DIR: s.configDir,
    CLAUDE_CONFIG_DIR: s.claudeDir,
    INIT_CWD: "",
    NO_COLOR: "1",
    // as the installed launcher sets them: a `deno run` of the checkout without them measured
    // a backfill a third faster than the launcher ran it (issue #24: why the two differed)
    MALLOC_MMAP_THRESHOLD_: String(MALLOC_MMAP_THRESHOLD_BYTES),
    MALLOC_TRIM_THRESHOLD_: String(MALLOC_TRIM_THRESHOLD_BYTES),
  };
}

/** The argv that runs the CLI from the checkout (with a young generation of `semiSpaceMib`). */
export function cliArgs(repo: string, args: string[], semiSpaceMib?: number): string[] {
  return ["run", ...permissionFlags(Deno.execPath(), semiSpaceMib), join(repo, "mod.ts"), ...args];
}

export interface IngestRun extends RunResult {
  /** Parsed from the pass's count line, when present. */
  pass: {
    filesSeen: number;
    filesCommitted: number;
    filesFailed: number;
    bytesRead: number;
    turnsAdded: number;
    durationMs: number;
  } | null;
}

const COUNTS =
  /(\d+) file\(s\) walked, (\d+) committed, (\d+) failed, (\d+) byte\(s\) read, (\d+) turn\(s\) added in (\d+) ms/;

/** One `terminus ingest` process; throws when it exits non-zero or reports failed files. */
export async function ingest(
  repo: string,
  s: Scenario,
  opt: { timeDir?: string; semiSpaceMib?: number } = {},
): Promise<IngestRun> {
  const r = await runTimed(Deno.execPath(), cliArgs(repo, ["ingest"], opt.semiSpaceMib), {
    cwd: repo,
    env: scenarioEnv(s),
    timeDir: opt.timeDir,
  });
  if (r.code !== 0) {
    throw new Error(`terminus ingest exited ${r.code}:\n${r.stderr}${r.stdout}`);
  }
  const m = COUNTS.exec(r.stderr + r.stdout);
  const pass = m
    ? {
      filesSeen: Number(m[1]),
      filesCommitted: Number(m[2]),
      filesFailed: Number(m[3]),
      bytesRead: Number(m[4]),
      turnsAdded: Number(m[5]),
      durationMs: Number(m[6]),
    }
    : null;
  if (pass && pass.filesFailed > 0) {
    throw new Error(`terminus ingest: ${pass.filesFailed} file(s) failed:\n${r.stderr}`);
  }
  return { ...r, pass };
}
