/**
 * terminus help <command>, and misuse of a command printing that command's usage: each
 * command's declared help lines are held to the options it parses.
 */
import assert from "node:assert/strict";
import { runCli, sandbox } from "./helpers.ts";
import { REGISTRY } from "../commands/mod.ts";
import { flagsOf } from "../commands/help.ts";

Deno.test("each command's help has a line for every option it parses, and nothing else", async () => {
  for (const e of REGISTRY) {
    const cmd = await e.load();
    const parsed = new Set<string>();
    for (const [name, o] of Object.entries(cmd.options)) {
      parsed.add(name);
      if (o.short) parsed.add(o.short);
    }
    if (cmd.json) parsed.add("json");
    const documented = new Set([
      ...cmd.help.options.flatMap(([f]) => flagsOf(f)),
      ...(cmd.help.internal ?? []),
    ]);
    assert.deepEqual([...documented].sort(), [...parsed].sort(), `${e.name}'s help lines`);
    assert.ok(cmd.help.examples.length >= 1, `${e.name} has an example`);
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
    for (const [flag] of cmd.help.options) {
      assert.match(r.out, new RegExp(`^  ${flag.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}  `, "m"));
    }
    for (const ex of cmd.help.examples) assert.ok(r.out.includes(`  ${ex}\n`), ex);
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

Deno.test("--help and -h on every command and verb: its help on stdout, exit 0, nothing on stderr", async () => {
  await using sb = await sandbox();
  for (const e of REGISTRY) {
    const cmd = await e.load();
    const forms: [string[], string][] = [
      [[e.name, "--help"], e.summary],
      [[e.name, "-h"], e.summary],
      ...(cmd.subcommands?.names ?? []).flatMap((v): [string[], string][] => [
        [[e.name, v, "--help"], `${e.name} ${v}: ${cmd.subcommands!.summaries[v]}`],
        [[e.name, v, "-h"], `${e.name} ${v}: ${cmd.subcommands!.summaries[v]}`],
      ]),
    ];
    for (const [args, summary] of forms) {
      const r = await runCli(sb, args);
      assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
      assert.equal(r.err, "", args.join(" "));
      assert.match(r.out, /^usage: terminus /, args.join(" "));
      assert.ok(r.out.includes(`\n${summary}\n`), `${args.join(" ")}: ${r.out}`);
    }
  }
  // after other words and options too, as gh and rg take it
  const late = await runCli(sb, ["search", "retry", "--limit", "3", "-h"]);
  assert.equal(late.code, 0);
  assert.match(late.out, /^usage: terminus search /);
  // a verb's help has only that verb's usage line and options
  const show = await runCli(sb, ["sessions", "show", "--help"]);
  assert.match(show.out, /^usage: terminus sessions show <session>/);
  assert.doesNotMatch(show.out, /--transcript|sessions delete/);
  assert.equal((await runCli(sb, ["help", "sessions", "show"])).out, show.out);
  assert.equal(
    (await runCli(sb, ["--help", "sessions"])).out,
    (await runCli(sb, ["sessions", "-h"])).out,
  );
  // after --, --help is a word like any other
  const words = await runCli(sb, ["search", "--", "--help"]);
  assert.doesNotMatch(words.out + words.err, /^usage:/m);
});

Deno.test("misuse messages are lowercase, as every other message is", async () => {
  await using sb = await sandbox();
  for (
    const [args, message] of [
      [["sessions", "-q"], "terminus: sessions: unknown option '-q'"],
      [["status", "--bogus"], "terminus: status: unknown option '--bogus'"],
      [["status", "extra"], "terminus: status: unexpected argument 'extra'"],
      [["search", "x", "--limit"], "terminus: search: option '--limit <value>' argument missing"],
      [["status", "--json=1"], "terminus: status: option '--json' does not take an argument"],
    ] as const
  ) {
    const r = await runCli(sb, [...args]);
    assert.equal(r.code, 2, args.join(" "));
    assert.ok(r.err.startsWith(message), r.err);
  }
});

Deno.test("a slip of a command or subcommand name says which was meant and gives one usage line", async () => {
  await using sb = await sandbox();
  const r = await runCli(sb, ["serch", "retry"]);
  assert.equal(r.code, 2);
  assert.equal(r.out, "");
  const search = await REGISTRY.find((e) => e.name === "search")!.load();
  assert.equal(
    r.err,
    `terminus: unknown command 'serch'; did you mean 'search'?\n\nusage: ${search.usage}\n` +
      "terminus help search lists every option, with examples.\n",
  );
  for (const [typo, meant] of [["stauts", "status"], ["verfy", "verify"], ["sess", "sessions"]]) {
    const t = await runCli(sb, [typo]);
    assert.equal(t.code, 2);
    assert.match(
      t.err,
      new RegExp(`^terminus: unknown command '${typo}'; did you mean '${meant}'\\?\n`),
    );
  }
  const sub = await runCli(sb, ["sessions", "shwo", "1"]);
  assert.equal(sub.code, 2);
  assert.match(sub.err, /^terminus: sessions takes no argument 'shwo'.*; did you mean 'show'\?\n/);
  const data = await runCli(sb, ["data", "mvoe", "/tmp/x"]);
  assert.equal(data.code, 2);
  assert.match(data.err, /; did you mean 'move'\?\n/);
});
