/**
 * terminus help <command>: one command's usage line, its summary, each option in one line, and
 * examples. Each command declares its own (its `help` property); this module only lays them
 * out. The registry is handed in rather than imported, so the two do not import each other.
 */
import type { Command, CommandHelp } from "./types.ts";
import { outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";

/** The whole help text of one command. */
export function helpText(cmd: Command, summary: string): string {
  const h = cmd.help;
  const width = Math.max(0, ...h.options.map(([f]) => f.length)) + 2;
  const lines = [`usage: ${cmd.usage}`, "", summary];
  if (h.options.length) {
    lines.push("", "options:", ...h.options.map(([f, t]) => `  ${f.padEnd(width)}${t}`));
  }
  if (h.examples.length) lines.push("", "examples:", ...h.examples.map((e) => `  ${e}`));
  return lines.join("\n") + "\n";
}

/** What help needs of the registry (commands/mod.ts). */
export interface Catalog {
  find(name: string): { summary: string; load: () => Promise<Command> } | undefined;
  usageText(): string;
}

const help: CommandHelp = {
  options: [],
  examples: ["terminus help search"],
};

export function helpCommand(catalog: Catalog): Command {
  const command: Command = {
    name: "help",
    help,
    usage: "terminus help <command>",
    misuseListsCommands: true,
    options: {},
    positionals: true,
    json: false,
    empty: () => null,
    async run(_ctx, a) {
      if (a.positionals.length === 0) {
        return outcome("help", null, { human: [catalog.usageText()] });
      }
      if (a.positionals.length > 1) throw new UsageError("help takes one command name");
      const name = a.positionals[0];
      const entry = catalog.find(name);
      if (!entry) throw new UsageError(`unknown command '${name}'`);
      const cmd = name === "help" ? command : await entry.load();
      return outcome("help", null, { human: [helpText(cmd, entry.summary)] });
    },
  };
  return command;
}
