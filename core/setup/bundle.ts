/**
 * The placed copy's bundle (one file for the runtime to load, when the bundler is cached)
 * and the sh launcher that runs the copy offline.
 */
import {
  BACKFILL_SEMI_SPACE_MIB,
  BUILD_MARKER,
  HOOK_PASS_WAIT_MS,
  MALLOC_MMAP_THRESHOLD_BYTES,
  MALLOC_TRIM_THRESHOLD_BYTES,
  PASS_NICENESS,
  VERSION,
} from "../constants.ts";
import { basename, dirname, join } from "../posix.ts";
import { ownV8Flags, permissionFlags, runtimePath, v8Flags } from "../context.ts";
import { BASH_JOB, bashJobArgs } from "../spawn.ts";
import {
  LAUNCHER_PASS_VAR,
  PASS_ALWAYS_EVENTS,
  PASS_GATE_VAR,
  SETUP_HOOK_EVENTS,
  shellWord,
} from "./locations.ts";
import { FILE_MODE, makeDirs } from "./modes.ts";
import { type SourceLayout, type SourcePlan, walkFiles } from "./source.ts";

/** The bundle's entry, beside mod.ts in the copy; its presence is what says the copy is bundled. */
export const BUNDLE_ENTRY = "mod.js";
/**
 * The hook's entry (hook.ts), bundled alone into one file beside mod.js: the launcher runs it
 * for `hook <event>` while it is there.
 */
export const HOOK_ENTRY = "hook.js";
/**
 * The commands with a file of their own: `<name>.ts` at the copy's root, bundled alone into
 * `<name>.js` (ownBundle), and the file the launcher runs for `<name>` (ownStart), which
 * imports it. A main module's compiled code is kept in the runtime's code cache only once the
 * event loop has turned, and a search or a pass with nothing to do can end before it does, so
 * run as the main module the file would be compiled on every start.
 */
export const OWN_FILE_COMMANDS = ["search", "ingest"] as const;
export type OwnFileCommand = typeof OWN_FILE_COMMANDS[number];
/**
 * Own files bundled whole, with no chunk beside them: a search loads the decoder at its start
 * and each further file costs an import. The pass keeps what it loads on demand (its own
 * modules after the gate, the decoder, BLAKE3) in chunks, which a pass with nothing new never
 * loads.
 */
const WHOLE_OWN_FILES: ReadonlySet<OwnFileCommand> = new Set(["search"]);
export const ownBundle = (name: OwnFileCommand): string => `${name}.js`;
/**
 * The module cache a command's own file runs with: a folder of its own beside the program's.
 * The runtime keeps one compiled copy per module, the runtime's own node modules among them
 * (`node:sqlite`'s), and V8 rejects a copy compiled under other flags. With one folder, the flag
 * an own file adds (ownV8Flags) had each search or pass and the next hook recompile and rewrite
 * what the other left.
 */
export const ownDenoDir = (denoDir: string, name: OwnFileCommand): string => `${denoDir}-${name}`;
export const ownStart = (name: OwnFileCommand): string => `${name}_start.js`;
const ownStartText = (name: OwnFileCommand): string =>
  [
    `// The launcher's entry for \`terminus ${name}\` (core/setup/bundle.ts, ownStart).`,
    `const { start } = await import("./${ownBundle(name)}");`,
    "await start();",
    "",
  ].join("\n");
/** The derive worker's entry, bundled at its source path (core/ingest/deriver.ts looks there). */
const WORKER_SOURCE = "core/ingest/derive_worker.ts";

export function bundled(sourceDir: string): boolean {
  try {
    return Deno.statSync(join(sourceDir, BUNDLE_ENTRY)).isFile;
  } catch {
    return false;
  }
}

/**
 * Whether the bundler is in the module cache: `deno bundle` fetches esbuild on first use and
 * keeps it in DENO_DIR/dl. Terminus opens no connection, so it bundles only with the bundler
 * already there (`deno task install` runs a bundle first, which fetches it).
 */
function bundlerCached(cache: string): boolean {
  try {
    for (const e of Deno.readDirSync(join(cache, "dl"))) {
      if (e.isDirectory && e.name.startsWith("esbuild-")) return true;
    }
  } catch { /* no downloads kept */ }
  return false;
}

