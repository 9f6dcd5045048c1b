/**
 * The installed copy's entry for `terminus search`: the launcher sends `search ...` here and
 * anything else to mod.ts. Bundled alone, a search loads that file and a few chunks instead
 * of mod.js and the search's share of its chunks, some thirty files
 * (docs/design/performance.md, "Search's own file, and the pass's").
 */
import { command } from "./commands/search.ts";
import { SEARCH_SUMMARY } from "./commands/help_lines.ts";
import { runEntered, usageOf } from "./command_run.ts";
import { exitWith } from "./deliver.ts";
import { writeAll } from "./io.ts";

/** Runs `search <words...>`; any other argv is refused (exit 2), since mod.ts answers it. */
export async function main(argv: string[]): Promise<number> {
  if (argv[0] !== command.name) {
    writeAll("stderr", [`terminus: this entry runs only 'search'; run terminus itself\n`]);
    return 2;
  }
  return await runEntered(command, SEARCH_SUMMARY, argv.slice(1), () => usageOf(command));
}

/** Runs the entry on the process's argv and exits with its code. */
export function start(): Promise<never> {
  return exitWith(() => main(Deno.args));
}

if (import.meta.main) await start();
