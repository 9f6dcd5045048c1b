/**
 * One verb of `terminus sessions`: what it is called, what it does in a few words, the options
 * it takes, its empty document, and how it runs. commands/sessions/mod.ts folds the verbs into
 * the command's `subcommands` declaration, so the one parser (commands/parse.ts) checks them.
 */
import type { Parsed } from "../types.ts";
import type { Context } from "../../core/context.ts";
import type { Outcome } from "../../core/output.ts";
import { UsageError } from "../../core/errors.ts";

export interface Verb {
  name: string;
  /** Its help's summary line, and shell completions'. */
  summary: string;
  /** The options it takes besides --json, which the registry adds. */
  options: readonly string[];
  /** Its document when it fails (exit 1), as every command has one. */
  empty(a: Parsed): unknown;
  run(ctx: Context, a: Parsed): Promise<Outcome>;
}

/** The command as the envelope names it: `sessions`, or `sessions show`. */
export function label(verb: string): string {
  return verb === "list" ? "sessions" : `sessions ${verb}`;
}

/** The one positional after the verb that names the session. */
export function refArg(a: Parsed, verb: string): string {
  const ref = a.positionals[1];
  if (ref === undefined) {
    throw new UsageError(`sessions ${verb} needs a session (42, #42, a UUID or a path)`);
  }
  return ref;
}