/**
 * Bundles the copy in `dir` in place with `deno bundle` (code split: the program's entry
 * `mod.js`, one chunk per command, shared chunks; npm packages inside, `node:` modules left to
 * the runtime). A command then loads a few files instead of some forty modules and their npm
 * resolution: about 4 ms of every start. It is built in a folder of its own and moved in only
 * whole, so a failure leaves the copy as it was, run from its source. Returns why it was not
 * bundled, or null.
 */
export function bundleCopy(plan: SourcePlan, dir: string): string | null {
  if (!bundlerCached(plan.cache)) {
    return `no bundler in ${plan.cache} (deno task install fetches it)`;
  }
  const out = join(dir, ".bundle");
  try {
    const r = bundleRun(plan, dir, [
      "--code-splitting",
      "--outdir",
      out,
      join(dir, "mod.ts"),
      join(dir, WORKER_SOURCE),
    ]);
    const worker = WORKER_SOURCE.replace(/\.ts$/, ".js");
    if (r.code !== 0 || !isFile(join(out, BUNDLE_ENTRY)) || !isFile(join(out, worker))) {
      return bundleFailed(r);
    }
    // The hook's own file: everything it loads in one, no chunk shared with the rest. Only a
    // saving: without it the launcher runs hooks through mod.js, so a failure here drops the
    // file, not the bundle.
    const h = bundleRun(plan, dir, ["--output", join(out, HOOK_ENTRY), join(dir, "hook.ts")]);
    if (h.code !== 0) {
      try {
        Deno.removeSync(join(out, HOOK_ENTRY), { recursive: true });
      } catch { /* never written */ }
    }
    // the search's and the pass's own files, the same way (the pass's with chunks for what it
    // loads on demand): without one, that command runs through mod.js. A chunk is named by its
    // content, so one the program's build also made is the same file.
    for (const name of OWN_FILE_COMMANDS) {
      const bundle = join(out, ownBundle(name));
      const r = bundleRun(
        plan,
        dir,
        (WHOLE_OWN_FILES.has(name) ? ["--output", bundle] : ["--code-splitting", "--outdir", out])
          .concat(join(dir, `${name}.ts`)),
      );
      if (r.code === 0 && isFile(bundle)) {
        Deno.writeTextFileSync(join(out, ownStart(name)), ownStartText(name));
      } else {
        try {
          Deno.removeSync(bundle, { recursive: true });
        } catch { /* never written */ }
      }
    }
    const moved: string[] = [];
    walkFiles(out, ".", moved);
    // the entry goes last: until it is there, the copy is the plain source copy (and the
    // launcher written for a bundled copy is written only after)
    moved.sort((a, b) =>
      (a.endsWith(`/${BUNDLE_ENTRY}`) ? 1 : 0) - (b.endsWith(`/${BUNDLE_ENTRY}`) ? 1 : 0)
    );
    for (const f of moved) {
      makeDirs(dirname(join(dir, f)));
      Deno.renameSync(join(out, f), join(dir, f));
      Deno.chmodSync(join(dir, f), FILE_MODE); // the bundler's files carry the umask's mode
    }
    return null;
  } catch (e) {
    return `deno bundle could not run: ${(e as Error).message}`;
  } finally {
    try {
      Deno.removeSync(out, { recursive: true });
    } catch { /* never made */ }
  }
}

