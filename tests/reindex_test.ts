/** terminus reindex: the derived tables rebuilt from the archived blocks, same turn ids. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseEnvelope, query } from "./helpers.ts";
import { type Hit, hitsOf, holdLock, ingest, put, Transcript, world } from "./read_helpers.ts";

const TURN_COLUMNS =
  "id, session_no, turn_seq, uuid, parent_uuid, record_type, tool_name, ts, stream_offset, byte_len";

Deno.test("reindex: same turn ids, same answers, and the lock", async (t) => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const file = join(alpha, "src/worker/S.ts");
  const sid = "12121212-0000-4000-8000-000000000001";
  const a = new Transcript({ sessionId: sid, cwd: alpha, start: "2026-01-01T10:00:00.000Z" });
  a.user("where did SearchManager get its retry budget");
  a.toolUse("Read", { file_path: file });
  a.toolResult("export const retryBudget = 3;", {
    toolUseResult: { type: "text", file: { filePath: file, content: "x" } },
  });
  a.state({ type: "progress", data: { note: "not a turn" } });
  a.toolUse("Bash", { command: "cargo test -p worker" });
  a.toolResult("error: could not compile worker", { isError: true });
  a.turn("system", { subtype: "compact_boundary", content: "compacted" });
  a.assistant("The retry budget lives in src/worker/S.ts");
  await put(w, a);
  const side = new Transcript({
    sessionId: sid,
    cwd: alpha,
    start: "2026-01-01T10:30:00.000Z",
    sidechain: true,
  });
  side.user("sidekick retryBudget");
  side.toolUse("Grep", { pattern: "retryBudget" });
  await put(w, side, `${sid}/subagents/agent-r1.jsonl`);
  const b = new Transcript({
    sessionId: "12121212-0000-4000-8000-000000000002",
    cwd: alpha,
    start: new Date().toISOString(),
  });
  for (let i = 0; i < 30; i++) b.user(`open session turn ${i} retry`);
  await put(w, b);
  await ingest(w);
  const at = { cwd: alpha };
  const store = w.sb.store;

  const queries = [["retry"], ["manager"], ["worker", "--path", file], ["compile"], ["sidekick"]];
  // With no evicted session the index is refilled whole, so even BM25's numbers come back
  // the same: every hit, in order, with its relevance
  const answers = async () => {
    const out: Hit[][] = [];
    for (const q of queries) out.push(hitsOf(await w.json(["search", ...q, "--limit", "50"], at)));
    return out;
  };
  const snapshot = () => ({
    turns: query(store, `SELECT ${TURN_COLUMNS} FROM turns ORDER BY id`),
    entities: query(
      store,
      "SELECT turn_id, kind, value FROM entities ORDER BY turn_id, kind, value",
    ),
    paths: query(store, "SELECT turn_id, path FROM paths ORDER BY turn_id, path"),
    observations: query(store, "SELECT session_no, generated_at, mechanical FROM observations"),
    sessions: query(store, "SELECT * FROM session_meta ORDER BY session_no"),
  });
  const before = snapshot();
  const beforeAnswers = await answers();
  const sessionsBefore = (await w.json(["sessions", "--project", "*"], at)).data;
  assert.equal(before.turns.length, a.turns.length + side.turns.length + b.turns.length);
  assert.ok(before.observations.length >= 1, "the closed sessions were observed");
  assert.ok(beforeAnswers.every((h) => h.length > 0));

  await t.step("human mode writes nothing to stdout; ids and answers are unchanged", async () => {
    // take the index apart first, so the rebuild has something to do
    const db = new DatabaseSync(store);
    try {
      db.exec("DELETE FROM entities; DELETE FROM paths;");
      for (const r of before.turns) {
        db.prepare("DELETE FROM turns_fts WHERE rowid = ?").run(r.id as number);
      }
    } finally {
      db.close();
    }
    assert.deepEqual(hitsOf(await w.json(["search", "retry"], at)), []);

    const r = await w.run(["reindex"], at);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.stdout.length, 0);
    assert.match(r.err, /3 session\(s\)/);
    const after = snapshot();
    assert.deepEqual(after, before);
    assert.deepEqual(await answers(), beforeAnswers);
    assert.deepEqual((await w.json(["sessions", "--project", "*"], at)).data, sessionsBefore);
  });

  await t.step("--json: the counts", async () => {
    const env = await w.json(["reindex"], at);
    assert.equal(env.command, "reindex");
    assert.equal(env.ok, true);
    assert.deepEqual(env.data, {
      preserved: 0,
      sessions: 3,
      skipped: [],
      turns: before.turns.length,
    });
    assert.deepEqual(snapshot(), before);
  });

  await t.step("a held lock: ok false, the lock named, exit 1, nothing rebuilt", async () => {
    const lock = await holdLock(w.sb.data);
    try {
      const db = new DatabaseSync(store);
      try {
        db.exec("DELETE FROM paths");
      } finally {
        db.close();
      }
      const r = await w.run(["reindex", "--json"], at);
      assert.equal(r.code, 1);
      const env = parseEnvelope(r.out);
      assert.equal(env.ok, false);
      assert.match(env.reason!, /lock/);
      assert.ok(env.reason!.includes(join(w.sb.data, "LOCK")), env.reason!);
      assert.deepEqual(env.data, { preserved: 0, sessions: 0, skipped: [], turns: 0 });
      const h = await w.run(["reindex"], at);
      assert.equal(h.code, 1);
      assert.equal(h.stdout.length, 0);
      assert.match(h.err, /lock/);
      assert.deepEqual(query(store, "SELECT * FROM paths"), [], "nothing was rebuilt");
    } finally {
      lock.release();
    }
    const r = await w.run(["reindex"], at);
    assert.equal(r.code, 0, "the lock was the only thing in the way");
    assert.deepEqual(snapshot(), before);
  });
});
