/**
 * terminus doctor: fourteen checks of what is wired into Claude Code. It reads and never
 * writes: no file, no folder, on any path (the store is opened so that SQLite leaves no
 * sidecar files either; see store/probe.ts).
 */
import { noStoreYet } from "../errors.ts";
import type { Env } from "../paths.ts";
import { configFile, dataDir as resolveDataDir, storePath, transcriptRoots } from "../paths.ts";
import { loadConfig, nearMissKeys } from "../config.ts";
import { NotPlainFile, readPlainCapped, TooLarge } from "../plain_file.ts";
import { stalledArchiving } from "../ingest/stall.ts";
import {
  CONFIG_BYTES_MAX,
  DEADLINE_MISS_NOTE_SHARE,
  DEADLINE_MISS_WINDOW,
  DOCTOR_LIST_MAX,
  HOOK_DEADLINE_MS,
  VERSION,
} from "../constants.ts";
import type { Db } from "../store/db.ts";
import { dirname, exists, join } from "../posix.ts";
import { probeCounts, probeLastRun, probeStore } from "../store/probe.ts";
import { lateOfLast } from "../store/decisions.ts";
import { IN_FLIGHT_NOTE } from "../store/runs.ts";
import { rootProblems } from "../roots.ts";
import {
  findOnPath,
  type Locations,
  locations,
  onPath,
  pathLine,
  SETUP_HOOK_EVENTS,
  shellLine,
  shellWord,
} from "./locations.ts";
import { examineLink, linkedVersion, runningProgram } from "./link.ts";
import { launcherNames } from "./bundle.ts";
import { examineHooks, readSettings } from "./settings.ts";
import { claudeOnPath, readMcpState, runClaude } from "./claude.ts";
import {
  judgeAutoCompact,
  judgeCleanup,
  readLayered,
  settingsLayers,
  type Verdict,
} from "./claude_settings.ts";

export type State = Verdict["state"];
export type { Verdict };

/** Every run carries these keys, in this order, whatever doctor found. */
export const CHECKS = [
  "binary",
  "settings_file",
  "hook_SessionStart",
  "hook_UserPromptSubmit",
  "hook_SessionEnd",
  "hook_PostCompact",
  "mcp_server",
  "claude_code",
  "config_roots",
  "data_directory",
  "store",
  "last_run",
  "cleanup_period_days",
  "auto_compact",
] as const;
export type CheckName = typeof CHECKS[number];
export type Report = Record<CheckName, Verdict>;

export interface DoctorInput {
  env: Env;
  cwd: string;
}

const ok = (finding: string): Verdict => ({ state: "ok", finding, fix: null });
const note = (finding: string, fix: string | null = null): Verdict => ({
  state: "note",
  finding,
  fix,
});
const unknown = (finding: string): Verdict => ({ state: "unknown", finding, fix: null });
const problem = (finding: string, fix: string | null = null): Verdict => ({
  state: "problem",
  finding,
  fix,
});

/** The command that (re)installs: the link when it works, else the program doctor runs as. */
function installCommand(loc: Locations | null, linkWorks: boolean): string {
  if (loc && linkWorks) return `${shellWord(loc.link)} install`;
  if (Deno.build.standalone) return `${shellWord(Deno.execPath())} install`;
  if (loc) {
    const p = runningProgram(loc);
    if (p.kind === "installed") return `${shellWord(join(p.versionDir, "terminus"))} install`;
    if (p.kind === "checkout") {
      return shellLine(["deno", "task", "--config", join(p.root, "deno.json"), "install"]);
    }
  }
  return "terminus install";
}

