/**
 * The archive pass called in process against a temp store, at a fixed time: every byte kept,
 * a second pass over unchanged files adds nothing, an appended line is archived on its own.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { NOW, pass, type UnitBox, unitBox, withStore } from "./world.ts";
import { appendTo, assertArchiveEqualsFiles, fixture, jsonl, writeTranscript } from "../helpers.ts";
import { lastRun } from "../../core/store/runs.ts";
import { FTS_PENDING_BYTES } from "../../core/constants.ts";
import type { Db } from "../../core/store/db.ts";

const ALPHA = "/nonexistent/terminus-unit/alpha";
const ID1 = "11111111-1111-4111-8111-111111111111";
const ID2 = "22222222-2222-4222-8222-222222222222";

/** A fixture transcript of ALPHA's, by name. */
async function transcript(box: UnitBox, id: string, fixtureName: string): Promise<string> {
  return writeTranscript(box.claude, ALPHA, `${id}.jsonl`, await fixture(fixtureName));
}

Deno.test("pass: fixture transcripts are archived byte for byte, and the run is dated by the clock handed in", async () => {
  await using box = await unitBox();
  const a = await transcript(box, ID1, "every_record.jsonl");
  const b = await transcript(box, ID2, "compaction.jsonl");
  const r = await pass(box, NOW);
  assert.equal(r.ran, true);
  assert.deepEqual(r.problems, []);
  assert.equal(r.run!.filesCommitted, 2);
  await assertArchiveEqualsFiles(box.store, box.claude, [a, b]);
  const run = await withStore(box, (db) => lastRun(db));
  assert.equal(run!.startedAt, NOW.toISOString());
  assert.equal(run!.error, null);
});

Deno.test("pass: unchanged files add nothing the second time; an appended line is archived alone", async () => {
  await using box = await unitBox();
  const a = await transcript(box, ID1, "every_record.jsonl");
  const first = await pass(box, NOW);
  assert.ok(first.run!.turnsAdded > 0);
  const again = await pass(box, new Date(NOW.getTime() + 60_000));
  assert.deepEqual([again.run!.bytesRead, again.run!.turnsAdded], [0, 0]);
  const line = jsonl([{
    type: "user",
    uuid: "u-late",
    sessionId: ID1,
    cwd: ALPHA,
    timestamp: "2026-11-30T12:05:00.000Z",
    message: { role: "user", content: "one more" },
  }]);
  await appendTo(a, line);
  const third = await pass(box, new Date(NOW.getTime() + 120_000));
  assert.equal(third.run!.bytesRead, new TextEncoder().encode(line).length);
  assert.equal(third.run!.turnsAdded, 1);
  await assertArchiveEqualsFiles(box.store, box.claude, [a]);
});

Deno.test("pass: a pass that writes sets the search index's pending-term buffer to one batch's worth, and a no-op pass leaves it be", async () => {
  await using box = await unitBox();
  await transcript(box, ID1, "every_record.jsonl");
  await pass(box, NOW);
  const hashsize = (db: Db) =>
    (db.prepare("SELECT v FROM turns_fts_config WHERE k = 'hashsize'").get() as
      | { v: number }
      | undefined)?.v;
  assert.equal(await withStore(box, hashsize), FTS_PENDING_BYTES);
  // a store whose index was set otherwise (by hand, or before this setting) is set back by
  // the next pass that writes, and only by one that writes
  const w = new DatabaseSync(box.store);
  w.exec("INSERT INTO turns_fts(turns_fts, rank) VALUES ('hashsize', 4096)");
  w.close();
  const idle = await pass(box, new Date(NOW.getTime() + 60_000));
  assert.equal(idle.run!.bytesRead, 0);
  assert.equal(await withStore(box, hashsize), 4096);
  await transcript(box, ID2, "compaction.jsonl");
  await pass(box, new Date(NOW.getTime() + 120_000));
  assert.equal(await withStore(box, hashsize), FTS_PENDING_BYTES);
});
