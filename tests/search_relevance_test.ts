/**
 * Search that finds the right turn: real text relevance (BM25), phrases, Claude Code's own
 * boilerplate kept out of the index, sessions found by title answered apart from turn hits,
 * session references by file name, and the hint for a query word that starts with '-'.
 * Real archives made by `terminus ingest`, searched by the CLI as a child process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Hit, hitsOf, ingest, put, Transcript, world } from "./read_helpers.ts";
import { parseQuery } from "../core/recall/query.ts";
import { withEntities } from "../core/recall/rank.ts";
import type { Candidate } from "../core/store/candidate.ts";
import { cutExcerpt } from "../core/recall/excerpt.ts";
import { DatabaseSync } from "node:sqlite";

const ALPHA_SID = "21212121-0000-4000-8000-000000000001";

Deno.test("a short reply that says the words outranks many newer long tool results that mention them once", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({ sessionId: ALPHA_SID, cwd: alpha, start: "2026-02-01T10:00:00.000Z" });
  t.user("how do we size the pool");
  const reply = t.assistant("The connection pool drains slowly: pool drains wait on idle sockets.");
  // newer, and far longer: each mentions the words once among a lot of other text
  const filler = Array.from({ length: 400 }, (_, i) => `line${i} unrelated output text`).join("\n");
  for (let i = 0; i < 30; i++) {
    t.toolUse("Bash", { command: `cat log${i}.txt` });
    t.toolResult(`${filler}\nthe pool drains here\n${filler}`);
  }
  await put(w, t);
  await ingest(w);
  const hits = hitsOf(await w.json(["search", "pool", "drains"], { cwd: alpha }));
  assert.ok(hits.length >= 2);
  assert.equal(hits[0].turn_id, w.ids().get(reply), "the reply that says it, first");
  assert.ok(hits[0].relevance > hits[1].relevance, "a text score tells them apart");
});

Deno.test("words in double quotes match the phrase; without quotes every word in any order", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({ sessionId: ALPHA_SID, cwd: alpha, start: "2026-02-01T10:00:00.000Z" });
  const said = t.assistant("The error was Context not initialized at start-up.");
  const apart = t.assistant("Not every context was initialized in time.");
  await put(w, t);
  await ingest(w);
  const ids = w.ids();
  const phrase = hitsOf(await w.json(["search", '"Context not initialized"'], { cwd: alpha }));
  assert.deepEqual(phrase.map((h) => h.turn_id), [ids.get(said)]);
  const words = hitsOf(await w.json(["search", "Context not initialized"], { cwd: alpha }));
  assert.deepEqual(words.map((h) => h.turn_id).sort(), [ids.get(said), ids.get(apart)].sort());
  // an unpaired quote is only a character
  const open = hitsOf(await w.json(["search", '"initialized context'], { cwd: alpha }));
  assert.equal(open.length, 2);
});

Deno.test("the excerpt is cut where the words stand together, not at the first of them", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({ sessionId: ALPHA_SID, cwd: alpha, start: "2026-02-01T10:00:00.000Z" });
  const far = "unrelated words ".repeat(60);
  t.assistant(`the pool is mentioned here. ${far} Later: the retry pool drains on close. ${far}`);
  await put(w, t);
  await ingest(w);
  for (const q of ["pool drains", '"pool drains"']) {
    const hits = hitsOf(await w.json(["search", q], { cwd: alpha }));
    assert.equal(hits.length, 1);
    assert.match(hits[0].excerpt, /retry pool drains on close/, q);
  }
});

Deno.test("how a query becomes FTS5: quoted words a phrase, the whole query the phrase bonus's", () => {
  const q = parseQuery('"Context not" initialized');
  assert.equal(q.match, '"context not" AND "initialized"');
  assert.deepEqual(q.phrases, [["context", "not"]]);
  assert.equal(q.phrase, null, "a quoted query asks for its phrases itself");
  const plain = parseQuery("the pool, the drain");
  assert.equal(plain.match, '"the" AND "pool" AND "drain"');
  assert.equal(plain.phrase, '"the pool the drain"', "repeats kept: the words as typed");
  assert.equal(parseQuery("pool").phrase, null);
  // a lone quote or a quoted single word is no phrase
  assert.deepEqual(parseQuery('"pool drains').phrases, []);
  assert.deepEqual(parseQuery('"pool" drains').phrases, []);
  assert.equal(parseQuery('a "" b').match, '"a" AND "b"');
});

Deno.test("a store whose index predates positions answers a phrase by its words until the next pass", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({ sessionId: ALPHA_SID, cwd: alpha, start: "2026-02-01T10:00:00.000Z" });
  const said = t.assistant("the connection pool drains slowly");
  await put(w, t);
  await ingest(w);
  const id = w.ids().get(said)!;
  // the index as schema 3 made it: no positions
  const db = new DatabaseSync(w.sb.store);
  db.exec(`DROP TABLE turns_fts;
    CREATE VIRTUAL TABLE turns_fts USING fts5(body, content='', contentless_delete=1,
      tokenize='unicode61', detail=column);
    UPDATE meta SET value = '3' WHERE key = 'derived_schema'`);
  db.prepare("INSERT INTO turns_fts(rowid, body) VALUES (?, ?)").run(
    id,
    "the connection pool drains slowly",
  );
  db.close();
  for (const q of ['"pool drains"', "pool drains"]) {
    const r = await w.run(["search", q, "--json"], { cwd: alpha });
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /predate this build/);
    const hits = hitsOf(JSON.parse(r.out));
    assert.deepEqual(hits.map((h) => h.turn_id), [id]);
  }
});

Deno.test("Claude Code's prompt_snapshot is archived and exported whole but never found", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({ sessionId: ALPHA_SID, cwd: alpha, start: "2026-02-01T10:00:00.000Z" });
  t.user("look for the flibbertigibbet handler");
  const snapshot = t.turn("attachment", {
    attachment: {
      type: "prompt_snapshot",
      systemPrompt: ["You are an agent. File has not been read yet. Use quuxwidget tools."],
    },
  });
  // Terminus's own recall as Claude Code records it, and another hook's context
  const echo = t.turn("attachment", {
    attachment: {
      type: "hook_additional_context",
      content: [
        "Terminus recall - past turns from this project that match what was just asked. <terminus-recall>the zorblax handler</terminus-recall>",
      ],
    },
  });
  const lint = t.turn("attachment", {
    attachment: { type: "hook_additional_context", content: ["the linter flagged zorblax"] },
  });
  t.toolUse("Edit", { file_path: join(alpha, "a.ts"), old_string: "x", new_string: "y" });
  t.toolResult("File has not been read yet. Read it first before writing to it.", {
    isError: true,
  });
  const path = await put(w, t);
  await ingest(w);
  const ids = w.ids();
  assert.ok(ids.has(snapshot), "the snapshot is a turn of the archive");
  // its words are in no other turn: nothing finds it
  const only = hitsOf(await w.json(["search", "quuxwidget", "--project", "*"]));
  assert.deepEqual(only, []);
  const zorblax = hitsOf(await w.json(["search", "zorblax", "--project", "*"]));
  assert.deepEqual(zorblax.map((h) => h.turn_id), [ids.get(lint)], "the echo is not found");
  assert.ok(ids.has(echo));
  // the real error is found, and the snapshot's copy of the sentence is not
  const err = hitsOf(await w.json(["search", "File has not been read yet", "--project", "*"]));
  assert.ok(err.length >= 1);
  assert.ok(err.every((h) => h.turn_id !== ids.get(snapshot)));
  assert.equal(err[0].record_type, "user");
  // exported byte for byte, the snapshot included
  const out = join(w.sb.dir, "exported");
  const r = await w.run(["export", out]);
  assert.equal(r.code, 0, r.err);
  const exported = Deno.readTextFileSync(join(out, `${ALPHA_SID}.jsonl`));
  assert.equal(exported, Deno.readTextFileSync(path));
  assert.match(exported, /quuxwidget/);
  // and show prints its record
  const shown = await w.run(["show", String(ids.get(snapshot)), "--project", "*"]);
  assert.match(shown.out, /quuxwidget/);
});

Deno.test("a session found by its title is answered apart from the turn hits", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({ sessionId: ALPHA_SID, cwd: alpha, start: "2026-02-01T10:00:00.000Z" });
  t.user("investigate the flow of requests");
  t.assistant("the request flow goes through the gateway");
  await put(w, t);
  await ingest(w);
  assert.equal(
    (await w.run(["sessions", "name", "1", "investigate zanzibar flow"], { cwd: alpha })).code,
    0,
  );
  const env = await w.json(["search", "zanzibar"], { cwd: alpha });
  const data = env.data as { hits: Hit[]; titles?: { session_no: number; title: string }[] };
  assert.deepEqual(data.hits, [], "no turn holds the word");
  assert.deepEqual(data.titles?.map((x) => [x.session_no, x.title]), [[
    1,
    "investigate zanzibar flow",
  ]]);
  // a word both in a turn and in the title: the turn is a hit, the title is a title
  const both = (await w.json(["search", "flow"], { cwd: alpha })).data as typeof data;
  assert.ok(both.hits.length >= 1);
  assert.ok(
    both.hits.every((h) =>
      !(h as unknown as { matched_on: { kind: string }[] }).matched_on.some((m) =>
        m.kind === "title"
      )
    ),
  );
  assert.equal(both.titles?.length, 1);
  const human = await w.run(["search", "zanzibar"], { cwd: alpha });
  assert.match(human.out, /^session #1 .*\n {4}title: investigate zanzibar flow$/m);
  assert.match(human.err, /0 hit\(s\), 1 session title\(s\)/);
  // each hit's line names its session's number (what `sessions show` takes)
  const flow = await w.run(["search", "gateway"], { cwd: alpha });
  assert.match(
    flow.out,
    /^\d+ {2}2026-02-01 {2}#1 {2}21212121-0000-4000-8000-000000000001\.jsonl {2}/m,
  );
  // MCP and the other tools hand over turns only: no titles key there
});

Deno.test("sessions show takes the .jsonl file name a listing prints", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({ sessionId: ALPHA_SID, cwd: alpha, start: "2026-02-01T10:00:00.000Z" });
  t.user("hello from the file name test");
  await put(w, t);
  await ingest(w);
  const byName = await w.run(["sessions", "show", `${ALPHA_SID}.jsonl`], { cwd: alpha });
  assert.equal(byName.code, 0, byName.err);
  const byNo = await w.run(["sessions", "show", "1"], { cwd: alpha });
  assert.equal(byName.out, byNo.out);
  const missing = await w.run(["sessions", "show", "21212121-0000-4000-8000-00000000ffff.jsonl"], {
    cwd: alpha,
  });
  assert.equal(missing.code, 1);
  assert.match(missing.err, /no archived session matches/);
});

Deno.test("a query word that starts with '-' is refused with the way to ask for it", async () => {
  await using w = await world();
  const r = await w.run(["search", "--jq"]);
  assert.equal(r.code, 2);
  assert.equal(r.out, "");
  assert.match(r.err, /unknown option '--jq'.*put -- before the query: terminus search -- --jq/);
  const ok = await w.run(["search", "--project", "*", "--", "--jq"]);
  assert.equal(ok.code, 0, ok.err);
});

Deno.test("each query's excerpt is centred on its own words in order, one query after another", () => {
  const pad = "filler ".repeat(80);
  const text = `${pad}alpha beta here ${pad}gamma delta there ${pad}`;
  const a = cutExcerpt(text, ["alpha", "beta"], ["alpha", "beta"]);
  const g = cutExcerpt(text, ["gamma", "delta"], ["gamma", "delta"]);
  assert.ok(a.includes("alpha beta here"), a);
  assert.ok(g.includes("gamma delta there"), g);
  assert.ok(!g.includes("alpha"), g);
  // the words in order where they stand apart first, together later
  const apart = `delta ${pad}gamma ${pad}gamma-delta ${pad}`;
  assert.ok(cutExcerpt(apart, ["gamma", "delta"], ["gamma", "delta"]).includes("gamma-delta"));
  // beyond ASCII: a letter (é) joins words, a dash or an emoji (astral) stands between them
  const gd = ["gamma", "delta"];
  const wide = `${pad}gammaédelta one ${pad}gamma — 🤖 delta two ${pad}`;
  assert.ok(cutExcerpt(wide, gd, gd).includes("gamma — 🤖 delta two"), cutExcerpt(wide, gd, gd));
  const none = `${pad}gammaédelta one ${pad}gamma𝒳delta ${pad}`;
  assert.ok(
    cutExcerpt(none, gd, gd).includes("gammaédelta one"),
    "no in-order match: the first word",
  );
});

Deno.test("an entity that many candidates share scores the same in each, and a weight of 0 still lists it", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({ sessionId: ALPHA_SID, cwd: alpha, start: "2026-02-01T10:00:00.000Z" });
  const path = join(alpha, "src/pool/drain_queue.py");
  t.user("and the other one");
  // a value all of whose words are outside ASCII
  t.toolUse("Read", { file_path: "/Ärger" });
  t.toolResult("no such file");
  for (let i = 0; i < 3; i++) {
    t.user(`look at the queue, round ${i}`);
    t.toolUse("Read", { file_path: path });
    t.toolResult(`def drain_queue():\n    pass  # round ${i}`);
  }
  await put(w, t);
  await ingest(w);
  const db = new DatabaseSync(w.sb.store, { readOnly: true });
  try {
    const rows = db.prepare(
      "SELECT DISTINCT turn_id AS id FROM entities WHERE kind = 'path' AND value = ?",
    ).all(path) as { id: number }[];
    assert.equal(rows.length, 3, "each Read stores the path");
    const cands = rows.map((r) => ({ id: r.id, relevance: 0 }) as unknown as Candidate);
    const words = [...path.split(/[^A-Za-z0-9]+/).filter(Boolean)];
    // every word of the path: the query spells it exactly
    const exact = withEntities(db, cands, parseQuery(words.join(" ")), { exact: 2, covered: 0 });
    assert.equal(new Set(exact.map((h) => h.entity_score)).size, 1, "one score for one value");
    assert.ok(exact[0].entity_score > 0);
    // one word more: the query covers the path without spelling it, worth 0 here
    const covered = withEntities(db, cands, parseQuery(`${words.join(" ")} extra`), {
      exact: 2,
      covered: 0,
    });
    for (const h of covered) {
      assert.equal(h.entity_score, 0);
      assert.deepEqual(h.matched_on, [{ kind: "path", value: path }]);
    }
    // a capital outside ASCII, which SQLite's lower() leaves as it is, still matches
    const umlaut = db.prepare(
      "SELECT turn_id AS id FROM entities WHERE kind = 'path' AND value = '/Ärger'",
    ).get() as { id: number };
    const folded = withEntities(
      db,
      [{ id: umlaut.id, relevance: 0 } as unknown as Candidate],
      parseQuery("ärger"),
    );
    assert.deepEqual(folded[0].matched_on, [{ kind: "path", value: "/Ärger" }]);
  } finally {
    db.close();
  }
});
