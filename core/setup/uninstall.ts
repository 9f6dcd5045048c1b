/**
 * terminus uninstall: take out exactly what install added. Each step that cannot be done is
 * reported and the rest still happen. The versions folder and the data directory stay,
 * unless --purge deletes the data directory after asking once.
 */
import type { Env } from "../paths.ts";
import { dataDir as resolveDataDir, storePath } from "../paths.ts";
import { exists, join } from "../posix.ts";
import { probeStore } from "../store/probe.ts";
import { lockHeldMessage, tryIngestLock } from "../store/lock.ts";
import { humanBytes } from "../output.ts";
import { type Locations, locations, MAN_PAGE_MARK, shellWord, versionFile } from "./locations.ts";
import { dataLocationFile } from "../move/location.ts";
import { VERSION } from "../constants.ts";
import { examineLink } from "./link.ts";
import {
  isTwoSpace,
  readSettings,
  sameSettings,
  twoSpace,
  withoutEntries,
  writeAtomic,
} from "./settings.ts";
import { claudeOnPath, readMcpState, REMOVE_ARGS, runClaude, typed } from "./claude.ts";

export interface UninstallInput {
  env: Env;
  purge: boolean;
  /** -y/--yes: answer the purge question yes without asking. */
  yes: boolean;
  /** Asks the question once; true for yes, false for no, null when there is no answer to read. */
  confirm: (question: string) => Promise<boolean | null>;
}

export interface Step {
  ok: boolean;
  label: string;
  text: string;
}

export interface UninstallReport {
  loc: Locations;
  steps: Step[];
  /** Paths uninstall leaves in place on purpose, with why. */
  kept: { label: string; text: string }[];
}

function stepSettings(loc: Locations): Step {
  const label = "settings.json";
  const s = readSettings(loc.settings);
  if (s.error) return { ok: false, label, text: `${s.error}, so its entries were not removed` };
  const hasBackup = exists(loc.settingsBackup);
  if (!s.exists) {
    return {
      ok: true,
      label,
      text: `${loc.settings} is not there; nothing to remove${
        hasBackup ? `. The copy install kept stays at ${loc.settingsBackup}` : ""
      }`,
    };
  }
  const doc = s.doc ?? {};
  const b = hasBackup ? readSettings(loc.settingsBackup) : null;
  const before = b && !b.error ? b.doc : null;
  const { doc: stripped, removed } = withoutEntries(doc, loc.link, before);
  if (b) {
    const same = !b.error && b.doc !== null &&
      sameSettings(withoutEntries(b.doc, loc.link).doc, stripped);
    if (same) {
      try {
        Deno.renameSync(loc.settingsBackup, loc.settings);
      } catch (e) {
        return {
          ok: false,
          label,
          text: `${loc.settingsBackup} could not be put back: ${(e as Error).message}`,
        };
      }
      return {
        ok: true,
        label,
        text:
          `${loc.settings}: nothing but Terminus's entries changed since install, so the copy install kept was put back and removed`,
      };
    }
  }
  const keptCopy = hasBackup
    ? `; the file changed since install, so it stays, and so does the copy install kept at ${loc.settingsBackup}`
    : "";
  if (removed === 0) {
    return {
      ok: true,
      label,
      text: `${loc.settings} holds no Terminus entries; unchanged${keptCopy}`,
    };
  }
  try {
    if (!hasBackup && Object.keys(stripped).length === 0) {
      // Install created the file for its entries: with them gone it holds nothing.
      Deno.removeSync(loc.settings);
      return {
        ok: true,
        label,
        text: `${loc.settings} held only Terminus's entries, which install wrote; removed it`,
      };
    }
    const reformatted = s.text !== null && !isTwoSpace(s.text, doc);
    writeAtomic(loc.settings, twoSpace(stripped));
    return {
      ok: true,
      label,
      text: `removed ${removed} Terminus entr${removed === 1 ? "y" : "ies"} from ${loc.settings}${
        reformatted ? " (rewritten in two-space form)" : ""
      }${keptCopy}`,
    };
  } catch (e) {
    return {
      ok: false,
      label,
      text: `${loc.settings} could not be written: ${(e as Error).message}`,
    };
  }
}

