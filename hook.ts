/**
 * The installed copy's entry for `terminus hook <event>` in the one form Claude Code runs it;
 * the launcher sends that form here and anything else to mod.ts. Bundled alone into hook.js,
 * a hook loads one file holding its own modules, where mod.js loads its command table and then
 * the hook's share of the shared chunks, some twenty files (docs/design/performance.md).
 */
import { command } from "./commands/hook.ts";
import { parse, runCommand } from "./commands/parse.ts";
import { processContext } from "./core/context.ts";
import { SETUP_HOOK_EVENTS } from "./core/setup/locations.ts";
import { deliver, exitWith } from "./deliver.ts";
import { streams, writeAll } from "./io.ts";

/** The program beside this entry: what the pass a hook starts runs (`terminus ingest`). */
export function programBeside(entry: string): string {
  return new URL(entry.endsWith(".js") ? "./mod.js" : "./mod.ts", entry).href;
}

/** Whether argv is the form this entry answers: `hook` and one of the four events. */
export function hookForm(argv: string[]): boolean {
  return argv.length === 2 && argv[0] === "hook" &&
    (SETUP_HOOK_EVENTS as readonly string[]).includes(argv[1]);
}

async function main(argv: string[]): Promise<number> {
  if (!hookForm(argv)) {
    writeAll("stderr", [`terminus: this entry runs only 'hook <event>'; run terminus itself\n`]);
    return 2;
  }
  const args = argv.slice(1);
  const ctx = processContext(programBeside(import.meta.url));
  ctx.streams = streams;
  const result = await runCommand(command, ctx, await parse(command, args));
  return await deliver(result, false);
}

if (import.meta.main) await exitWith(() => main(Deno.args));
