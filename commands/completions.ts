/**
 * terminus completions bash|zsh|fish: a shell completion script written from the command
 * registry (handed in, as help's catalog is). It prints the script and changes nothing: the
 * script's first lines say which line turns it on in which startup file.
 */
import type { Command, CommandHelp } from "./types.ts";
import { outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";
import { completionScript, type Shell, SHELLS } from "../core/setup/completions.ts";
import { cliSpec, type RegistryEntry } from "./spec.ts";

const help: CommandHelp = {
  options: [],
  examples: [
    'eval "$(terminus completions bash)"   # in ~/.bashrc',
    'eval "$(terminus completions zsh)"    # in ~/.zshrc, after compinit',
    "terminus completions fish | source    # in ~/.config/fish/config.fish",
  ],
};

export function completionsCommand(registry: readonly RegistryEntry[]): Command {
  return {
    name: "completions",
    help,
    usage: "terminus completions bash|zsh|fish",
    options: {},
    values: { "": SHELLS },
    positionals: true,
    json: false,
    empty: () => null,
    async run(_ctx, a) {
      const [shell, extra] = a.positionals;
      if (shell === undefined) {
        throw new UsageError(`completions needs a shell: ${SHELLS.join(", ")}`);
      }
      if (!(SHELLS as readonly string[]).includes(shell)) {
        throw new UsageError(
          `completions: unknown shell '${shell}'; expected ${SHELLS.join(", ")}`,
        );
      }
      if (extra !== undefined) throw new UsageError("completions takes one shell");
      const script = completionScript(shell as Shell, await cliSpec(registry));
      // a script to source: its lines stay as they are on a terminal too
      return outcome("completions", null, { human: [script], wrap: false });
    },
  };
}
