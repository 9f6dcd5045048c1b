/**
 * The read commands over a session whose text retention evicted: still listed, still found,
 * an empty excerpt, a null body, observations that cannot be recomputed, rows reindex carries.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { hitsOf, ingest, put, Transcript, world } from "./read_helpers.ts";

Deno.test("an evicted session, through every read command", async (t) => {
  await using w = await world('[retention]\naction = "evict"\nage_days = 1\n');
  const alpha = w.dir("alpha");
  const file = join(alpha, "src/old.ts");
  const sidOld = "0e0e0e0e-0000-4000-8000-000000000001";
  const old = new Transcript({ sessionId: sidOld, cwd: alpha, start: "2026-01-01T10:00:00.000Z" });
  old.user("evictword in the old session");
  old.toolUse("Read", { file_path: file });
  old.toolResult("evictword file body");
  old.assistant("evictword answered long ago");
  await put(w, old);
  const sidNew = "0e0e0e0e-0000-4000-8000-000000000002";
  const fresh = new Transcript({ sessionId: sidNew, cwd: alpha, start: new Date().toISOString() });
  fresh.user("evictword in the open session");
  await put(w, fresh);
  await ingest(w);
  const id = w.ids();
  const at = { cwd: alpha };
  const oldIds = old.turns.map((u) => id.get(u)!);

  await t.step("sessions: listed and marked (evicted)", async () => {
    const list = (await w.json(["sessions"], at)).data.sessions as {
      session_key: string;
      evicted: boolean;
      turns: number;
    }[];
    const o = list.find((s) => s.session_key === `${sidOld}.jsonl`)!;
    assert.equal(o.evicted, true, "retention evicted the closed session");
    assert.equal(o.turns, old.turns.length);
    assert.equal(list.find((s) => s.session_key === `${sidNew}.jsonl`)!.evicted, false);
    const r = await w.run(["sessions"], at);
    const line = r.out.split("\n").find((l) => l.includes(sidOld))!;
    // the mark, then the duration that ends every line
    assert.match(line, / {2}\(evicted\) {2}\S+$/, line);
  });

  await t.step("search: still found, with an empty excerpt", async () => {
    const hits = hitsOf(await w.json(["search", "evictword"], at));
    const oldHits = hits.filter((h) => oldIds.includes(h.turn_id));
    assert.equal(oldHits.length, 3, "every old turn that said it (the Read did not)");
    for (const h of oldHits) assert.equal(h.excerpt, "");
    const freshHit = hits.find((h) => h.turn_id === id.get(fresh.turns[0]))!;
    assert.equal(freshHit.excerpt, "evictword in the open session");
    const byPath = hitsOf(await w.json(["search", "old", "--path", file], at));
    assert.deepEqual(byPath.map((h) => h.turn_id), [oldIds[1]]);
  });

  await t.step("show: (body evicted), a null body, an empty window text", async () => {
    const r = await w.run(["show", String(oldIds[0])], at);
    assert.equal(r.code, 0);
    assert.equal(
      r.out,
      `${oldIds[0]}  ${
        JSON.parse(old.lines[0]).timestamp
      }  ${sidOld}.jsonl  ${alpha}  (body evicted)\n`,
    );
    const env = await w.json(["show", String(oldIds[0]), "--after", "2"], at);
    const rec = (env.data as {
      records: {
        body: string | null;
        body_evicted: boolean;
        context: { turns: { text: string }[]; at_session_start: boolean };
      }[];
    }).records[0];
    assert.equal(rec.body, null);
    assert.equal(rec.body_evicted, true);
    assert.equal(rec.context.turns.length, 3);
    assert.ok(rec.context.turns.every((x) => x.text === ""));
    assert.equal(rec.context.at_session_start, true);
  });

  await t.step("observations stay; regenerate names what it cannot recompute", async () => {
    const obs = (await w.json(["observations"], at)).data.observations as {
      session_key: string;
      mechanical: { files_read: string[] };
    }[];
    assert.equal(obs.length, 1);
    assert.equal(obs[0].session_key, `${sidOld}.jsonl`);
    assert.deepEqual(obs[0].mechanical.files_read, [file], "observed before the text went");
    const env = await w.json(["observations", "regenerate"], at);
    const d = env.data as { selected: number; regenerated: number; notes: string[] };
    assert.equal(d.selected, 1);
    assert.equal(d.regenerated, 0);
    assert.equal(d.notes.length, 1);
    assert.ok(d.notes[0].includes(`${sidOld}.jsonl`), d.notes[0]);
    const h = await w.run(["observations", "regenerate"], at);
    assert.ok(h.err.includes(`${sidOld}.jsonl`), h.err);
    const again = (await w.json(["observations"], at)).data.observations as typeof obs;
    assert.deepEqual(again, obs, "the row it could not recompute is left as it was");
  });

  await t.step("reindex carries the evicted session's rows across", async () => {
    const before = hitsOf(await w.json(["search", "evictword"], at)).map((h) => h.turn_id).sort();
    const r = await w.run(["reindex"], at);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.stdout.length, 0);
    assert.match(r.err, /1 evicted session/);
    const env = await w.json(["reindex"], at);
    assert.deepEqual(env.data, { preserved: 1, sessions: 1, skipped: [], turns: 1 });
    const after = hitsOf(await w.json(["search", "evictword"], at)).map((h) => h.turn_id).sort();
    assert.deepEqual(after, before);
    const byPath = hitsOf(await w.json(["search", "old", "--path", file], at));
    assert.deepEqual(byPath.map((h) => h.turn_id), [oldIds[1]]);
  });
});

Deno.test("a derived schema change keeps an evicted session's rows and says what it could not carry", async () => {
  await using w = await world('[retention]\naction = "evict"\nage_days = 1\n');
  const alpha = w.dir("alpha");
  const sidOld = "0e0e0e0e-0000-4000-8000-0000000000a1";
  const old = new Transcript({ sessionId: sidOld, cwd: alpha, start: "2026-01-01T10:00:00.000Z" });
  old.user("schemaword in the old session");
  old.assistant("schemaword answered long ago");
  await put(w, old);
  const sidNew = "0e0e0e0e-0000-4000-8000-0000000000a2";
  const fresh = new Transcript({ sessionId: sidNew, cwd: alpha, start: new Date().toISOString() });
  fresh.user("schemaword in the open session");
  await put(w, fresh);
  await ingest(w);
  const oldIds = old.turns.map((u) => w.ids().get(u)!);
  // as a store written by the build before the search index kept positions again (schema 4)
  const db = new DatabaseSync(w.sb.store);
  db.exec("UPDATE meta SET value = '3' WHERE key = 'derived_schema'");
  db.close();
  const r = await w.run(["ingest"]);
  assert.equal(r.code, 0, r.err);
  const status = await w.json(["status"]);
  const notes = JSON.stringify(status.data);
  assert.match(notes, /derived tables rebuilt for a new schema: 1 session\(s\)/);
  assert.match(notes, /1 evicted session\(s\) kept their rows, but not their search index rows/);
  const check = new DatabaseSync(w.sb.store, { readOnly: true });
  try {
    const ddl = (check.prepare("SELECT sql FROM sqlite_master WHERE name = 'turns_fts'").get() as {
      sql: string;
    }).sql;
    assert.doesNotMatch(ddl, /detail=/, "the index keeps counts and positions for BM25");
    const kept = check.prepare(
      `SELECT count(*) AS n FROM turns WHERE id IN (${oldIds.join(",")})`,
    ).get() as { n: number };
    assert.equal(kept.n, oldIds.length, "the evicted session's turns are still listed");
  } finally {
    check.close();
  }
  // the open session is rebuilt and found; the evicted one lists but is no longer found
  const hits = hitsOf(await w.json(["search", "schemaword"], { cwd: alpha }));
  assert.deepEqual(hits.map((h) => h.turn_id), [w.ids().get(fresh.turns[0])]);
  const list = (await w.json(["sessions"], { cwd: alpha })).data.sessions as {
    session_key: string;
  }[];
  assert.ok(list.some((s) => s.session_key === `${sidOld}.jsonl`));
});
