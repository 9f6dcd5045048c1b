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

export interface Command {
  /** As the envelope names it. */
  name: string;
  /** One line for the usage text. */
  usage: string;
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
