/**
 * Terminus: parse argv, dispatch to one command, render its outcome, exit with its code.
 * The program's entry. The installed copy has three more, each bundled alone: hook.ts for
 * hooks, search.ts and ingest.ts; all share command_run.ts and deliver.ts for a command's run.
 */
import { find, REGISTRY, usageText } from "./commands/mod.ts";
import type { Command } from "./commands/types.ts";
import { VERSION } from "./core/constants.ts";
import { wrapText } from "./core/width.ts";
import { writeAll } from "./io.ts";
import { columnsOf, exitWith } from "./deliver.ts";
import { misuse, misuseUsage, runEntered } from "./command_run.ts";

/** One line of error, then the usage of the command misused (or the list of commands); exit 2. */
function misuseOf(message: string, cmd?: Command): never {
  misuse(message, cmd ? misuseUsage(cmd, usageText) : usageText());
}

/** An unknown command: a likely slip gets `did you mean` and that command's usage line. */
async function unknownCommand(name: string): Promise<never> {
  const { closest } = await import("./core/suggest.ts");
  const meant = closest(name, REGISTRY.map((e) => e.name));
  if (meant) {
    misuseOf(`unknown command '${name}'; did you mean '${meant}'?`, await find(meant)!.load());
  }
  misuseOf(`unknown command '${name}'`);
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
    if (argv.length > 1) misuseOf(`${first} takes no arguments`);
    writeAll("stdout", [`terminus ${VERSION}\n`]);
    return 0;
  }
  if (first.startsWith("-")) misuseOf(`unknown option '${first}'`);
  if (first === "ingest") {
    // loaded only for a pass: the gate and the wait come before the pass's own modules
    const { throughGate, waitOutHook } = await import("./core/setup/pass_start.ts");
    if (!throughGate()) return 0;
    await waitOutHook();
  }
  const entry = find(first) ?? await unknownCommand(first);
  return await runEntered(await entry.load(), entry.summary, argv.slice(1), usageText);
}

if (import.meta.main) await exitWith(() => main(Deno.args));
