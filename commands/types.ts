/** The shape every command module exports. */
import type { ParseArgsConfig } from "node:util";
import type { Context } from "../core/context.ts";
import type { Outcome } from "../core/output.ts";

export type Options = NonNullable<ParseArgsConfig["options"]>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface Parsed {
  values: Values;
  positionals: string[];
  json: boolean;
  /** The arguments after the command name, as typed. */
  rawArgs: string[];
}

/** [the option as typed, what it does]. */
export type HelpLine = [string, string];

/** What `terminus help <command>` (and `<command> --help`) prints beside the usage line. */
export interface CommandHelp {
  /** One line for every option the command parses, --json included (tests/help_test.ts). */
  options: HelpLine[];
  /** Options the command parses that no person types (a detached worker's), kept out of help. */
  internal?: string[];
  examples: string[];
}

export interface Command {
  /** As the envelope names it. */
  name: string;
  /** One line for the usage text. */
  usage: string;
  /** Its option lines and examples; the registry line holds the one-line summary. */
  help: CommandHelp;
  /** The words its first argument may be (sessions show, data move), for typo hints. */
  subcommands?: readonly string[];
  /**
   * Takes its words as typed and no option, so the option parser is skipped (the hook's
   * start-up time); any word starting with a dash is misuse.
   */
  plainArgs?: boolean;
  /** Its words are looked up and may start with '-': misuse by one says to put `--` first. */
  wordsMayLookLikeOptions?: boolean;
  /** Run by Claude Code, not a person: never draws progress on the terminal. */
  unattended?: boolean;
  /** Its misuse prints the list of commands rather than its own usage (help). */
  misuseListsCommands?: boolean;
  options: Options;
  /** Whether positional arguments are accepted. */
  positionals: boolean;
  /** Whether --json is accepted (the spec's list). */
  json: boolean;
  /** Runs the command; throws UsageError for misuse, anything else is an operational failure. */
  run(ctx: Context, args: Parsed): Promise<Outcome>;
  /** The command's empty document, for an operational failure under --json. */
  empty(args: Parsed): unknown;
}
