/**
 * Inputs no transcript or slip of the keyboard should be able to break: numbers past what a
 * double names exactly, and an empty path.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliOk, exists, query, sandbox, writeTranscript } from "./helpers.ts";

const HUGE = "99999999999999999999999";
const UUID = "b0b0b0b0-0000-4000-8000-000000000001";

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

Deno.test("ingest <path> refuses a file that is not a transcript under a root: exit 1, one clear line, nothing archived", async () => {
  await using sb = await sandbox();
  const stray = join(sb.dir, "garbage.jsonl");
  await Deno.writeTextFile(stray, '{"type":"user","cwd":null}\n');
  // shaped like a transcript, but under no configured root
  const elsewhere = join(sb.dir, "other", "projects", "-x", `${UUID}.jsonl`);
  await Deno.mkdir(join(elsewhere, ".."), { recursive: true });
  await Deno.writeTextFile(elsewhere, '{"type":"user"}\n');
  for (
    const [path, why] of [[stray, /is not a transcript: ingest takes/], [
      elsewhere,
      /is not under a configured root/,
    ], ["/etc/passwd", /is not a transcript/]] as const
  ) {
    const r = await cliOk(sb, ["ingest", path], { code: 1 });
    assert.match(r.err, why, r.err);
    assert.match(r.err, new RegExp(path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")));
    assert.equal(r.out, "");
  }
  assert.equal(await exists(sb.store), false, "a refused file must not make a store");
  // a real transcript under the root is still archived alone
  const good = await writeTranscript(
    sb.claude,
    "/nonexistent/bounded",
    `${UUID}.jsonl`,
    JSON.stringify({
      type: "user",
      uuid: UUID,
      sessionId: UUID,
      cwd: "/nonexistent/bounded",
      timestamp: "2026-05-01T10:00:00Z",
      message: { role: "user", content: "hi" },
    }) + "\n",
  );
  await cliOk(sb, ["ingest", good]);
  assert.equal(query<{ n: number }>(sb.store, "SELECT count(*) AS n FROM sessions")[0].n, 1);
});
