/**
 * terminus install: every check first, then the program and the link, the four hook
 * entries, the MCP entry (through `claude mcp`), the report on two Claude Code settings, and
 * a detached backfill. A file already current is not written, so a second run writes nothing.
 */
import type { Env } from "../paths.ts";
import { dataDir as resolveDataDir, storePath, transcriptRoots } from "../paths.ts";
import { loadConfig } from "../config.ts";
import { dirname, exists } from "../posix.ts";
import { probeStore } from "../store/probe.ts";
import { runtimePath } from "../context.ts";
import { type Locations, locations, onPath, pathLine, type SetupHookEvent } from "./locations.ts";
import { examineLink, type Program, runningProgram } from "./link.ts";
import { planSource, type SourcePlan } from "./source.ts";
import { placeCompiled, type Placed, placeInstalled, placeLink, placeSource } from "./placement.ts";
import {
  hooksShapeProblem,
  isTwoSpace,
  readSettings,
  twoSpace,
  withEntries,
  writeAtomic,
} from "./settings.ts";
import {
  addArgs,
  claudeOnPath,
  readMcpState,
  REMOVE_ARGS,
  runClaude,
  typed,
  wantedEntry,
} from "./claude.ts";
import { judgeCleanup, readLayered, type Verdict } from "./claude_settings.ts";
import { sizeBackfill, type Sizing } from "./backfill.ts";
import { startFirstBackfill } from "../ingest/backfill.ts";

export interface InstallInput {
  env: Env;
  /** How to run this program again (Context.self). */
  self: string[];
  /** terminus(1), written from the command registry (core/setup/manpage.ts). */
  manPage?: string;
}

export type McpHow = "current" | "added" | "replaced" | "not registered";

export interface InstallReport {
  /** A refusal before anything was written; nothing else is set. */
  refused: string | null;
  loc: Locations;
  /** Set when the MCP server could not be registered. */
  incomplete: { reason: string; finish: string } | null;
  link: { wrote: boolean; was: string | null };
  version: {
    file: string;
    wrote: boolean;
    fromSource: boolean;
    /** A source copy placed now that runs from its source rather than a bundle: why. */
    unbundled?: string;
  };
  settings: { added: SetupHookEvent[]; rewroteForm: boolean; created: boolean };
  /** The copy of settings.json written on this run, if any. */
  backupWritten: string | null;
  mcp: McpHow;
  cleanup: Verdict;
  dataDir: string;
  roots: string[];
  backfill: { sizing: Sizing | null; problem: string | null; started: boolean };
  /** The shell line that puts the link's folder on PATH, when it is not there. */
  pathLine: { line: string; file: string | null } | null;
  /** The man page: written now, already current, or why it could not be; null when none given. */
  manPage: { path: string; wrote: boolean; problem: string | null } | null;
}

function refusal(loc: Locations, message: string): InstallReport {
  return {
    refused: message,
    loc,
    incomplete: null,
    link: { wrote: false, was: null },
    version: { file: "", wrote: false, fromSource: false },
    settings: { added: [], rewroteForm: false, created: false },
    backupWritten: null,
    mcp: "current",
    cleanup: { state: "ok", finding: "", fix: null },
    dataDir: "",
    roots: [],
    backfill: { sizing: null, problem: null, started: false },
    pathLine: null,
    manPage: null,
  };
}

/** Writes the man page unless the file already holds exactly it; never fails the install. */
function placeManPage(path: string, text: string): NonNullable<InstallReport["manPage"]> {
  try {
    if (Deno.readTextFileSync(path) === text) return { path, wrote: false, problem: null };
  } catch { /* not there yet */ }
  try {
    writeAtomic(path, text); // its folders 0755 whatever the umask, as every folder install makes
    return { path, wrote: true, problem: null };
  } catch (e) {
    return { path, wrote: false, problem: (e as Error).message };
  }
}

/** The placed program's argv, its runtime swapped for the full path this process may run. */
function runnable(argv: string[]): string[] {
  return [runtimePath(), ...argv.slice(1)];
}

async function registerMcp(
  loc: Locations,
  env: Env,
): Promise<{ how: McpHow; incomplete: InstallReport["incomplete"] }> {
  const state = readMcpState(loc.claudeJson, loc.link);
  if (state.kind === "current") return { how: "current", incomplete: null };
  const add = addArgs(wantedEntry(loc.link, state.kind === "other" ? state.entry : undefined));
  const finishAdd = typed(add);
  const finishBoth = `${typed(REMOVE_ARGS)} && ${finishAdd}`;
  if (state.kind === "unreadable") {
    return {
      how: "not registered",
      incomplete: { reason: `${state.reason}, so no claude was run`, finish: finishAdd },
    };
  }
  const finish = state.kind === "other" ? finishBoth : finishAdd;
  const claude = claudeOnPath(env);
  if (!claude) {
    return { how: "not registered", incomplete: { reason: "claude is not on PATH", finish } };
  }
  if (state.kind === "other") {
    const rm = await runClaude(claude, REMOVE_ARGS);
    if (rm.failure) {
      return {
        how: "not registered",
        incomplete: { reason: `${rm.failure}; the add was not run`, finish },
      };
    }
  }
  const r = await runClaude(claude, add);
  if (r.failure) {
    return { how: "not registered", incomplete: { reason: r.failure, finish: finishAdd } };
  }
  return { how: state.kind === "other" ? "replaced" : "added", incomplete: null };
}

