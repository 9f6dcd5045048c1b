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
  /**
   * The subcommand the first word named (its `fallback` when none was), by the command's
   * `subcommands` declaration; null for a command without subcommands.
   */
  subcommand: string | null;
}

/**
 * A command's subcommands, which the one parser (commands/parse.ts) reads: the words its first
 * argument may be, what runs when none is given, the options each takes, and each refusal in
 * the command's own words. The subcommand's word stays `positionals[0]`.
 */
export interface Subcommands {
  names: readonly string[];
  /** What runs when the first word is none of `names` (sessions lists); absent: name one. */
  fallback?: string;
  /** A subcommand must be the first argument, before any option. */
  first?: boolean;
  /** The options each takes besides --json; one not listed here checks its own. */
  options?: Readonly<Record<string, readonly string[]>>;
  /** What each does, in a few words: its help's summary line, and shell completions'. */
  summaries: Readonly<Record<string, string>>;
  /** None named and no fallback. */
  missing?: string;
  /** A first word that is none of `names`; absent with a fallback: the fallback sees it. */
  unknown?: (word: string) => string;
  /** A subcommand word after an option (with `first`). */
  notFirst?: (sub: string) => string;
  /** An option its subcommand does not take. */
  option?: (sub: string, option: string) => string;
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
  /** Its subcommands (sessions show, data move): parsed by commands/parse.ts, named in typo hints. */
  subcommands?: Subcommands;
  /**
   * The values an option takes when they are a fixed few (`--format md|html|jsonl`), and under
   * `""` those of its first word (hook's events): shell completions offer them.
   */
  values?: Readonly<Record<string, readonly string[]>>;
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
