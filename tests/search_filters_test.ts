/**
 * terminus search with filters and no words (issue 14, item 5): --path, --tool, --kind or
 * --prompts alone select turns, newest first. And --prompts keeps typed prompts only.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Hit, hitsOf, ingest, put, Transcript, world } from "./read_helpers.ts";

const byId = (hits: Hit[]) => hits.map((h) => h.turn_id);

Deno.test("search with --path, --tool, --kind or --prompts and no words selects by them, newest first", async (t) => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const file = join(alpha, "src/main.ts");
  const a = new Transcript({
    sessionId: "11111111-1111-4111-8111-111111111111",
    cwd: alpha,
    start: "2026-03-01T10:00:00.000Z",
  });
  const uAsk = a.user("read the entry point please");
  const uRead1 = a.toolUse("Read", { file_path: file });
  const uResult1 = a.toolResult("1\tconsole.log('hi')", {
    toolUseResult: { type: "text", file: { filePath: file, content: "console.log('hi')" } },
  });
  const uBash = a.toolUse("Bash", { command: "ls", description: "list" });
  const uBashResult = a.toolResult("src");
  const uAsk2 = a.at("2026-03-02T09:00:00.000Z").user("and once more, the entry point");
  const uRead2 = a.toolUse("Read", { file_path: file });
  const uResult2 = a.toolResult("1\tconsole.log('hi')", {
    toolUseResult: { type: "text", file: { filePath: file, content: "console.log('hi')" } },
  });
  await put(w, a);
  await ingest(w);
  const id = w.ids();
  const at = { cwd: alpha };

  await t.step("--path alone: every turn naming the path, newest first", async () => {
    const hits = hitsOf(await w.json(["search", "--path", file], at));
    assert.deepEqual(byId(hits), [uResult2, uRead2, uResult1, uRead1].map((u) => id.get(u)!));
    for (const h of hits) assert.equal(h.relevance, 0);
    // the same with a relative path, resolved against the directory it is typed in
    const rel = hitsOf(await w.json(["search", "--path", "src/main.ts"], at));
    assert.deepEqual(byId(rel), byId(hits));
  });

  await t.step("--tool alone, with --limit taking the newest", async () => {
    const hits = hitsOf(await w.json(["search", "--tool", "Read", "--limit", "1"], at));
    assert.deepEqual(byId(hits), [id.get(uRead2)]);
  });

  await t.step(
    "--kind alone; --prompts leaves out the tool results stored as user records",
    async () => {
      const users = hitsOf(await w.json(["search", "--kind", "user", "--limit", "50"], at));
      assert.deepEqual(
        byId(users),
        [uResult2, uAsk2, uBashResult, uResult1, uAsk].map((u) => id.get(u)!),
      );
      const prompts = hitsOf(await w.json(["search", "--prompts"], at));
      assert.deepEqual(byId(prompts), [uAsk2, uAsk].map((u) => id.get(u)!));
      // with words, --prompts filters the ranked hits the same way
      const worded = hitsOf(await w.json(["search", "entry", "point", "--prompts"], at));
      assert.deepEqual(byId(worded).sort(), [uAsk, uAsk2].map((u) => id.get(u)!).sort());
      assert.ok(
        !byId(hitsOf(await w.json(["search", "--prompts", "ls"], at))).includes(id.get(uBash)!),
      );
    },
  );

  await t.step("the human output of a words-free search prints the hits", async () => {
    const r = await w.run(["search", "--path", file], at);
    assert.equal(r.code, 0, r.err);
    assert.ok(r.out.includes(String(id.get(uRead2))));
    assert.match(r.err, /4 hit\(s\)/);
  });

  await t.step("nothing to look for and nothing to select by is still misuse", async () => {
    const r = await w.run(["search"], at);
    assert.equal(r.code, 2);
    assert.equal(r.out, "");
    assert.match(r.err, /--path, --tool, --kind or --prompts/);
    // words that leave nothing to search still find nothing and exit 0
    const slashes = await w.run(["search", "///", "--path", file], at);
    assert.equal(slashes.code, 0);
    assert.equal(slashes.out, "");
  });
});