/** `deno bundle` over the copy in `dir`, offline, with the copy's config and lock. */
function bundleRun(plan: SourcePlan, dir: string, args: string[]): Deno.CommandOutput {
  return new Deno.Command(runtimePath(), {
    args: [
      "bundle",
      "--quiet",
      "--frozen",
      "--config",
      join(dir, "deno.json"),
      "--platform",
      "deno",
    ]
      .concat(args),
    env: {
      DENO_DIR: plan.cache,
      DENO_NO_UPDATE_CHECK: "1",
      NPM_CONFIG_REGISTRY: plan.registry.url,
      NO_COLOR: "1",
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).outputSync();
}

function bundleFailed(r: Deno.CommandOutput): string {
  const why = new TextDecoder().decode(r.stderr).trim();
  return `deno bundle failed: ${why.split("\n")[0] || `exit ${r.code}`}`;
}

function isFile(p: string): boolean {
  try {
    return Deno.statSync(p).isFile;
  } catch {
    return false;
  }
}

const RUNTIME_WORD = "\0runtime\0";

/**
 * The launcher: the runtime recorded at install, else whichever `deno` is on PATH when it
 * runs (moving or upgrading Deno must not break every hook); with neither, one line naming
 * both, and exit 1.
 */
export function launcherText(deno: string, layout: SourceLayout, registry: string): string {
  const every = v8Flags();
  const words = (argv: string[]) =>
    argv.map((a) =>
      a === RUNTIME_WORD
        ? '"$deno"'
        : a.endsWith(RUNTIME_WORD)
        ? `${shellWord(a.slice(0, -RUNTIME_WORD.length))}"$deno"`
        : a === every
        ? '"$heap"'
        : shellWord(a)
    ).join(" ");
  const argv0 = installedArgv(RUNTIME_WORD, layout.sourceDir);
  const argv = words(argv0);
  const hook = hookArgv(RUNTIME_WORD, layout.sourceDir);
  // the commands with a file of their own go there while it is there
  const own = OWN_FILE_COMMANDS.flatMap((name) => {
    const a = ownArgv(name, RUNTIME_WORD, layout.sourceDir);
    return a === null ? [] : [
      `${name}) [ -f ${shellWord(a.at(-1)!)} ] && DENO_DIR=${
        shellWord(ownDenoDir(layout.denoDir, name))
      } exec ${words(a)} "$@" ;;`,
    ];
  });
  const ownLine = own.length ? [`case "$1" in ${own.join(" ")} esac`] : [];
  // the pass a hook's launch starts runs the pass's own file when the copy has one; with that
  // file gone the launcher starts none, and the hook starts its own through mod.js
  const passOwn = ownArgv("ingest", RUNTIME_WORD, layout.sourceDir);
  const pass = [...passOwn ?? argv0, "ingest"];
  const passThere = passOwn ? ` && [ -f ${shellWord(passOwn.at(-1)!)} ]` : "";
  // Claude Code's one form of a hook goes to the hook's own file while it is there
  const hookLine = hook === null ? [] : [
    // The hook's pass is started here, before the runtime, through bash's job as the hook
    // would: the hook then loads no process module and spawns nothing (some 5-10 ms of its
    // start). The job waits for this process ($$, the hook once exec'd) to exit before the
    // pass's runtime starts. A prompt's or a compaction's pass takes the burst gate itself
    // (PASS_GATE_VAR). Without bash the hook starts it itself.
    `case "$1:$2:$#" in ${PASS_ALWAYS_EVENTS.map((e) => `hook:${e}:2`).join("|")}) g= ;; ${
      SETUP_HOOK_EVENTS.filter((e) => !PASS_ALWAYS_EVENTS.includes(e)).map((e) => `hook:${e}:2`)
        .join("|")
    }) g=1 ;; *) g=- ;; esac`,
    `if [ "$g" != - ] && [ -f ${
      shellWord(hook.at(-1)!)
    } ]${passThere} && command -v bash >/dev/null 2>&1; then ${
      passOwn ? `DENO_DIR=${shellWord(ownDenoDir(layout.denoDir, "ingest"))} ` : ""
    }${PASS_GATE_VAR}=$g bash -c ${shellWord(BASH_JOB)} terminus ${
      bashJobArgs({ delayMs: HOOK_PASS_WAIT_MS, niceness: PASS_NICENESS }).map(shellWord).join(" ")
    } "$$" ${
      words(pass)
    } </dev/null >/dev/null 2>&1 & ${LAUNCHER_PASS_VAR}=1; export ${LAUNCHER_PASS_VAR}; fi`,
    `case "$1:$2:$#" in ${SETUP_HOOK_EVENTS.map((e) => `hook:${e}:2`).join("|")}) [ -f ${
      shellWord(hook.at(-1)!)
    } ] && exec ${words(hook)} "$@" ;; esac`,
  ];
  const missing =
    `terminus: no Deno runtime: ${deno} (where it was at install) is gone and no deno is on PATH; put Deno ${Deno.version.deno} on PATH, then run terminus again`;
  return [
    "#!/bin/sh",
    `# Terminus ${VERSION}, installed from source by terminus install. ${BUILD_MARKER}`,
    `# It runs the copy in ${basename(layout.sourceDir)} offline, from the module cache beside it.`,
    `deno=${shellWord(deno)}`,
    'if [ ! -x "$deno" ]; then',
    "  deno=$(command -v deno 2>/dev/null) || deno=",
    '  if [ -z "$deno" ]; then',
    `    printf '%s\\n' ${shellWord(missing)} >&2`,
    "    exit 1",
    "  fi",
    "fi",
    `DENO_DIR=${shellWord(layout.denoDir)}`,
    "DENO_NO_UPDATE_CHECK=1",
    `NPM_CONFIG_REGISTRY=${shellWord(registry)}`,
    `: "\${MALLOC_MMAP_THRESHOLD_:=${MALLOC_MMAP_THRESHOLD_BYTES}}"`,
    `: "\${MALLOC_TRIM_THRESHOLD_:=${MALLOC_TRIM_THRESHOLD_BYTES}}"`,
    "export DENO_DIR DENO_NO_UPDATE_CHECK NPM_CONFIG_REGISTRY MALLOC_MMAP_THRESHOLD_ MALLOC_TRIM_THRESHOLD_",
    // the backfill's worker keeps its smaller young generation, however it is started
    `case "$1" in backfill) heap=${shellWord(v8Flags(BACKFILL_SEMI_SPACE_MIB))} ;; *) heap=${
      shellWord(every)
    } ;; esac`,
    ...hookLine,
    ...ownLine,
    `exec ${argv} "$@"`,
    "",
  ].join("\n");
}

function shellWords(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) =>
    m[1] !== undefined ? m[1].replace(/'\\''/g, "'") : m[2]
  );
}

/** Reads the runtime recorded in a launcher and the entry it runs, for doctor. */
export function launcherNames(text: string): { deno: string; main: string } | null {
  const lines = text.split("\n");
  const rec = lines.find((l) => l.startsWith("deno="));
  const exec = lines.find((l) => l.startsWith("exec "));
  if (!rec || !exec) return null;
  const deno = shellWords(rec.slice("deno=".length))[0];
  const main = shellWords(exec).find((w) =>
    w.endsWith("/mod.ts") || w.endsWith(`/${BUNDLE_ENTRY}`)
  );
  return deno && main ? { deno, main } : null;
}

/** The argv that runs a bundled copy's hook entry, or null for a copy without one. */
export function hookArgv(deno: string, sourceDir: string): string[] | null {
  if (!bundled(sourceDir) || !isFile(join(sourceDir, HOOK_ENTRY))) return null;
  return [deno, "run", "--no-config", ...permissionFlags(deno), join(sourceDir, HOOK_ENTRY)];
}

/** The argv that runs a bundled copy's own file for `name`, or null for a copy without one. */
export function ownArgv(name: OwnFileCommand, deno: string, sourceDir: string): string[] | null {
  if (!bundled(sourceDir) || !isFile(join(sourceDir, ownStart(name)))) return null;
  const every = v8Flags();
  const flags = permissionFlags(deno).map((f) => f === every ? ownV8Flags(name) : f);
  return [deno, "run", "--no-config", ...flags, join(sourceDir, ownStart(name))];
}

/**
 * The argv that runs the installed copy, offline, with the program's own permissions. A bundle
 * holds its npm packages and imports nothing else but the runtime's own modules, so it runs
 * with no config at all (reading deno.json and the lock costs a start about 1 ms); the source
 * needs the copy's import map and lock, and the module cache beside it.
 */
export function installedArgv(deno: string, sourceDir: string): string[] {
  if (bundled(sourceDir)) {
    return [deno, "run", "--no-config", ...permissionFlags(deno), join(sourceDir, BUNDLE_ENTRY)];
  }
  return [
    deno,
    "run",
    "--cached-only",
    "--frozen",
    "--config",
    join(sourceDir, "deno.json"),
    ...permissionFlags(deno),
    join(sourceDir, "mod.ts"),
  ];
}
