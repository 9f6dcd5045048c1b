/**
 * Terminus: parse argv, dispatch to one command, render its outcome, exit with its code.
 * The only module that writes to stdout/stderr or calls Deno.exit.
 */
import { type Entry, find, REGISTRY, usageText } from "./commands/mod.ts";
import type { Command, Parsed } from "./commands/types.ts";
import { parse, runCommand } from "./commands/parse.ts";
import { HOOK_PASS_VAR, passWaitLeft, processContext, takeEnv } from "./core/context.ts";
import { HOOK_PASS_WAIT_MS, VERSION } from "./core/constants.ts";
import { errorText, UsageError } from "./core/errors.ts";
import { Progress, type ProgressFactory } from "./core/progress.ts";
import {
  type Chunk,
  escapeControls,
  type Outcome,
  outcome,
  pagerCommand,
  render,
} from "./core/output.ts";
import { processEnv } from "./core/paths.ts";
import { wrapText } from "./core/width.ts";
import { dialogue, isTerminal, streams, writeAll } from "./io.ts";

const encoder = new TextEncoder();

/**
 * Hands human output to the pager when stdout is a terminal and the text is taller than the
 * screen. Returns false (the caller writes it) when paging does not apply or cannot start.
 */
async function paged(chunks: Chunk[]): Promise<boolean> {
  if (!isTerminal("stdout")) return false;
  const cmd = pagerCommand(processEnv);
  if (!cmd) return false;
  let rows = 0;
  try {
    rows = Deno.consoleSize().rows;
  } catch {
    return false;
  }
  const bytes = chunks.map((c) => (typeof c === "string" ? encoder.encode(c) : c));
  let lines = 0;
  for (const b of bytes) for (const x of b) if (x === 0x0a) lines++;
  if (rows <= 0 || lines < rows) return false;
  // a pager the permissions do not name is passed over: the text is printed instead
  if (Deno.permissions.querySync({ name: "run", command: cmd[0] }).state !== "granted") {
    return false;
  }
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(cmd[0], { args: cmd.slice(1), stdin: "piped" }).spawn();
  } catch {
    return false;
  }
  const w = child.stdin.getWriter();
  try {
    for (const b of bytes) await w.write(b);
    await w.close();
  } catch {
    // the person quit the pager before the end: nothing more to show
  }
  await child.status;
  return true;
}

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

/** The terminal's width when the stream is one that knows it; null for a pipe or a file. */
function columnsOf(stream: "stdout" | "stderr"): number | null {
  const columns = isTerminal(stream) ? streams.size()?.columns ?? 0 : 0;
  return columns > 0 ? columns : null;
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
  if (first === "ingest") await waitOutHook();
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
  // on a terminal, long lines are wrapped to its width (through the pager too)
  const r = render(result, parsed.json, columnsOf("stdout"));
  let written = true;
  try {
    if (!(r.page && await paged(r.stdout))) written = writeAll("stdout", r.stdout);
  } catch (e) {
    if (!result.after) throw e;
    written = false;
  }
  // the hook records what it handed over only now: a reader gone away is nothing handed over
  const more = result.after ? result.after(written) : [];
  const stderr = [...r.stderr, ...more];
  if (stderr.length) {
    // counts and notes fit the terminal as the answer does; a pipe gets them whole
    const width = columnsOf("stderr");
    writeAll("stderr", stderr.map((l) => wrapText(l, width) + "\n"));
  }
  return r.exitCode;
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (e) {
    // a command that wrote on its own (data move's questions) met a closed pipe: end quietly
    if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
    code = 0;
  }
  Deno.exit(code);
}