function checkBinary(loc: Locations, env: Env): { v: Verdict; works: boolean } {
  const at = examineLink(loc);
  const fix = installCommand(loc, false);
  if (at.kind === "absent") return { v: problem(`${loc.link} is not there`, fix), works: false };
  if (at.kind === "foreign") {
    return {
      v: problem(`${loc.link} is ${at.what}, which terminus install did not put there`),
      works: false,
    };
  }
  if (at.kind === "build") {
    return {
      v: note(`${loc.link} is a Terminus build, but not a link into ${loc.versionsDir}`, fix),
      works: true,
    };
  }
  let text: string;
  try {
    text = launcherText(at.target);
  } catch {
    return {
      v: problem(`${loc.link} points at ${at.target}, which is not there`, fix),
      works: false,
    };
  }
  // A source install's launcher runs a copy that must still be there, with the runtime it
  // recorded or else the deno on PATH.
  const names = text.startsWith("#!/bin/sh") ? launcherNames(text) : null;
  if (names) {
    if (!exists(names.main)) {
      return {
        v: problem(`${at.target} runs ${names.main}, which is not there`, fix),
        works: false,
      };
    }
    if (!exists(names.deno) && !findOnPath("deno", env)) {
      return {
        v: problem(
          `${at.target} runs the Deno runtime at ${names.deno}, which is not there, and no deno is on PATH`,
          fix,
        ),
        works: false,
      };
    }
  }
  const v = linkedVersion(loc, at.target);
  const bin = dirname(loc.link);
  if (v === VERSION && !onPath(bin, env)) {
    return {
      v: note(
        `${loc.link} is this build (${VERSION}), but ${bin} is not on PATH, so terminus is not found by name`,
        pathLine(bin, env).line,
      ),
      works: true,
    };
  }
  if (v === VERSION) return { v: ok(`${loc.link} is this build (${VERSION})`), works: true };
  return {
    v: note(
      `${loc.link} runs version ${v ?? "unknown"} (${at.target}); this doctor is ${VERSION}`,
      fix,
    ),
    works: true,
  };
}

/** The binary, the settings file, the four hook entries and the MCP entry. Returns whether the link runs. */
function checkWiring(r: Report, loc: Locations, env: Env): boolean {
  const b = checkBinary(loc, env);
  r.binary = b.v;
  const linkWorks = b.works;
  const fix = installCommand(loc, linkWorks);
  const s = readSettings(loc.settings);
  if (s.error) r.settings_file = problem(s.error);
  else if (!s.exists) {
    r.settings_file = note(`${loc.settings} is not there yet; terminus install creates it`);
  } else r.settings_file = ok(`${loc.settings} reads as JSON`);
  const findings = s.doc ? examineHooks(s.doc, loc.link) : null;
  for (const event of SETUP_HOOK_EVENTS) {
    const key = `hook_${event}` as CheckName;
    if (s.error) {
      r[key] = unknown(
        `${loc.settings} does not read as a JSON object, so the ${event} entry is not known`,
      );
      continue;
    }
    const f = findings?.find((x) => x.event === event) ?? { ours: 0, others: 0 };
    if (f.ours > 1) {
      r[key] = problem(
        `${loc.settings} runs ${loc.link} for ${event} ${f.ours} times: a duplicated hook entry`,
      );
    } else if (f.ours === 1 && f.others > 0) {
      r[key] = note(
        `${loc.settings} runs ${loc.link} for ${event} in exec form, and another install's terminus entry runs for it too`,
      );
    } else if (f.ours === 1) {
      r[key] = ok(`${loc.settings} runs ${loc.link} for ${event} in exec form`);
    } else {
      r[key] = problem(`${loc.settings} has no terminus entry for ${event}`, fix);
    }
  }
  const m = readMcpState(loc.claudeJson, loc.link);
  if (m.kind === "current") {
    r.mcp_server = ok(`${loc.claudeJson} runs ${loc.link} as the 'terminus' server`);
  } else if (m.kind === "unreadable") r.mcp_server = problem(m.reason);
  else if (m.kind === "absent") {
    r.mcp_server = problem(
      `${loc.claudeJson} ${m.fileMissing ? "is not there, so it has" : "has"} no 'terminus' server`,
      fix,
    );
  } else {
    r.mcp_server = problem(
      `${loc.claudeJson} has a 'terminus' server that does not run ${loc.link} mcp in exec form`,
      fix,
    );
  }

  return linkWorks;
}

/** Claude Code on PATH, by its own --version. */
async function checkClaude(r: Report, env: Env): Promise<void> {
  const claude = claudeOnPath(env);
  if (!claude) r.claude_code = unknown("claude is not on PATH, so its version is not known");
  else {
    const v = await runClaude(claude, ["--version"]);
    if (v.failure) r.claude_code = problem(v.failure);
    else r.claude_code = ok(`${claude} reports ${v.stdout.trim().split("\n")[0]}`);
  }
}

