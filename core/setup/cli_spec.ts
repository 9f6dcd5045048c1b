/**
 * The command line as data: every command, its verbs, their options and the values an option
 * takes, built from the command registry (commands/spec.ts). Shell completions
 * (core/setup/completions.ts) and the man page (core/setup/manpage.ts) are both written from
 * it, so neither can name a command or option the program does not have.
 */

export interface OptionSpec {
  /** Without the dashes: `project`. */
  name: string;
  /** A one-letter form (`y` for `--yes`), if any. */
  short?: string;
  /** Whether a value follows it (`--limit <n>`). */
  takesValue: boolean;
  /** The value as help names it: `path`, `dir`, `n`, `time`. */
  placeholder?: string;
  /** The fixed values it takes (`--format md|html|jsonl`). */
  values?: readonly string[];
  /** May be given more than once. */
  repeatable: boolean;
  /** Its help line's text. */
  help: string;
  /** As help shows it: `--limit <n>`, `-y, --yes`. */
  flag: string;
}

export interface VerbSpec {
  name: string;
  summary: string;
  usage: string;
  options: OptionSpec[];
}

export interface CommandSpec {
  name: string;
  summary: string;
  /** One line per form. */
  usage: string[];
  /** The options taken without a verb (every option, for a command with no verbs). */
  options: OptionSpec[];
  verbs: VerbSpec[];
  /** The fixed words its first argument may be (hook's events), if any. */
  words?: readonly string[];
  examples: string[];
}
