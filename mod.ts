/**
 * Terminus: parse argv, dispatch to one command, render its outcome, exit with its code.
 * The program's entry; hook.ts is the installed copy's second, for hooks alone, and the two
 * share deliver.ts for what follows a command's run.
 */
import { find, REGISTRY, usageText } from "./commands/mod.ts";
import type { Command } from "./commands/types.ts";
import { HOOK_PASS_VAR, passWaitLeft, takeEnv } from "./core/context.ts";
import { PASS_GATE_VAR } from "./core/setup/locations.ts";
import { HOOK_PASS_WAIT_MS, VERSION } from "./core/constants.ts";
import { wrapText } from "./core/width.ts";
import { writeAll } from "./io.ts";
import { columnsOf, exitWith } from "./deliver.ts";
import { misuse, runEntered, usageOf } from "./command_run.ts";

/** One line of error, then the usage of the command misused (or the list of commands); exit 2. */
function misuseOf(message: string, cmd?: Command): never {
  misuse(message, cmd && !cmd.misuseListsCommands ? usageOf(cmd) : usageText());
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
    if (argv.length > 1) misuseOf(`${first} takes no arguments`);
    writeAll("stdout", [`terminus ${VERSION}\n`]);
    return 0;
  }
  if (first.startsWith("-")) misuseOf(`unknown option '${first}'`);
  if (first === "ingest") {
    if (!await throughGate()) return 0;
    await waitOutHook();
  }
  const entry = find(first) ?? await unknownCommand(first);
  return await runEntered(await entry.load(), entry.summary, argv.slice(1), usageText);
}

if (import.meta.main) await exitWith(() => main(Deno.args));
