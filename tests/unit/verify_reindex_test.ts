/** `verify` and `reindex`'s use cases (core/verify.ts, core/index/run.ts) called in process. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { pass, type UnitBox, unitBox } from "./world.ts";
import { Session } from "../inject_helpers.ts";
import { holdLock } from "../read_helpers.ts";
import { verifyArchive } from "../../core/verify.ts";
import { reindexArchive } from "../../core/index/reindex_archive.ts";

const PROJECT = "/nonexistent/terminus-unit/verify";

async function world(box: UnitBox): Promise<void> {
  for (
    const [id, at] of [["cccccccc-0000-4000-8000-000000000021", "2026-11-20T10:00:00Z"], [
      "cccccccc-0000-4000-8000-000000000022",
      "2026-11-21T10:00:00Z",
    ]]
  ) {
    const s = new Session(id, PROJECT, at);
    s.user("the kestrel retry budget");
    s.assistant("It is three.");
    await s.write(box);
  }
  await pass(box);
}

Deno.test("verifyArchive: no store is a reason; intact blocks pass; a changed block is a failure", async () => {
  await using box = await unitBox();
  const none = await verifyArchive(box.ctx());
  assert.equal(none.report, null);
  await world(box);
  const ok = await verifyArchive(box.ctx());
  assert.ok(ok.report !== null);
  assert.deepEqual([ok.report.checked, ok.report.failures], [2, []]);
  // one byte of one archived block changed behind the store's back
  const db = new DatabaseSync(box.store);
  const row = db.prepare("SELECT session_no, block_no, bytes FROM blocks LIMIT 1").get() as {
    session_no: number;
    block_no: number;
    bytes: Uint8Array;
  };
  const bytes = new Uint8Array(row.bytes);
  bytes[bytes.length - 1] ^= 0xff;
  db.prepare("UPDATE blocks SET bytes = ? WHERE session_no = ? AND block_no = ?")
    .run(bytes, row.session_no, row.block_no);
  db.close();
  const bad = await verifyArchive(box.ctx());
  assert.ok(bad.report !== null);
  assert.equal(bad.report.checked, 2);
  assert.equal(bad.report.failures.length, 1);
});

Deno.test("reindexArchive: no store is a reason; the lock held is a failure; otherwise every session rebuilt", async () => {
  await using box = await unitBox();
  const none = await reindexArchive(box.ctx());
  assert.equal(none.result, null);
  if (none.result === null) {
    assert.deepEqual([none.ok, /nothing to rebuild/.test(none.reason)], [true, true]);
  }
  await world(box);
  const lock = await holdLock(box.data);
  try {
    const held = await reindexArchive(box.ctx());
    assert.equal(held.result, null);
    if (held.result === null) assert.equal(held.ok, false);
  } finally {
    lock.release();
  }
  const done = await reindexArchive(box.ctx());
  assert.ok(done.result !== null);
  assert.deepEqual([done.result.sessions, done.result.skipped], [2, []]);
  assert.ok(done.result.turns >= 2);
});
