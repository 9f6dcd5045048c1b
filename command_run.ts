/**
 * One command's run from the words after its name: its help, its misuse, the parse, the run
 * and the delivery. mod.ts and the search's and the pass's entries (search.ts, ingest.ts) run
 * a command through it; the command table stays out of it (`listCommands`), so an entry bundled
 * alone holds only its own command.
 */
import type { Command, Parsed } from "./commands/types.ts";
import { parse, runCommand } from "./commands/parse.ts";
import { processContext } from "./core/context.ts";
import { errorText, UsageError } from "./core/errors.ts";
import { Progress, type ProgressFactory } from "./core/progress.ts";
import { escapeControls, type Outcome, outcome, render } from "./core/output.ts";
import { wrapText } from "./core/width.ts";
import { dialogue, isTerminal, streams, writeAll } from "./io.ts";
import { columnsOf, deliver, paged } from "./deliver.ts";

/** Progress drawn in place on stderr: a carriage return, the line, erase to its end. */
const terminalProgress: ProgressFactory = (label, total, unit) =>
  new Progress(label, total, unit, (line) => {
    writeAll("stderr", [line === null ? "\r\x1b[K" : `\r${line}\x1b[K`]);
  });

/** One line of error, then the usage lines; exit 2. */
export function misuse(message: string, usage: string): never {
  writeAll("stderr", [
    wrapText(`terminus: ${escapeControls(message)}\n\n${usage}`, columnsOf("stderr")),
  ]);
  Deno.exit(2);
}

/** A command's usage line and where its options are listed. */
export function usageOf(cmd: Command): string {
  return `usage: ${cmd.usage}\nterminus help ${cmd.name} lists every option, with examples.\n`;
}

/** The usage shown when a command is misused: its own, or the list of commands. */
export function misuseUsage(cmd: Command, listCommands: () => string): string {
  return cmd.misuseListsCommands ? listCommands() : usageOf(cmd);
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
async function commandHelp(cmd: Command, summary: string, args: string[]): Promise<number> {
  const { helpText } = await import("./commands/help.ts");
  const verb = cmd.subcommands?.names.includes(args[0]) ? args[0] : undefined;
  const help = outcome("help", null, { human: [helpText(cmd, summary, verb)] });
  const r = render(help, false, columnsOf("stdout"));
  if (!(await paged(r.stdout))) writeAll("stdout", r.stdout);
  return 0;
}

/** Misuse of a command: exit 2; a first word that is a slip for one of its subcommands is named. */
async function commandMisuse(
  message: string,
  cmd: Command,
  args: string[],
  listCommands: () => string,
): Promise<never> {
  const word = args[0];
  const names = cmd.subcommands?.names;
  if (names && word !== undefined && !names.includes(word)) {
    const { closest } = await import("./core/suggest.ts");
    const meant = closest(word, names);
    if (meant) misuse(`${message}; did you mean '${meant}'?`, misuseUsage(cmd, listCommands));
  }
  // a verb's misuse shows that verb's usage, not all twelve lines of the command's
  if (names && !cmd.misuseListsCommands) {
    const { formUsage } = await import("./commands/help.ts");
    misuse(message, formUsage(cmd, names.includes(word) ? word : undefined));
  }
  misuse(message, misuseUsage(cmd, listCommands));
}

/**
 * Runs `cmd` on the words after its name (`summary` heads its help) and delivers its outcome;
 * returns the exit code. `listCommands` is the list of commands, for a command whose misuse
 * shows it.
 */
export async function runEntered(
  cmd: Command,
  summary: string,
  args: string[],
  listCommands: () => string,
): Promise<number> {
  if (asksHelp(args)) return await commandHelp(cmd, summary, args);
  let parsed: Parsed;
  try {
    parsed = await parse(cmd, args);
  } catch (e) {
    return await commandMisuse((e as Error).message, cmd, args, listCommands);
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
    if (e instanceof UsageError) return await commandMisuse(e.message, cmd, args, listCommands);
    result = outcome(cmd.name, cmd.empty(parsed), {
      ok: false,
      reason: errorText(e),
      exitCode: 1,
    });
  }
  return await deliver(result, parsed.json);
}