export async function install(inp: InstallInput): Promise<InstallReport> {
  const { env } = inp;
  const loc = locations(env);

  // ---- checks: nothing is written until every one has passed ----
  const at = examineLink(loc);
  if (at.kind === "foreign") {
    return refusal(
      loc,
      `${loc.link} is ${at.what}, which terminus install did not put there. Nothing was changed; move it aside, then run terminus install again.`,
    );
  }
  const program: Program = runningProgram(loc);
  let plan: SourcePlan | null = null;
  if (program.kind === "checkout") {
    try {
      plan = await planSource(program.root, env);
    } catch (e) {
      return refusal(loc, `${(e as Error).message}. Nothing was changed.`);
    }
  }
  let data: string;
  try {
    data = resolveDataDir(env);
  } catch (e) {
    return refusal(loc, `${(e as Error).message}. Nothing was changed.`);
  }
  const store = storePath(data);
  const probe = probeStore(store);
  let storeProblem: string | null = null;
  if (probe.kind === "ok") probe.db.close();
  else if (probe.kind === "older") return refusal(loc, `${probe.message}. Nothing was changed.`);
  else if (probe.kind === "newer" || probe.kind === "unreadable") storeProblem = probe.message;
  const settings = readSettings(loc.settings);
  if (settings.error) {
    return refusal(
      loc,
      `${settings.error}. Nothing was changed; fix the file, then run terminus install again.`,
    );
  }
  const shape = hooksShapeProblem(settings.doc ?? {}, loc.settings);
  if (shape) {
    return refusal(
      loc,
      `${shape}. Nothing was changed; fix the file, then run terminus install again.`,
    );
  }

  // ---- the program and the link ----
  let placed: Placed;
  if (program.kind === "compiled") placed = placeCompiled(loc, program.self);
  else if (program.kind === "installed") placed = placeInstalled(program);
  else placed = placeSource(loc, plan!);
  const link = placeLink(loc, placed.versionFile);

  // ---- the hook entries ----
  const doc = settings.doc ?? {};
  const { doc: next, added } = withEntries(doc, loc.link);
  let backupWritten: string | null = null;
  let rewroteForm = false;
  if (added.length) {
    if (settings.exists && !exists(loc.settingsBackup)) {
      Deno.copyFileSync(loc.settings, loc.settingsBackup);
      backupWritten = loc.settingsBackup;
    }
    rewroteForm = settings.exists && settings.text !== null && settings.text.trim() !== "" &&
      !isTwoSpace(settings.text, doc);
    writeAtomic(loc.settings, twoSpace(next));
  }

  // ---- the MCP entry ----
  const mcp = await registerMcp(loc, env);

  // ---- the man page ----
  const manPage = inp.manPage === undefined ? null : placeManPage(loc.manPage, inp.manPage);

  // ---- what Terminus reports and never changes ----
  const cleanup = judgeCleanup(readLayered([loc.settings], "cleanupPeriodDays"), loc.settings);

  // ---- the backfill ----
  const { backfill, roots } = firstBackfill(inp, placed, store, storeProblem);

  return {
    refused: null,
    loc,
    incomplete: mcp.incomplete,
    link,
    version: {
      file: placed.versionFile,
      wrote: placed.wroteVersion,
      fromSource: program.kind !== "compiled",
      ...(placed.unbundled ? { unbundled: placed.unbundled } : {}),
    },
    settings: { added, rewroteForm, created: !settings.exists },
    backupWritten,
    mcp: mcp.how,
    cleanup,
    dataDir: data,
    roots,
    backfill,
    pathLine: onPath(dirname(loc.link), env) ? null : pathLine(dirname(loc.link), env),
    manPage,
  };
}

/**
 * Sizes the backfill of what is already on disk and, when anything waits, starts its detached
 * worker at normal priority (the hooks' passes stay lowest); a problem is reported, not thrown.
 */
function firstBackfill(
  inp: InstallInput,
  placed: Placed,
  store: string,
  storeProblem: string | null,
): { backfill: InstallReport["backfill"]; roots: string[] } {
  const { env } = inp;
  const backfill: InstallReport["backfill"] = { sizing: null, problem: null, started: false };
  let roots: string[] = [];
  try {
    const cfg = loadConfig(env);
    roots = transcriptRoots(cfg.roots, env);
    if (storeProblem) throw new Error(storeProblem);
    backfill.sizing = sizeBackfill(cfg, roots, store);
  } catch (e) {
    backfill.problem = `the backfill could not be sized (${(e as Error).message})`;
  }
  if (backfill.sizing && backfill.sizing.pending > 0) {
    const argv = placed.argv ? runnable(placed.argv) : inp.self;
    try {
      // the backfill's detached worker, at normal priority (the hooks' passes stay lowest)
      startFirstBackfill(argv, placed.env);
      backfill.started = true;
    } catch (e) {
      backfill.problem = `the backfill could not be started (${(e as Error).message})`;
    }
  }
  return { backfill, roots };
}