/** The config loads, names no near-miss key, and its transcript roots are there. */
function checkConfigRoots(r: Report, env: Env): void {
  let roots: string[] | null = null;
  let configured = false;
  try {
    const cfg = loadConfig(env);
    roots = transcriptRoots(cfg.roots, env);
    configured = cfg.roots.length > 0;
  } catch (e) {
    r.config_roots = problem((e as Error).message);
  }
  // a misspelt key is ignored, as the file format says; a note names it for the person
  const near = nearMissOf(env);
  const missing = roots && configured ? rootProblems(roots) : [];
  if (roots) {
    if (roots.length === 0) r.config_roots = problem("the config resolves no transcript root");
    else if (missing.length > 0) r.config_roots = problem(cutList(missing, "; "));
    else if (roots.length > 1) {
      r.config_roots = note(`${roots.length} transcript roots: ${cutList(roots, ", ")}`);
    } else {
      const root = roots[0];
      try {
        const st = Deno.statSync(root);
        if (!st.isDirectory) {
          r.config_roots = problem(`the transcript root ${root} is not a folder`);
        } else {
          let projects = 0;
          try {
            for (const e of Deno.readDirSync(join(root, "projects"))) if (e.isDirectory) projects++;
          } catch { /* no sessions yet */ }
          r.config_roots = ok(`transcript root ${root}, ${projects} project folder(s)`);
        }
      } catch {
        r.config_roots = note(
          `the transcript root ${root} is not there yet; Claude Code creates it`,
        );
      }
    }
  }

  if (near.length && r.config_roots && r.config_roots.state !== "problem") {
    r.config_roots = note(`${r.config_roots.finding}; ${cutList(near, "; ")}`, r.config_roots.fix);
  }
  // which file was read, or that there is none (every default): a load error names it already
  const file = configFile(env);
  if (r.config_roots && !r.config_roots.finding.includes(file)) {
    const named = exists(file) ? `config ${file}` : `no config file (${file}), so every default`;
    r.config_roots = { ...r.config_roots, finding: `${named}; ${r.config_roots.finding}` };
  }
}

/** The data directory, the store in it and the last archive pass. */
function checkData(r: Report, env: Env, loc: Locations | null, linkWorks: boolean): void {
  let data: string | null = null;
  try {
    data = resolveDataDir(env);
  } catch (e) {
    r.data_directory = problem(`the data directory cannot be resolved: ${(e as Error).message}`);
  }
  const ingest = `${linkWorks && loc ? shellWord(loc.link) : "terminus"} ingest`;
  if (data) {
    let isDir = false;
    try {
      const st = Deno.statSync(data);
      if (!st.isDirectory) r.data_directory = problem(`the data directory ${data} is not a folder`);
      else {
        try {
          for (const _ of Deno.readDirSync(data)) break;
          r.data_directory = ok(`${data} is a folder`);
          isDir = true;
        } catch (e) {
          r.data_directory = problem(
            `the data directory ${data} cannot be read: ${(e as Error).message}`,
          );
        }
      }
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) {
        r.data_directory = note(`${data} is not there yet; the first archive pass creates it`);
      } else {r.data_directory = problem(
          `the data directory ${data} cannot be read: ${(e as Error).message}`,
        );}
    }
    const store = storePath(data);
    const p = isDir ? probeStore(store) : { kind: "absent" as const };
    if (!isDir && r.data_directory?.state === "problem") {
      // no pass can create a store in a data directory that is a file or cannot be read
      r.store = unknown(`no store can be kept at ${store} until the data directory is fixed`);
      r.last_run = unknown("no archive pass can run until the data directory is fixed");
    } else if (p.kind === "absent" || p.kind === "empty") {
      r.store = note(noStoreYet(store));
      r.last_run = note("no archive pass has run yet");
    } else if (p.kind !== "ok") {
      r.store = problem(p.message);
      r.last_run = unknown("the store cannot be opened, so its last run is not known");
    } else {
      try {
        const c = probeCounts(p.db);
        if (typeof c === "string") r.store = problem(`${store} cannot be counted: ${c}`);
        else {
          r.store = ok(
            `${store}: ${c.sessions} session(s), ${c.turns} turn(s), ${c.watermarks} watermark(s)`,
          );
        }
        const got = probeLastRun(p.db);
        const run = "row" in got ? got.row : null;
        if ("failure" in got) r.last_run = problem(`the runs table cannot be read: ${got.failure}`);
        else if (run === null) r.last_run = note("no archive pass has run yet");
        else if (run.inFlight) {
          r.last_run = note(`the last pass (${run.startedAt}): ${IN_FLIGHT_NOTE}`);
        } else if (run.filesFailed > 0 || run.error) {
          const first = run.error ? `: ${run.error.split("\n")[0]}` : "";
          r.last_run = problem(
            `the last run (${run.startedAt}) failed ${run.filesFailed} file(s)${first}; terminus status has the detail, and this stays a problem until a later run records no failure`,
            ingest,
          );
        } else {
          const line =
            `${run.startedAt}: ${run.filesSeen} walked, ${run.filesCommitted} committed, 0 failed`;
          const m = deadlineMisses(p.db);
          r.last_run = m ? note(`${line}; ${m.finding}`, m.fix) : ok(line);
        }
      } finally {
        p.db.close();
      }
    }
    // hooks starting passes for a day with none finishing outranks whatever the last run said
    const stalled = stalledArchiving(data);
    if (stalled) r.last_run = problem(stalled, ingest);
  } else {
    r.store = unknown("the data directory cannot be resolved, so the store was not looked for");
    r.last_run = unknown("the data directory cannot be resolved, so the last run is not known");
  }
}

