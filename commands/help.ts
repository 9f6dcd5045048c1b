/**
 * terminus help <command> [<verb>]: one command's usage line, its summary, each option in one
 * line, and examples; for a verb (sessions show), only that verb's. Each command declares its
 * own (its `help` property); this module only lays them out. The registry is handed in rather
 * than imported, so the two do not import each other.
 */
import type { Command, CommandHelp, HelpLine } from "./types.ts";
import { outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";

/** The option words a help line names: "-y, --yes" -> ["y", "yes"], "--path <p>" -> ["path"]. */
export function flagsOf(line: string): string[] {
  return [...line.matchAll(/(?:^|[ ,])--?([a-z][a-z-]*)/g)].map((m) => m[1]);
}

/** The command's usage lines, one per form (sessions has one per verb). */
export function usageLines(cmd: Command): string[] {
  return cmd.usage.split("\n").map((l) => l.trim());
}

/**
 * The options a verb takes, by name: those its command's `subcommands.options` lists for it;
 * for a verb with no list there, every option no other verb lists (observations regenerate
 * takes --since, which only the listing's --project is not); --json when the command takes it.
 */
export function verbOptions(cmd: Command, verb: string): string[] {
  const sc = cmd.subcommands;
  const all = Object.keys(cmd.options);
  const listed = sc?.options?.[verb];
  const own = listed
    ? [...listed]
    : all.filter((o) =>
      !Object.entries(sc?.options ?? {}).some(([v, os]) => v !== verb && os.includes(o))
    );
  return cmd.json ? [...own, "json"] : own;
}

function layout(usage: string[], summary: string, options: HelpLine[], examples: string[]) {
  const width = Math.max(0, ...options.map(([f]) => f.length)) + 2;
  const lines = [`usage: ${usage.join("\n  ")}`, "", summary];
  if (options.length) {
    lines.push("", "options:", ...options.map(([f, t]) => `  ${f.padEnd(width)}${t}`));
  }
  if (examples.length) lines.push("", "examples:", ...examples.map((e) => `  ${e}`));
  return lines.join("\n") + "\n";
}

/**
 * The usage lines of one form of a command with verbs, for its misuse: the verb's, or with no
 * verb the lines that name none (sessions' listing); then where its whole help is.
 */
export function formUsage(cmd: Command, verb: string | undefined): string {
  const names = cmd.subcommands?.names ?? [];
  const form = verb ?? cmd.subcommands?.fallback;
  const lines = usageLines(cmd).filter((l) =>
    form !== undefined ? mentions(cmd, form, l) : !names.some((v) => mentions(cmd, v, l))
  );
  const shown = lines.length ? lines : usageLines(cmd);
  const which = verb === undefined ? cmd.name : `${cmd.name} ${verb}`;
  return `usage: ${
    shown.join("\n  ")
  }\nterminus help ${which} lists every option, with examples.\n`;
}

/** Whether a usage line or example is about `verb` of `cmd` (`sessions tag|untag` names both). */
export function mentions(cmd: Command, verb: string, line: string): boolean {
  return new RegExp(`(^|\\s)${cmd.name} \\[?(\\S*\\|)?${verb}(\\]|\\||\\s|$)`).test(line);
}

/** The whole help text of one command, or of one of its verbs. */
export function helpText(cmd: Command, summary: string, verb?: string): string {
  const h = cmd.help;
  if (verb === undefined || !cmd.subcommands?.names.includes(verb)) {
    return layout([cmd.usage], summary, h.options, h.examples);
  }
  const about = (l: string) => mentions(cmd, verb, l);
  const usage = usageLines(cmd).filter(about);
  const takes = new Set(verbOptions(cmd, verb));
  const options = h.options.filter(([f]) => flagsOf(f).some((x) => takes.has(x)));
  const examples = h.examples.filter(about);
  return layout(
    usage.length ? usage : [cmd.usage],
    `${cmd.name} ${verb}: ${cmd.subcommands.summaries[verb] ?? summary}`,
    options,
    examples,
  );
}

/** What help needs of the registry (commands/mod.ts). */
export interface Catalog {
  find(name: string): { summary: string; load: () => Promise<Command> } | undefined;
  usageText(): string;
}

const help: CommandHelp = {
  options: [],
  examples: ["terminus help search", "terminus help sessions show"],
};

export function helpCommand(catalog: Catalog): Command {
  const command: Command = {
    name: "help",
    help,
    usage: "terminus help [<command> [<verb>]]",
    misuseListsCommands: true,
    options: {},
    positionals: true,
    json: false,
    empty: () => null,
    async run(_ctx, a) {
      if (a.positionals.length === 0) {
        return outcome("help", null, { human: [catalog.usageText()] });
      }
      if (a.positionals.length > 2) throw new UsageError("help takes a command and a verb at most");
      const [name, verb] = a.positionals;
      const entry = catalog.find(name);
      if (!entry) throw new UsageError(`unknown command '${name}'`);
      const cmd = name === "help" ? command : await entry.load();
      if (verb !== undefined && !cmd.subcommands?.names.includes(verb)) {
        const names = cmd.subcommands?.names;
        throw new UsageError(
          names
            ? `${name} has no verb '${verb}'; its verbs are ${names.join(", ")}`
            : `${name} has no verbs`,
        );
      }
      return outcome("help", null, { human: [helpText(cmd, entry.summary, verb)] });
    },
  };
  return command;
}
