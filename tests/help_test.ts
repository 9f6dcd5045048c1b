/**
 * terminus help <command>, and misuse of a command printing that command's usage: the one
 * table of option lines is held to each command's parsed options.
 */
import assert from "node:assert/strict";
import { runCli, sandbox } from "./helpers.ts";
import { REGISTRY } from "../commands/mod.ts";
import { HELP } from "../commands/help.ts";

/** The option words a help line names: "-y, --yes" -> ["y", "yes"], "--path <p>" -> ["path"]. */
function flagsOf(line: string): string[] {
  return [...line.matchAll(/(?:^|[ ,])--?([a-z][a-z-]*)/g)].map((m) => m[1]);
}

Deno.test("the help table has a line for every option each command parses, and nothing else", async () => {
  assert.deepEqual(Object.keys(HELP).sort(), REGISTRY.map((e) => e.name).sort());
  for (const e of REGISTRY) {
    const cmd = await e.load();
    const parsed = new Set<string>();
    for (const [name, o] of Object.entries(cmd.options)) {
      parsed.add(name);
      if (o.short) parsed.add(o.short);
    }
    if (cmd.json) parsed.add("json");
    const documented = new Set([
      ...HELP[e.name].options.flatMap(([f]) => flagsOf(f)),
      ...(HELP[e.name].internal ?? []),
    ]);
    assert.deepEqual([...documented].sort(), [...parsed].sort(), `${e.name}'s help lines`);
    assert.ok(HELP[e.name].examples.length >= 1, `${e.name} has an example`);
  }
});

Deno.test("terminus help <command> prints its usage, every option and examples on stdout, exit 0", async () => {
  await using sb = await sandbox();
  for (const e of REGISTRY) {
    const cmd = await e.load();
    const r = await runCli(sb, ["help", e.name]);
    assert.equal(r.code, 0, `help ${e.name}: ${r.err}`);
    assert.equal(r.err, "");
    assert.ok(r.out.startsWith(`usage: ${cmd.usage}\n`), r.out);
    assert.ok(r.out.includes(e.summary));
    for (const [flag] of HELP[e.name].options) {
      assert.match(r.out, new RegExp(`^  ${flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}  `, "m"));
    }
    for (const ex of HELP[e.name].examples) assert.ok(r.out.includes(`  ${ex}\n`), ex);
  }
  // with no command: the usage text, as terminus --help prints it
  const bare = await runCli(sb, ["help"]);
  const top = await runCli(sb, ["--help"]);
  assert.equal(bare.code, 0);
  assert.equal(bare.out, top.out);
});

Deno.test("misusing a command prints one error line, then that command's usage, not every command; exit 2", async () => {
  await using sb = await sandbox();
  for (
    const [args, usage] of [
      [["search", "--help"], "usage: terminus search [<words>...]"],
      [["show"], "usage: terminus show <id>"],
      [["status", "--bogus"], "usage: terminus status [--json]"],
      [["install", "--json"], "usage: terminus install"],
    ] as const
  ) {
    const r = await runCli(sb, [...args]);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.out, "");
    const lines = r.err.split("\n");
    assert.match(lines[0], /^terminus: /);
    assert.equal(lines[1], "");
    assert.ok(lines[2].startsWith(usage), r.err);
    assert.equal(lines[3], `terminus help ${args[0]} lists every option, with examples.`);
    assert.doesNotMatch(r.err, /^ {2}backfill /m, "not the whole command list");
  }
  // an unknown command (or one asked help for) still gets the list of commands
  for (const args of [["nope"], ["help", "nope"]]) {
    const r = await runCli(sb, args);
    assert.equal(r.code, 2);
    assert.match(r.err, /^terminus: unknown command 'nope'\n/);
    assert.match(r.err, /^ {2}backfill /m);
  }
});
