/**
 * The common shapes of a command line, read without `node:util`: loading it for `parseArgs`
 * costs about 7 ms of start-up, more than most reads spend on their query. Only what is plainly
 * valid is read here; anything else is left to `parseArgs`, so every refusal keeps its words.
 */
/** An option as `parseArgs` declares it (the fields read here). */
interface OptionSpec {
  type: "string" | "boolean";
  multiple?: boolean;
  short?: string;
  default?: string | boolean | string[] | boolean[];
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

export interface SimpleParse {
  values: Values;
  positionals: string[];
}

/**
 * `args` read the way `parseArgs({ args, options, strict: true, allowPositionals })` reads
 * them, or null when they hold anything but declared long options (`--name value`,
 * `--name=value`, booleans, repeats), positionals and `--`: a short option, an unknown or
 * malformed option, a value that starts with a dash, a lone `-`. The caller then asks
 * `parseArgs`, whose answer (or error) is the reference.
 */
export function parseSimple(
  args: string[],
  options: Record<string, OptionSpec>,
  allowPositionals: boolean,
): SimpleParse | null {
  // parseArgs hands back an object without a prototype
  const values = Object.create(null) as Values;
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith("-")) {
      positionals.push(a);
      continue;
    }
    if (!a.startsWith("--") || a === "--") return null;
    const eq = a.indexOf("=");
    const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
    if (!Object.hasOwn(options, name)) return null;
    const opt = options[name];
    if (opt.short !== undefined || opt.default !== undefined) return null;
    let value: string | boolean;
    if (opt.type === "boolean") {
      if (eq >= 0) return null;
      value = true;
    } else if (eq >= 0) {
      value = a.slice(eq + 1);
    } else {
      const next = args[i + 1];
      if (next === undefined || next.startsWith("-")) return null;
      value = next;
      i++;
    }
    if (opt.multiple) {
      const list = (values[name] as (string | boolean)[] | undefined) ?? [];
      list.push(value);
      values[name] = list;
    } else values[name] = value;
  }
  if (positionals.length > 0 && !allowPositionals) return null;
  return { values, positionals };
}
