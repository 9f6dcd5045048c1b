/**
 * The one subcommand parser (commands/parse.ts) reading each command's `subcommands`
 * declaration: the subcommand chosen, and every refusal in the command's own words.
 */
import assert from "node:assert/strict";
import { find } from "../../commands/mod.ts";
import { parse } from "../../commands/parse.ts";
import { UsageError } from "../../core/errors.ts";

async function sub(args: string[]): Promise<string | null> {
  const cmd = await find(args[0])!.load();
  return (await parse(cmd, args.slice(1))).subcommand;
}

async function refused(args: string[]): Promise<string> {
  try {
    await sub(args);
  } catch (e) {
    assert.ok(e instanceof UsageError, String(e));
    return e.message;
  }
  throw new Error(`${args.join(" ")} was not refused`);
}

Deno.test("subcommands: the first word names one; none is the fallback; a command without any has null", async () => {
  assert.equal(await sub(["sessions"]), "list");
  assert.equal(await sub(["sessions", "--since", "2026-11-01"]), "list");
  assert.equal(await sub(["sessions", "show", "42", "--full"]), "show");
  assert.equal(await sub(["observations"]), "list");
  assert.equal(await sub(["observations", "regenerate", "--since", "2026-11-01"]), "regenerate");
  assert.equal(await sub(["data", "move", "/x", "-y"]), "move");
  assert.equal(await sub(["status"]), null);
});

Deno.test("subcommands: each refusal as the command words it", async () => {
  assert.equal(
    await refused(["sessions", "shwo", "1"]),
    "sessions takes no argument 'shwo'; its verbs are list, show, export, restore, browse, name, tag, untag, delete, search, changes",
  );
  assert.equal(
    await refused(["sessions", "--json", "show", "1"]),
    "show must come straight after sessions, before any option",
  );
  assert.equal(
    await refused(["sessions", "tag", "1", "x", "--full"]),
    "sessions tag takes no --full",
  );
  // a verb's option with no verb is refused, naming the verbs that take it
  assert.equal(
    await refused(["sessions", "--full"]),
    "sessions takes no --full without a verb (show takes it)",
  );
  assert.equal(
    await refused(["sessions", "--dry-run"]),
    "sessions takes no --dry-run without a verb (restore, delete take it)",
  );
  assert.equal(
    await refused(["observations", "--json", "regenerate"]),
    "regenerate must come straight after observations, before any option",
  );
  assert.equal(
    await refused(["observations", "--since", "2026-11-01"]),
    "observations takes --since only after regenerate",
  );
  assert.equal(await refused(["data"]), "data: name a subcommand (move)");
  assert.equal(await refused(["data", "copy", "/x"]), "data: unknown subcommand 'copy'");
});
