/**
 * The simple argv reader against node's parseArgs, its reference: on every command's options
 * it accepts only what parseArgs accepts, reads it the same, and takes the common shapes itself.
 */
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { parseSimple } from "../core/argv.ts";
import { REGISTRY } from "../commands/mod.ts";

type Options = Parameters<typeof parseSimple>[1];

/** parseArgs' answer, or null when it refuses. */
function reference(args: string[], options: Options, allowPositionals: boolean) {
  try {
    const { values, positionals } = parseArgs({ args, options, strict: true, allowPositionals });
    return { values, positionals };
  } catch {
    return null;
  }
}

/** Command lines for a command with these options: long options in every spelling, misuse. */
function cases(options: Options): string[][] {
  const out: string[][] = [
    [],
    ["word"],
    ["two", "words"],
    ["--", "--json", "-x"],
    ["-"],
    ["-y"],
    ["-x", "word"],
    ["--nope"],
    ["--nope=1"],
    ["---"],
    ["--__proto__", "x"],
    ["--constructor"],
    ["--toString=x"],
  ];
  for (const [name, o] of Object.entries(options)) {
    if (o.type === "boolean") {
      out.push([`--${name}`], ["w", `--${name}`], [`--${name}`, `--${name}`], [`--${name}=1`]);
    } else {
      out.push(
        [`--${name}`, "v"],
        [`--${name}=v`, "w"],
        [`--${name}=`],
        [`--${name}`, ""],
        [`--${name}=a=b`],
        [`--${name}`],
        [`--${name}`, "-v"],
        [`--${name}`, "--"],
        [`--${name}`, "a", `--${name}`, "b"],
        ["w", `--${name}`, "v", "--", `--${name}`],
      );
    }
  }
  return out;
}

Deno.test("argv: the simple reader agrees with parseArgs on every command's options", async () => {
  let taken = 0;
  let total = 0;
  for (const entry of REGISTRY) {
    const cmd = await entry.load();
    const options: Options = { ...cmd.options };
    if (cmd.json) options.json = { type: "boolean" };
    for (const args of cases(options)) {
      total++;
      const want = reference(args, options, cmd.positionals);
      const got = parseSimple(args, options, cmd.positionals);
      const where = `${cmd.name} ${JSON.stringify(args)}`;
      if (want === null) {
        assert.equal(got, null, `${where}: parseArgs refuses it, the simple reader took it`);
        continue;
      }
      if (got === null) continue; // left to parseArgs
      taken++;
      assert.deepStrictEqual(got, want, where);
    }
  }
  // the common shapes are read without node:util, or the reader buys nothing
  assert.ok(taken > total / 3, `only ${taken} of ${total} command lines read simply`);
});

Deno.test("argv: a search line is read without parseArgs", () => {
  const options: Options = {
    project: { type: "string" },
    path: { type: "string", multiple: true },
    raw: { type: "boolean" },
    json: { type: "boolean" },
  };
  const got = parseSimple(
    ["execute_land", "--project", "*", "--path=a", "--path", "b", "--raw", "--json"],
    options,
    true,
  );
  assert.ok(got);
  assert.deepStrictEqual({ ...got.values }, {
    project: "*",
    path: ["a", "b"],
    raw: true,
    json: true,
  });
  assert.deepStrictEqual(got.positionals, ["execute_land"]);
  // a short option, and a value that starts with a dash, go to parseArgs
  assert.equal(parseSimple(["-y"], { yes: { type: "boolean", short: "y" } }, false), null);
  assert.equal(parseSimple(["--project", "-x"], options, true), null);
});
