/**
 * The installed copy's entry for `terminus ingest`, the archive pass every hook starts: the
 * launcher sends `ingest ...` here and anything else to mod.ts. Bundled alone, a pass loads
 * that file and a few chunks instead of mod.js and the pass's share of its chunks
 * (docs/design/performance.md, "Search's own file, and the pass's").
 */
import { INGEST_SUMMARY } from "./commands/help_lines.ts";
import { throughGate, waitOutHook } from "./core/setup/pass_start.ts";
import { runEntered, usageOf } from "./command_run.ts";
import { exitWith } from "./deliver.ts";
import { writeAll } from "./io.ts";

/** Runs `ingest ...`; any other argv is refused (exit 2), since mod.ts answers it. */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] !== "ingest") {
    writeAll("stderr", [`terminus: this entry runs only 'ingest'; run terminus itself\n`]);
    return 2;
  }
  if (!throughGate()) return 0;
  await waitOutHook();
  // the pass's own modules load only now, in a chunk of their own: a pass gated out (one of a
  // burst of prompts) or waiting out its hook has loaded none of them
  const { command } = await import("./commands/ingest.ts");
  return await runEntered(command, INGEST_SUMMARY, argv.slice(1), () => usageOf(command));
}

/** Runs the entry on the process's argv and exits with its code. */
export function start(): Promise<never> {
  return exitWith(() => main(Deno.args));
}

if (import.meta.main) await start();
