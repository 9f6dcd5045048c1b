/**
 * Turning a command's arguments into its Parsed values, by the options the command declares,
 * and running it. The dispatcher and the in-process tests share both, so they agree.
 */
import type { Command, Options, Parsed, Values } from "./types.ts";
import type { Context } from "../core/context.ts";
import { type Outcome, outcome } from "../core/output.ts";
import { errorText, UsageError } from "../core/errors.ts";

/**
 * `--limit -5` as one option and its value: parseArgs calls a value starting with a dash
 * ambiguous, which hides that the real trouble is a negative number the command refuses.
 */
function joinNegativeValues(args: string[], options: Command["options"]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") return [...out, ...args.slice(i)];
    const next = args[i + 1];
    const opt = a.startsWith("--") ? options[a.slice(2)] : undefined;
    if (opt?.type === "string" && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * The options as `node:util`'s strict parseArgs would read them, through `arg` (a few hundred
 * lines with no imports): loading node:util starts Node compatibility, about 3-5 ms of every
 * command's start that nothing else on the search path needs. The messages keep parseArgs'
 * wording, lowercased like every other message, which `parse` turns into the command's own.
 */
async function parseOptions(
  argv: string[],
  options: Options,
  allowPositionals: boolean,
): Promise<{ values: Record<string, unknown>; positionals: string[] }> {
  // CommonJS: its export is the default export, in the checkout and in the bundle alike
  const arg = (await import("arg")).default;
  const spec: Record<string, typeof String | typeof Boolean | [typeof String] | string> = {};
  for (const [name, o] of Object.entries(options)) {
    spec[`--${name}`] = o.type === "boolean" ? Boolean : o.multiple ? [String] : String;
    if (o.short) spec[`-${o.short}`] = `--${name}`;
  }
  const end = argv.indexOf("--");
  for (const a of end < 0 ? argv : argv.slice(0, end)) {
    // arg takes `--json=x` as the switch; parseArgs refuses it
    const eq = /^--([^=]+)=/.exec(a);
    if (eq && options[eq[1]]?.type === "boolean") {
      throw new Error(`option '--${eq[1]}' does not take an argument`);
    }
  }
  let r: Record<string, unknown> & { _: string[] };
  try {
    r = arg(spec, { argv, permissive: false });
  } catch (e) {
    const code = (e as { code?: string }).code;
    const name = /(-[^\s]+)$/.exec((e as Error).message.replace(/ \(alias for .*\)$/, ""))?.[1];
    if (code === "ARG_UNKNOWN_OPTION") throw new Error(`unknown option '${name}'`);
    if (code?.startsWith("ARG_MISSING_REQUIRED")) {
      throw new Error(`option '${name} <value>' argument missing`);
    }
    throw e;
  }
  if (!allowPositionals && r._.length) {
    throw new Error(
      `unexpected argument '${r._[0]}'; this command takes no positional arguments`,
    );
  }
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) {
    if (k === "_") continue;
    const key = typeof spec[k] === "string" ? (spec[k] as string) : k;
    values[key.slice(2)] = v;
  }
  return { values, positionals: r._ };
}

export async function parse(cmd: Command, args: string[]): Promise<Parsed> {
  if (cmd.plainArgs) {
    // Skips the option parser, which the hook's start-up cannot spare: no option at all.
    const option = args.find((a) => a.startsWith("-"));
    if (option) throw new UsageError(`${cmd.name}: unknown option '${option}'`);
    return { values: {}, positionals: args, json: false, rawArgs: args, subcommand: null };
  }
  const options = { ...cmd.options };
  if (cmd.json) options.json = { type: "boolean" };
  let parsed: Omit<Parsed, "subcommand">;
  try {
    const { values, positionals } = await parseOptions(
      joinNegativeValues(args, options),
      options,
      cmd.positionals,
    );
    const json = values.json === true;
    delete (values as Record<string, unknown>).json;
    parsed = { values: values as Values, positionals, json, rawArgs: args };
  } catch (e) {
    const msg = (e as Error).message.replace(/\. To specify a positional argument.*$/s, "");
    const negative = /^unknown option '(-\d[^']*)'/.exec(msg);
    if (negative) {
      throw new UsageError(
        `${cmd.name}: '${negative[1]}' is a negative number, which it does not take`,
      );
    }
    const unknown = /^unknown option '(-[^']*)'/.exec(msg);
    if (unknown && cmd.wordsMayLookLikeOptions) {
      // a query word may start with '-' (a flag being looked up): say how to ask for it
      throw new UsageError(
        `${cmd.name}: unknown option '${
          unknown[1]
        }'; to search for a word that starts with '-', put -- before the query: terminus ${cmd.name} -- ${
          unknown[1]
        }`,
      );
    }
    throw new UsageError(`${cmd.name}: ${msg}`);
  }
  return { ...parsed, subcommand: subcommandOf(cmd, parsed) };
}

/**
 * The one subcommand parser: which subcommand the first word names, by the command's
 * declaration, refusing (in the command's words) a missing or unknown one, one typed after an
 * option, and an option it does not take.
 */
function subcommandOf(cmd: Command, a: Omit<Parsed, "subcommand">): string | null {
  const sc = cmd.subcommands;
  if (!sc) return null;
  const word = a.positionals[0];
  let sub: string;
  if (word === undefined) {
    if (sc.fallback === undefined) {
      throw new UsageError(sc.missing ?? `${cmd.name}: name a subcommand`);
    }
    sub = sc.fallback;
  } else if (sc.names.includes(word)) {
    if (sc.first && a.rawArgs[0] !== word) throw new UsageError(sc.notFirst!(word));
    sub = word;
  } else if (sc.unknown) {
    throw new UsageError(sc.unknown(word));
  } else sub = sc.fallback!;
  const takes = sc.options?.[sub];
  if (takes) {
    for (const [k, v] of Object.entries(a.values)) {
      if (v !== undefined && !takes.includes(k)) throw new UsageError(sc.option!(sub, k));
    }
  }
  return sub;
}

/**
 * Runs a parsed command. Misuse (UsageError) is thrown on for the caller to answer with exit 2;
 * any other error becomes the command's failed outcome, exit 1, with its empty document.
 */
export async function runCommand(cmd: Command, ctx: Context, parsed: Parsed): Promise<Outcome> {
  try {
    return await cmd.run(ctx, parsed);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return outcome(cmd.name, cmd.empty(parsed), {
      ok: false,
      reason: errorText(e),
      exitCode: 1,
    });
  }
}
