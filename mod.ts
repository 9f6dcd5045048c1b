/**
 * Terminus: parse argv, dispatch to one command, render its outcome, exit with its code.
 * The program's entry; hook.ts is the installed copy's second, for hooks alone, and the two
 * share deliver.ts for what follows a command's run.
 */
import { type Entry, find, REGISTRY, usageText } from "./commands/mod.ts";
import type { Command, Parsed } from "./commands/types.ts";
import { parse, runCommand } from "./commands/parse.ts";
import { HOOK_PASS_VAR, passWaitLeft, processContext, takeEnv } from "./core/context.ts";
import { PASS_GATE_VAR } from "./core/setup/locations.ts";
import { HOOK_PASS_WAIT_MS, VERSION } from "./core/constants.ts";
import { errorText, UsageError } from "./core/errors.ts";
import { Progress, type ProgressFactory } from "./core/progress.ts";
import { escapeControls, type Outcome, outcome, render } from "./core/output.ts";
import { wrapText } from "./core/width.ts";
import { dialogue, isTerminal, streams, writeAll } from "./io.ts";
import { columnsOf, deliver, exitWith, paged } from "./deliver.ts";

/** Progress drawn in place on stderr: a carriage return, the line, erase to its end. */
const terminalProgress: ProgressFactory = (label, total, unit) =>
  new Progress(label, total, unit, (line) => {
    writeAll("stderr", [line === null ? "\r\x1b[K" : `\r${line}\x1b[K`]);
  });

/** One line of error, then the usage of the command misused (or the list of commands). */
function misuse(message: string, cmd?: Command, usageLines?: string): never {
  const usage = usageLines ??
    (cmd && !cmd.misuseListsCommands
      ? `usage: ${cmd.usage}\nterminus help ${cmd.name} lists every option, with examples.\n`
      : usageText());
  writeAll("stderr", [
    wrapText(`terminus: ${escapeControls(message)}\n\n${usage}`, columnsOf("stderr")),
  ]);
  Deno.exit(2);
}

/** `--help` or `-h` among a command's options (before any `--`). */
function asksHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/**
 * `<command> --help` or `-h` (anywhere before `--`): the command's help, or its verb's when
 * the first word names one (`sessions show -h`), on stdout, exit 0, as gh, rg and git do;
 * wrapped to the terminal like any answer, through the pager when it is taller.
 */
async function commandHelp(cmd: Command, entry: Entry, args: string[]): Promise<number> {
  const { helpText } = await import("./commands/help.ts");
  const verb = cmd.subcommands?.names.includes(args[0]) ? args[0] : undefined;
  const help = outcome("help", null, { human: [helpText(cmd, entry.summary, verb)] });
  const r = render(help, false, columnsOf("stdout"));
  if (!(await paged(r.stdout))) writeAll("stdout", r.stdout);
  return 0;
}

/** Misuse of a command: exit 2; a first word that is a slip for one of its subcommands is named. */
async function commandMisuse(
  message: string,
  cmd: Command,
  _entry: Entry,
  args: string[],
): Promise<never> {
  const word = args[0];
  const names = cmd.subcommands?.names;
  if (names && word !== undefined && !names.includes(word)) {
    const { closest } = await import("./core/suggest.ts");
    const meant = closest(word, names);
    if (meant) misuse(`${message}; did you mean '${meant}'?`, cmd);
  }
  // a verb's misuse shows that verb's usage, not all twelve lines of the command's
  if (names && !cmd.misuseListsCommands) {
    const { formUsage } = await import("./commands/help.ts");
    misuse(message, cmd, formUsage(cmd, names.includes(word) ? word : undefined));
  }
  misuse(message, cmd);
}

/** An unknown command: a likely slip gets `did you mean` and that command's usage line. */
async function unknownCommand(name: string): Promise<never> {
  const { closest } = await import("./core/suggest.ts");
  const meant = closest(name, REGISTRY.map((e) => e.name));
  if (meant) {
    misuse(`unknown command '${name}'; did you mean '${meant}'?`, await find(meant)!.load());
  }
  misuse(`unknown command '${name}'`);
}

/**
 * The pass a hook started waits out that hook's deadline before it loads anything, so its
 * module load and its walk run after the lookup rather than beside it (HOOK_PASS_WAIT_MS).
 * The mark is when the hook started it: where the start already slept (bash's route, before
 * even the runtime started) nothing is left to wait here. The mark is taken out of the
 * environment, so nothing the pass starts inherits it.
 */
async function waitOutHook(): Promise<void> {
  const mark = takeEnv(HOOK_PASS_VAR);
  if (mark === undefined) return;
  const left = passWaitLeft(mark, Date.now(), HOOK_PASS_WAIT_MS);
  if (left > 0) await new Promise((r) => setTimeout(r, left));
}

/**
 * The pass the launcher starts for a prompt's or a compaction's hook takes the burst gate the
 * hook would have taken (one pass for a burst of prompts) before anything else: false when a
 * pass was started too recently, and this one has nothing to do. Loaded only then.
 */
async function throughGate(): Promise<boolean> {
  if (takeEnv(PASS_GATE_VAR) !== "1") return true;
  const [{ claimPassStart }, { notePassWanted }, { dataDir, processEnv }] = await Promise.all([
    import("./core/ingest/gate.ts"),
    import("./core/ingest/stall.ts"),
    import("./core/paths.ts"),
  ]);
  let dir: string;
  try {
    dir = dataDir(processEnv);
  } catch {
    return true; // the pass names the problem
  }
  if (!claimPassStart(dir, false)) return false;
  notePassWanted(dir);
  return true;
}

async function main(argv: string[]): Promise<number> {
  const first = argv[0];
  if (first === "--help" || first === "-h") {
    // `terminus --help search` is `terminus help search`
    if (argv.length > 1) return await main(["help", ...argv.slice(1)]);
  }
  if (first === undefined || first === "--help" || first === "-h") {
    writeAll("stdout", [wrapText(usageText(), columnsOf("stdout"))]);
    return 0;
  }
  if (first === "--version" || first === "-V") {
    if (argv.length > 1) misuse(`${first} takes no arguments`);
    writeAll("stdout", [`terminus ${VERSION}\n`]);
    return 0;
  }
  if (first.startsWith("-")) misuse(`unknown option '${first}'`);
  if (first === "ingest") {
    if (!await throughGate()) return 0;
    await waitOutHook();
  }
  const entry = find(first) ?? await unknownCommand(first);
  const cmd = await entry.load();
  const args = argv.slice(1);
  if (asksHelp(args)) return await commandHelp(cmd, entry, args);

  let parsed: Parsed;
  try {
    parsed = await parse(cmd, args);
  } catch (e) {
    return await commandMisuse((e as Error).message, cmd, entry, args);
  }
  let result: Outcome;
  try {
    const ctx = processContext();
    ctx.io = dialogue; // not a spread, which would work out the lazy `self` on every run
    ctx.streams = streams;
    if (!parsed.json && !cmd.unattended && isTerminal("stderr")) {
      ctx.progress = terminalProgress;
    }
    result = await runCommand(cmd, ctx, parsed);
  } catch (e) {
    if (e instanceof UsageError) return await commandMisuse(e.message, cmd, entry, args);
    result = outcome(cmd.name, cmd.empty(parsed), {
      ok: false,
      reason: errorText(e),
      exitCode: 1,
    });
  }
  return await deliver(result, parsed.json);
}

if (import.meta.main) await exitWith(() => main(Deno.args));