async function stepMcp(loc: Locations, env: Env): Promise<Step> {
  const label = ".claude.json";
  const state = readMcpState(loc.claudeJson, loc.link);
  const finish = typed(REMOVE_ARGS);
  if (state.kind === "absent") {
    return {
      ok: true,
      label,
      text: `${loc.claudeJson} has no 'terminus' server; no claude was run`,
    };
  }
  if (state.kind === "unreadable") {
    return {
      ok: false,
      label,
      text: `${state.reason}, so no claude was run. Once it reads, run: ${finish}`,
    };
  }
  const claude = claudeOnPath(env);
  if (!claude) {
    return {
      ok: false,
      label,
      text: `claude is not on PATH, so the 'terminus' server stays. Run: ${finish}`,
    };
  }
  const r = await runClaude(claude, REMOVE_ARGS);
  if (r.failure) return { ok: false, label, text: `${r.failure}. Run: ${finish}` };
  return { ok: true, label, text: `removed the 'terminus' server with ${finish}` };
}

function stepLink(loc: Locations): Step {
  const label = "link";
  const at = examineLink(loc);
  if (at.kind === "absent") {
    return { ok: true, label, text: `${loc.link} is not there; nothing to remove` };
  }
  if (at.kind === "foreign") {
    return {
      ok: true,
      label,
      text: `${loc.link} is ${at.what}, which install did not put there; left it`,
    };
  }
  try {
    Deno.removeSync(loc.link);
  } catch (e) {
    return { ok: false, label, text: `${loc.link} could not be removed: ${(e as Error).message}` };
  }
  return { ok: true, label, text: `removed ${loc.link}` };
}

/** The man page install wrote; a file of another's at that path is left. */
function stepManPage(loc: Locations): Step | null {
  const label = "man page";
  let text: string;
  try {
    text = Deno.readTextFileSync(loc.manPage);
  } catch {
    return null; // never written (an install from before the man page): nothing to say
  }
  if (!text.startsWith(MAN_PAGE_MARK)) {
    return { ok: true, label, text: `${loc.manPage} is not the page install wrote; left it` };
  }
  try {
    Deno.removeSync(loc.manPage);
  } catch (e) {
    return {
      ok: false,
      label,
      text: `${loc.manPage} could not be removed: ${(e as Error).message}`,
    };
  }
  return { ok: true, label, text: `removed ${loc.manPage}` };
}

/** Every byte below `dir`, counted without following links. */
export function treeBytes(dir: string): number {
  let n = 0;
  const walk = (d: string) => {
    for (const e of Deno.readDirSync(d)) {
      const p = join(d, e.name);
      if (e.isDirectory && !e.isSymlink) walk(p);
      else n += Deno.lstatSync(p).size;
    }
  };
  walk(dir);
  return n;
}

function leftBytes(dir: string): number {
  try {
    return treeBytes(dir);
  } catch {
    return 0;
  }
}

type PurgePlan =
  | { kind: "nothing"; step: Step }
  | { kind: "refused"; step: Step }
  /** `real` is where `dir` leads when it is a symbolic link (else `dir`): what is deleted. */
  | { kind: "go"; dir: string; real: string; bytes: number; release: () => void };

/** Checks, takes the lock and asks, before any other step runs. */
async function preparePurge(inp: UninstallInput): Promise<PurgePlan> {
  const label = "purge";
  let dir: string;
  try {
    dir = resolveDataDir(inp.env);
  } catch (e) {
    return {
      kind: "refused",
      step: { ok: false, label, text: `${(e as Error).message}; nothing was deleted` },
    };
  }
  const store = storePath(dir);
  if (!exists(store)) {
    return {
      kind: "nothing",
      step: { ok: true, label, text: `${dir} holds no terminus.db: nothing to purge` },
    };
  }
  const probe = probeStore(store);
  if (probe.kind === "ok") probe.db.close();
  else if (probe.kind === "absent") {
    return {
      kind: "nothing",
      step: { ok: true, label, text: `${dir} holds no terminus.db: nothing to purge` },
    };
  } else if (probe.kind !== "empty") {
    return {
      kind: "refused",
      step: {
        ok: false,
        label,
        text: `${probe.message}; the store cannot be read, so nothing was deleted`,
      },
    };
  }
  let lock;
  try {
    lock = tryIngestLock(dir);
  } catch (e) {
    return {
      kind: "refused",
      step: {
        ok: false,
        label,
        text: `the ingest lock could not be taken (${(e as Error).message}); nothing was deleted`,
      },
    };
  }
  if (!lock) {
    return {
      kind: "refused",
      step: {
        ok: false,
        label,
        text: `${lockHeldMessage(dir)}: an archive pass is running, so nothing was deleted`,
      },
    };
  }
  // A linked data directory is deleted where it really is: removing the link alone would leave
  // the whole archive behind while reporting its size as deleted.
  let real = dir;
  let bytes: number;
  try {
    if (Deno.lstatSync(dir).isSymlink) real = Deno.realPathSync(dir);
    bytes = treeBytes(real);
  } catch (e) {
    lock.release();
    return {
      kind: "refused",
      step: {
        ok: false,
        label,
        text: `${dir} cannot be measured (${(e as Error).message}); nothing was deleted`,
      },
    };
  }
  const answer = inp.yes ? true : await inp.confirm(
    `Delete ${real === dir ? dir : `${real} (linked from ${dir})`} and everything in it, ${
      humanBytes(bytes)
    }: the archive, its snapshots and the hooks' state? [y/N] `,
  );
  if (answer !== true) {
    lock.release();
    return answer === null
      ? {
        kind: "refused",
        step: { ok: false, label, text: `no answer to read; nothing was deleted` },
      }
      : { kind: "refused", step: { ok: true, label, text: `kept ${dir}: the answer was no` } };
  }
  return { kind: "go", dir, real, bytes, release: () => lock.release() };
}

