/**
 * The registry as a CliSpec: each command loaded, its options matched to their help lines,
 * its verbs with the options each takes. The registry is handed in (as help's catalog is), so
 * this module and commands/mod.ts do not import each other.
 */
import type { Command, HelpLine, Options } from "./types.ts";
import type { CommandSpec, OptionSpec } from "../core/setup/cli_spec.ts";
import { flagsOf, mentions, usageLines, verbOptions } from "./help.ts";

export interface RegistryEntry {
  name: string;
  summary: string;
  load: () => Promise<Command>;
}

function optionSpec(cmd: Command, name: string): OptionSpec | null {
  if (cmd.help.internal?.includes(name)) return null;
  const line: HelpLine | undefined = cmd.help.options.find(([f]) => flagsOf(f).includes(name));
  const o: Options[string] | undefined = name === "json" ? { type: "boolean" } : cmd.options[name];
  if (!o || !line) return null;
  const takesValue = o.type === "string";
  // `--format md|html|jsonl` names its values, not a placeholder: the option names the value
  const placeholder = /<([^>]+)>/.exec(line[0])?.[1] ?? (takesValue ? name : undefined);
  return {
    name,
    ...(o.short ? { short: o.short } : {}),
    takesValue,
    ...(placeholder ? { placeholder } : {}),
    ...(cmd.values?.[name] ? { values: cmd.values[name] } : {}),
    repeatable: o.multiple === true,
    help: line[1],
    flag: line[0],
  };
}

/** One command as data. */
export async function commandSpec(e: RegistryEntry): Promise<CommandSpec> {
  const cmd = await e.load();
  const all = [...Object.keys(cmd.options), ...(cmd.json ? ["json"] : [])];
  const specs = (names: string[]) =>
    names.map((n) => optionSpec(cmd, n)).filter((o): o is OptionSpec => o !== null);
  const sc = cmd.subcommands;
  const usage = usageLines(cmd);
  return {
    name: e.name,
    summary: e.summary,
    usage,
    // a command whose verbs need one (data) takes no option without it
    options: sc
      ? (sc.fallback === undefined ? [] : specs(verbOptions(cmd, sc.fallback)))
      : specs(all),
    verbs: (sc?.names ?? []).map((v) => ({
      name: v,
      summary: sc!.summaries[v],
      usage: usage.find((l) => mentions(cmd, v, l)) ?? usage[0],
      options: specs(verbOptions(cmd, v)),
    })),
    ...(cmd.values?.[""] ? { words: cmd.values[""] } : {}),
    examples: cmd.help.examples,
  };
}

/** Every command of the registry, in its order; help's first word is any of them. */
export async function cliSpec(registry: readonly RegistryEntry[]): Promise<CommandSpec[]> {
  const spec = await Promise.all(registry.map(commandSpec));
  const help = spec.find((c) => c.name === "help");
  if (help) help.words = registry.map((e) => e.name);
  return spec;
}