/** The two Claude Code settings the guide asks about: cleanupPeriodDays and autoCompactEnabled. */
function checkClaudeSettings(r: Report, loc: Locations, cwd: string, env: Env): void {
  const layers = settingsLayers(loc.settings, cwd);
  r.cleanup_period_days = judgeCleanup(readLayered(layers, "cleanupPeriodDays"), loc.settings);
  r.auto_compact = judgeAutoCompact(readLayered(layers, "autoCompactEnabled"), env);
}

export async function doctor(inp: DoctorInput): Promise<Report> {
  const { env } = inp;
  const r = {} as Report;
  let loc: Locations | null = null;
  try {
    loc = locations(env);
  } catch (e) {
    const why = (e as Error).message;
    for (const k of CHECKS) r[k] = unknown(`${why}, so this was not checked`);
  }

  const linkWorks = loc ? checkWiring(r, loc, env) : false;
  await checkClaude(r, env);
  checkConfigRoots(r, env);
  checkData(r, env, loc, linkWorks);
  if (loc) checkClaudeSettings(r, loc, inp.cwd, env);

  const out = {} as Report;
  for (const k of CHECKS) out[k] = r[k] ?? unknown("not checked");
  return out;
}

/**
 * A list for one finding: the first DOCTOR_LIST_MAX items, then how many more. 10,000 roots
 * made one line of 788,922 characters.
 */
export function cutList(items: string[], sep: string): string {
  if (items.length <= DOCTOR_LIST_MAX) return items.join(sep);
  const more = items.length - DOCTOR_LIST_MAX;
  return `${items.slice(0, DOCTOR_LIST_MAX).join(sep)}${sep}and ${more} more`;
}

/** The link's target as text when it is a launcher script; "" for anything else there. */
function launcherText(target: string): string {
  try {
    return new TextDecoder().decode(readPlainCapped(target, CONFIG_BYTES_MAX));
  } catch (e) {
    if (e instanceof TooLarge || e instanceof NotPlainFile) return ""; // a build, not a script
    throw e;
  }
}

/** The near-miss keys of terminus.toml, or none when it cannot be read. */
function nearMissOf(env: Env): string[] {
  try {
    // the loader's own limits: a regular file (a FIFO hung doctor here, a link to /dev/zero
    // read until memory ran out) of at most CONFIG_BYTES_MAX bytes
    return nearMissKeys(
      new TextDecoder().decode(readPlainCapped(configFile(env), CONFIG_BYTES_MAX)),
    );
  } catch {
    return [];
  }
}

/**
 * Recall that went quiet: more than 5% of the latest 100 logged prompts found turns to hand
 * over and ran past the hook's deadline. Null when fewer did, or the log cannot be read.
 */
function deadlineMisses(db: Db): { finding: string; fix: null } | null {
  let got: { prompts: number; late: number };
  try {
    got = lateOfLast(db, DEADLINE_MISS_WINDOW);
  } catch {
    return null; // a store from before the decision log: nothing to judge
  }
  if (got.prompts === 0 || got.late / got.prompts <= DEADLINE_MISS_NOTE_SHARE) return null;
  return {
    finding: `${got.late} of the last ${got.prompts} prompt(s) (${
      Math.round((100 * got.late) / got.prompts)
    }%) found earlier turns but ran past the ${HOOK_DEADLINE_MS} ms deadline, so nothing was handed over`,
    fix: null,
  };
}
