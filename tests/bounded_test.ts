/**
 * Inputs no transcript or slip of the keyboard should be able to break: numbers past what a
 * double names exactly, and an empty path.
 */
import assert from "node:assert/strict";
import { cliOk, sandbox } from "./helpers.ts";

const HUGE = "99999999999999999999999";

Deno.test("every numeric option refuses a number past 2^53, exits 2 and names the flag", async () => {
  await using sb = await sandbox();
  const cases: string[][] = [
    ["search", "hello", "--limit", HUGE],
    ["sessions", "--limit", HUGE],
    ["show", "1", "--before", HUGE],
    ["show", "1", "--after", HUGE],
    ...["ranked", "compacted-ranked", "entity-rank", "co-occurring", "max-turns", "max-candidates"]
      .map((f) => ["replay", `--${f}`, HUGE]),
  ];
  for (const args of cases) {
    const r = await cliOk(sb, args, { code: 2 });
    const flag = args[args.length - 2];
    assert.match(r.err, new RegExp(`${flag} takes a whole number up to 9007199254740991`), r.err);
    assert.equal(r.out, "", args.join(" "));
  }
  // the largest safe number itself is a number like any other
  await cliOk(sb, ["search", "hello", "--limit", String(Number.MAX_SAFE_INTEGER)]);
});

Deno.test("export with an empty destination is misuse: exit 2, nothing written", async () => {
  await using sb = await sandbox();
  const before = [...Deno.readDirSync(sb.dir)].map((e) => e.name).sort();
  const r = await cliOk(sb, ["export", ""], { code: 2 });
  assert.match(r.err, /export: the destination <dir> is empty/);
  assert.deepEqual([...Deno.readDirSync(sb.dir)].map((e) => e.name).sort(), before);
});
