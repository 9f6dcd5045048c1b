/**
 * terminus search, end to end: a real archive built by `terminus ingest` from transcripts
 * written here, searched by the CLI as a child process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseEnvelope } from "./helpers.ts";
import { hasRawControl, type Hit, hitsOf, ingest, put, Transcript, world } from "./read_helpers.ts";

const NO_WORDS = "the query has no words that can be searched";

function ids(hits: Hit[]): number[] {
  return hits.map((h) => h.turn_id).sort((a, b) => a - b);
}

function assertOrdered(hits: Hit[]): void {
  for (let i = 1; i < hits.length; i++) {
    assert.ok(
      hits[i - 1].relevance >= hits[i].relevance,
      `hit ${i} (${hits[i].relevance}) ranks above hit ${i - 1} (${hits[i - 1].relevance})`,
    );
  }
}

function assertSortedPairs(m: { kind: string; value: string }[]): void {
  const key = (x: { kind: string; value: string }) => [x.kind, x.value];
  for (let i = 1; i < m.length; i++) {
    const [a, b] = [key(m[i - 1]), key(m[i])];
    assert.ok(
      a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]),
      `matched_on out of order: ${JSON.stringify(m)}`,
    );
  }
}

Deno.test("search: what the index finds and how a query is read", async (t) => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const file = join(alpha, "src/worker/S.ts");
  const folder = join(alpha, "src/worker");
  const sid = "11111111-1111-4111-8111-111111111111";
  const a = new Transcript({ sessionId: sid, cwd: alpha, start: "2026-01-05T10:00:00.000Z" });
  const uAsk = a.user("where did SearchManager get its retry budget");
  const uRead = a.toolUse("Read", { file_path: file });
  const uReadResult = a.toolResult(
    "1\texport const retryBudget = 3;\n2\texport class SearchManager {}",
    {
      toolUseResult: {
        type: "text",
        file: { filePath: file, content: "export const retryBudget = 3;" },
      },
    },
  );
  const uGrep = a.toolUse("Grep", { pattern: "retryBudget", path: folder });
  a.toolResult("Found 1 file\nsrc/worker/S.ts");
  const uCat = a.toolUse("Bash", {
    command: "cat src/worker/S.ts",
    description: "print the worker",
  });
  a.toolResult("export const retryBudget = 3;");
  const uCargo = a.toolUse("Bash", {
    command: "cargo test -p worker",
    description: "run the worker tests",
  });
  a.toolResult("error: could not compile worker", {
    isError: true,
    toolUseResult: { stdout: "", stderr: "error: could not compile worker" },
  });
  const uMention = a.user(`please look at ${file} again`);
  const uAnswer = a.assistant("The retry budget lives in src/worker/S.ts near the top");
  const special = 'say "hi" to C:\\dir\\file then bell\u0007 and esc\u001b[31m zebra';
  const uSpecial = a.user(special);
  const uCjk = a.user("これは 東京タワー です、検索テスト。");
  // the same text four times: equal relevance, so the order is sidechain, then ts, then id
  const uTieOldA = a.at("2026-01-05T11:00:00.000Z").user("tiebreak words exactly");
  const uTieOldB = a.at("2026-01-05T11:00:00.000Z").user("tiebreak words exactly");
  const uTieNew = a.at("2026-01-05T11:30:00.000Z").user("tiebreak words exactly");
  await put(w, a);

  const side = new Transcript({
    sessionId: sid,
    cwd: alpha,
    start: "2026-01-05T10:05:00.000Z",
    sidechain: true,
  });
  const uSide = side.user("the sidekick found every retryBudget caller");
  const uTieSide = side.at("2026-01-05T12:00:00.000Z").user("tiebreak words exactly");
  await put(w, side, `${sid}/subagents/agent-a1b2c3.jsonl`);

  const bulk = new Transcript({
    sessionId: "22222222-2222-4222-8222-222222222222",
    cwd: alpha,
    start: "2026-01-06T10:00:00.000Z",
  });
  for (let i = 0; i < 60; i++) bulk.user(`bulkword number ${i}`);
  await put(w, bulk);
  await ingest(w);
  const id = w.ids();
  const at = { cwd: alpha };

  await t.step("manager finds a turn that said SearchManager", async () => {
    const hits = hitsOf(await w.json(["search", "manager"], at));
    assert.ok(hits.some((h) => h.turn_id === id.get(uAsk)), JSON.stringify(hits));
    for (const h of hits) assert.equal(h.project, alpha);
  });

  await t.step("worker finds src/worker/S.ts", async () => {
    const hits = hitsOf(await w.json(["search", "worker"], at));
    assert.ok(hits.some((h) => h.turn_id === id.get(uAnswer)));
    assert.ok(hits.some((h) => h.turn_id === id.get(uRead)));
  });

  await t.step("--path matches the structured field exactly", async () => {
    const all = hitsOf(await w.json(["search", "worker", "--limit", "50"], at));
    assert.ok(all.some((h) => h.turn_id === id.get(uMention)), "the text mention is a plain hit");

    const exact = hitsOf(await w.json(["search", "worker", "--path", file], at));
    assert.deepEqual(ids(exact), [id.get(uRead)!, id.get(uReadResult)!].sort((x, y) => x - y));

    const parent = hitsOf(await w.json(["search", "worker", "--path", folder], at));
    assert.deepEqual(ids(parent), [id.get(uGrep)!], "only the Grep named the folder itself");

    const rel = hitsOf(await w.json(["search", "worker", "--path", "src/worker/S.ts"], at));
    assert.ok(rel.some((h) => h.turn_id === id.get(uCat)), "a relative path names the Bash word");
    assert.ok(rel.some((h) => h.turn_id === id.get(uRead)), "and resolves against the cwd");
    assert.ok(!rel.some((h) => h.turn_id === id.get(uMention)));

    const both = hitsOf(await w.json(["search", "worker", "--path", file, "--path", folder], at));
    assert.deepEqual(
      ids(both),
      [id.get(uRead)!, id.get(uReadResult)!, id.get(uGrep)!].sort((x, y) => x - y),
      "a repeated --path matches any of them",
    );
  });

  await t.step("matched_on names the structured matches, sorted", async () => {
    const byPath = hitsOf(await w.json(["search", file, "--path", file], at));
    assert.ok(byPath.length > 0);
    for (const h of byPath) {
      assert.ok(h.matched_on.length > 0, `empty matched_on on a path match: ${JSON.stringify(h)}`);
      assert.ok(h.matched_on.some((m) => m.kind === "path" && m.value === file));
      assert.ok(h.entity_score > 0);
      assertSortedPairs(h.matched_on);
    }
    const cat = hitsOf(await w.json(["search", "cat", "src/worker/S.ts"], at));
    const catHit = cat.find((h) => h.turn_id === id.get(uCat));
    assert.ok(catHit);
    assert.deepEqual(catHit.matched_on, [
      { kind: "command", value: "cat" },
      { kind: "path", value: "src/worker/S.ts" },
    ]);
    const grep = hitsOf(await w.json(["search", "Grep", "retryBudget"], at));
    const grepHit = grep.find((h) => h.turn_id === id.get(uGrep));
    assert.ok(grepHit);
    assert.deepEqual(grepHit.matched_on, [
      { kind: "symbol", value: "retryBudget" },
      { kind: "tool", value: "Grep" },
    ]);
    assert.equal(grep[0].turn_id, id.get(uGrep), "the structural match ranks first");
    const prose = hitsOf(await w.json(["search", "zebra"], at));
    assert.equal(prose.length, 1);
    assert.deepEqual(prose[0].matched_on, []);
    assert.equal(prose[0].entity_score, 0);
  });

  await t.step("hits come ordered by relevance, highest first", async () => {
    for (const q of [["retry"], ["worker"], ["retryBudget"], ["bulkword"]]) {
      const hits = hitsOf(await w.json(["search", ...q, "--limit", "50"], at));
      assert.ok(hits.length > 1, `${q}: want several hits`);
      assertOrdered(hits);
    }
  });

  await t.step("equal relevance: main before subagent, newer first, then lower id", async () => {
    const hits = hitsOf(await w.json(["search", "tiebreak"], at));
    assert.equal(new Set(hits.map((h) => h.relevance)).size, 1, "identical text ranks alike");
    assert.deepEqual(
      hits.map((h) => h.turn_id),
      [uTieNew, uTieOldA, uTieOldB, uTieSide].map((u) => id.get(u)!),
    );
    assert.ok(id.get(uTieOldA)! < id.get(uTieOldB)!);
  });

  await t.step("a query of 33 distinct terms is cut to 32 and says so", async () => {
    const words = Array.from({ length: 33 }, (_, i) => `w${i}`);
    const r = await w.run(["search", ...words, "--json"], at);
    assert.equal(r.code, 0, r.err);
    const env = parseEnvelope(r.out);
    assert.equal((env.data as { truncated: boolean }).truncated, true);
    assert.equal((env.data as { query: string }).query, words.join(" "));
    assert.match(r.err, /32/);
    const human = await w.run(["search", ...words], at);
    assert.equal(human.code, 0);
    assert.match(human.err, /only the first 32/);

    const r32 = await w.run(["search", ...words.slice(0, 32), "--json"], at);
    assert.equal((parseEnvelope(r32.out).data as { truncated: boolean }).truncated, false);
    assert.doesNotMatch(r32.err, /32/);
    // repeats count once, and a word the index makes no token from takes no place
    const rep = await w.run(
      ["search", ...words.slice(0, 32), "W0", "ⓐⓑⓒ", "\u0301", "--json"],
      at,
    );
    assert.equal((parseEnvelope(rep.out).data as { truncated: boolean }).truncated, false);
  });

  await t.step("FTS5 syntax in a query is searched, not an error", async () => {
    for (
      const q of [['"x'], ["foo", "AND", "(bar"], ["src/worker/S.ts"], ["NEAR(a", "b)"], ["*"]]
    ) {
      const r = await w.run(["search", ...q, "--json"], at);
      assert.equal(r.code, 0, `${q.join(" ")}: ${r.err}`);
      const env = parseEnvelope(r.out);
      assert.equal(env.ok, true);
      assert.equal((env.data as { query: string }).query, q.join(" "));
    }
    const path = hitsOf(await w.json(["search", "src/worker/S.ts"], at));
    assert.ok(path.some((h) => h.turn_id === id.get(uAnswer)));
  });

  await t.step("a query with nothing to search finds nothing, says so, exits 0", async () => {
    for (const q of ["///", "ⓐⓑⓒ", "\u0301", "\u0301\u0302 //"]) {
      const r = await w.run(["search", q, "--json"], at);
      assert.equal(r.code, 0);
      const env = parseEnvelope(r.out);
      assert.equal(env.ok, true);
      assert.deepEqual((env.data as { hits: unknown[] }).hits, []);
      assert.equal(env.reason, NO_WORDS);
      const h = await w.run(["search", q], at);
      assert.equal(h.code, 0);
      assert.equal(h.out, "");
      assert.match(h.err, new RegExp(NO_WORDS));
    }
  });

  await t.step("a word the index makes no token from is dropped, not matched", async () => {
    const plain = hitsOf(await w.json(["search", "retry"], at));
    assert.ok(plain.length > 0);
    for (const extra of ["ⓐⓑⓒ", "\u0301", "\u20dd"]) {
      const hits = hitsOf(await w.json(["search", "retry", extra], at));
      assert.deepEqual(ids(hits), ids(plain), JSON.stringify(extra));
    }
  });

  await t.step("excerpts carry quotes, backslashes and control bytes", async () => {
    const r = await w.run(["search", "zebra", "--json"], at);
    const hits = hitsOf(parseEnvelope(r.out));
    assert.equal(hits.length, 1);
    assert.equal(hits[0].turn_id, id.get(uSpecial));
    assert.equal(hits[0].excerpt, special);

    const human = await w.run(["search", "zebra"], at);
    assert.equal(human.code, 0);
    assert.ok(
      !hasRawControl(human.out),
      "a raw control byte reached the terminal",
    );
    assert.ok(
      human.out.includes('say "hi" to C:\\dir\\file then bell\\u0007 and esc\\u001b[31m zebra'),
      human.out,
    );
  });

  await t.step("CJK text is found by its words", async () => {
    for (const q of ["東京タワー", "検索テスト", "これは"]) {
      const hits = hitsOf(await w.json(["search", q], at));
      assert.deepEqual(ids(hits), [id.get(uCjk)!], q);
    }
    const hits = hitsOf(await w.json(["search", "検索テスト", "東京タワー"], at));
    assert.equal(hits[0].excerpt, "これは 東京タワー です、検索テスト。");
  });

  await t.step("--limit: default 10, above 50 is 50, 0 is misuse", async () => {
    assert.equal(hitsOf(await w.json(["search", "bulkword"], at)).length, 10);
    assert.equal(hitsOf(await w.json(["search", "bulkword", "--limit", "3"], at)).length, 3);
    assert.equal(hitsOf(await w.json(["search", "bulkword", "--limit", "80"], at)).length, 50);
    for (const extra of [[], ["--json"]]) {
      const r = await w.run(["search", "bulkword", "--limit", "0", ...extra], at);
      assert.equal(r.code, 2);
      assert.equal(r.stdout.length, 0);
      assert.match(r.err, /--limit/);
    }
    const bad = await w.run(["search", "bulkword", "--limit", "ten"], at);
    assert.equal(bad.code, 2);
    assert.equal(bad.stdout.length, 0);
  });

  await t.step("--kind and --tool filter", async () => {
    const users = hitsOf(await w.json(["search", "retry", "--kind", "user"], at));
    assert.ok(users.length > 0);
    assert.ok(users.every((h) => h.record_type === "user"));
    assert.ok(users.some((h) => h.turn_id === id.get(uAsk)));
    const asst = hitsOf(await w.json(["search", "retry", "--kind", "assistant"], at));
    assert.ok(asst.length > 0);
    assert.ok(asst.every((h) => h.record_type === "assistant"));
    assert.ok(asst.some((h) => h.turn_id === id.get(uAnswer)));

    const bogus = await w.run(["search", "retry", "--kind", "bogus", "--json"], at);
    assert.equal(bogus.code, 0);
    assert.deepEqual(hitsOf(parseEnvelope(bogus.out)), []);

    const bash = hitsOf(await w.json(["search", "worker", "--tool", "Bash"], at));
    assert.deepEqual(ids(bash), [id.get(uCat)!, id.get(uCargo)!].sort((x, y) => x - y));
    const read = hitsOf(await w.json(["search", "worker", "--tool", "Read"], at));
    assert.deepEqual(ids(read), [id.get(uRead)!]);
  });

  await t.step("a subagent's hit is marked, and the count goes to stderr", async () => {
    const env = await w.json(["search", "sidekick"], at);
    const hits = hitsOf(env);
    assert.equal(hits.length, 1);
    assert.equal(hits[0].turn_id, id.get(uSide));
    assert.equal(hits[0].sidechain, true);
    assert.equal(hits[0].session_key, `${sid}/subagents/agent-a1b2c3.jsonl`);

    const r = await w.run(["search", "sidekick"], at);
    assert.equal(r.code, 0);
    const lines = r.out.split("\n");
    assert.equal(
      lines[0],
      `${id.get(uSide)}  2026-01-05  #${
        (hits[0] as unknown as { session_no: number }).session_no
      }  agent-a1b2c3.jsonl  ${alpha}  (subagent)`,
    );
    assert.equal(lines[1], "    the sidekick found every retryBudget caller");
    assert.match(r.err, /^1 hit\(s\)$/m);

    const main = await w.run(["search", "retryBudget"], at);
    const heads = main.out.split("\n").filter((l) => /^\d+ {2}/.test(l));
    const sideHeads = heads.filter((l) => l.endsWith("  (subagent)"));
    assert.equal(sideHeads.length, 1, main.out);
    assert.ok(sideHeads[0].startsWith(`${id.get(uSide)}  `));
    assert.match(main.err, new RegExp(`^${heads.length} hit\\(s\\)$`, "m"));
    const json = hitsOf(await w.json(["search", "retryBudget"], at));
    assert.equal(json.length, heads.length);
  });

  await t.step("no hits: exit 0, 0 hit(s)", async () => {
    const r = await w.run(["search", "nothingmatchesthis"], at);
    assert.equal(r.code, 0);
    assert.equal(r.out, "");
    assert.match(r.err, /^0 hit\(s\)$/m);
  });

  await t.step("--json writes one document and nothing on stderr when clean", async () => {
    const r = await w.run(["search", "retry", "budget", "--json"], at);
    assert.equal(r.code, 0);
    assert.equal(r.err, "");
    const env = parseEnvelope(r.out);
    assert.equal(env.command, "search");
    assert.deepEqual(Object.keys(env.data).sort(), ["hits", "query", "truncated"]);
    assert.equal((env.data as { query: string }).query, "retry budget");
    for (const h of hitsOf(env)) {
      assert.deepEqual(Object.keys(h).sort(), [
        "entity_score",
        "excerpt",
        "match",
        "matched_on",
        "project",
        "record_type",
        "relevance",
        "session_key",
        "session_no",
        "sidechain",
        "title",
        "ts",
        "turn_id",
      ]);
    }
  });
});