/** After a purge: the data-location file names a folder that is gone, so it goes too. */
function forgetLocation(file: string, purged: string): Step {
  const label = "location";
  let recorded: string;
  try {
    recorded = Deno.readTextFileSync(file).trim();
  } catch {
    return { ok: true, label, text: `${file} is not there; nothing recorded the data directory` };
  }
  if (recorded !== purged) {
    return { ok: true, label, text: `${file} records ${recorded}, not the purged folder; kept` };
  }
  try {
    Deno.removeSync(file);
    return { ok: true, label, text: `removed ${file}, which recorded ${purged}` };
  } catch (e) {
    return { ok: false, label, text: `${file} could not be removed: ${(e as Error).message}` };
  }
}

export async function uninstall(inp: UninstallInput): Promise<UninstallReport> {
  const loc = locations(inp.env);
  const purge = inp.purge ? await preparePurge(inp) : null;
  const steps: Step[] = [stepSettings(loc), await stepMcp(loc, inp.env), stepLink(loc)];
  const man = stepManPage(loc);
  if (man) steps.push(man);
  const kept: UninstallReport["kept"] = [
    {
      label: "versions",
      text: `${loc.versionsDir} (a running session may be using one of its files)`,
    },
  ];
  const locationFile = dataLocationFile(inp.env);
  if (purge?.kind === "go") {
    const { dir, real } = purge;
    try {
      Deno.removeSync(real, { recursive: true });
      if (real !== dir) Deno.removeSync(dir);
      steps.push({
        ok: true,
        label: "purge",
        text: real === dir
          ? `deleted ${dir}, ${humanBytes(purge.bytes)}`
          : `deleted ${real}, ${humanBytes(purge.bytes)}, and the link ${dir} to it`,
      });
      steps.push(forgetLocation(locationFile, purge.dir));
    } catch (e) {
      // a removal stopped part way: say what is left, never the bytes it meant to delete
      const left = exists(real) ? `; ${humanBytes(leftBytes(real))} of it is still there` : "";
      steps.push({
        ok: false,
        label: "purge",
        text: `${real} could not be deleted: ${(e as Error).message}${left}`,
      });
    } finally {
      try {
        purge.release();
      } catch { /* the lock file went with the folder */ }
    }
  } else if (purge) steps.push(purge.step);
  if (purge?.kind !== "go") {
    let dir: string;
    try {
      dir = resolveDataDir(inp.env);
    } catch (e) {
      dir = `not known (${(e as Error).message})`;
    }
    kept.push({ label: "data", text: `${dir} (the archive)` });
    if (exists(locationFile)) {
      kept.push({ label: "location", text: `${locationFile}, which records where the data is` });
    }
    // Once the link is gone, `terminus` no longer names the program: the version file does.
    const self = versionFile(loc, VERSION);
    kept.push({
      label: "to purge",
      text: `${shellWord(exists(self) ? self : loc.link)} uninstall --purge`,
    });
  }
  if (exists(loc.claudeJsonBackup)) {
    kept.push({
      label: "backup",
      text:
        `${loc.claudeJsonBackup}, an earlier copy of Claude Code's own state; not restored, delete it when you like`,
    });
  }
  return { loc, steps, kept };
}
