/** `observations`' use cases (core/observe/run.ts) called in process. */
import assert from "node:assert/strict";
import { pass, type UnitBox, unitBox, watched, withStore } from "./world.ts";
import { Session, sid } from "../inject_helpers.ts";
import { resolveAll } from "../../core/resolve.ts";
import { runWholePass } from "../../core/ingest/whole.ts";
import { holdLock } from "../read_helpers.ts";
import { regenerateObservations, visibleObservations } from "../../core/observe/observations.ts";

const ALPHA = "/nonexistent/terminus-unit/obs-alpha";
const BETA = "/nonexistent/terminus-unit/obs-beta";

Deno.test("observations: a closed session's facts, seen only from its project; regenerated under the lock", async () => {
  await using box = await unitBox();
  const none = await visibleObservations(box.ctx(ALPHA), undefined);
  assert.match(String(none.reason), /no store yet/);
  assert.equal((await regenerateObservations(box.ctx(), null)).result, null);
  for (
    const [id, cwd] of [["ffffffff-0000-4000-8000-000000000031", ALPHA], [
      "ffffffff-0000-4000-8000-000000000032",
      BETA,
    ]]
  ) {
    const s = new Session(id, cwd, "2026-11-20T10:00:00Z");
    s.user("the kestrel retry budget");
    s.read(`${cwd}/src/S.ts`, "export const retryBudget = 3;");
    s.assistant("It is three.");
    await s.write(box);
  }
  // ten days before the box's clock: both sessions are closed, so the pass observes them
  await pass(box);
  const seen = await visibleObservations(box.ctx(ALPHA), undefined);
  assert.equal(seen.reason, null);
  assert.deepEqual(seen.rows.map((r) => r.project), [ALPHA]);
  assert.match(String(seen.rows[0].mechanical), /src\/S\.ts/);
  assert.equal((await visibleObservations(box.ctx(ALPHA), "*")).rows.length, 2);
  const lock = await holdLock(box.data);
  try {
    const held = await regenerateObservations(box.ctx(), null);
    assert.equal(held.result, null);
    if (held.result === null) assert.equal(held.ok, false);
  } finally {
    lock.release();
  }
  const done = await regenerateObservations(box.ctx(), null);
  assert.ok(done.result !== null);
  assert.deepEqual([done.result.selected, done.result.regenerated], [2, 2]);
  const later = await regenerateObservations(box.ctx(), "2026-11-25");
  assert.ok(later.result !== null);
  assert.equal(later.result.selected, 0);
});

/** A whole pass whose statements reading a session's blocks back (the observe step's) are counted. */
async function countedPass(box: UnitBox, now: Date): Promise<number> {
  let reads = 0;
  const r = resolveAll(box.ctx());
  await runWholePass({
    cfg: r.cfg,
    dataDir: r.dataDir,
    roots: r.roots,
    now,
    instrument: (db) =>
      watched(db, (sql) => {
        if (/SELECT block_no AS no, bytes FROM blocks/.test(sql)) reads++;
      }),
  });
  return reads;
}

const factsRows = (box: UnitBox) =>
  withStore(box, (db) =>
    db.prepare(
      `SELECT f.session_no AS no, f.stream_len = m.uncompressed_len AS current
       FROM observation_facts f JOIN session_meta m USING (session_no) ORDER BY 1`,
    ).all() as { no: number; current: number }[]);

Deno.test("observations: the facts taken while archiving wait in the store, so the pass after the cap reads no blocks back", async () => {
  await using box = await unitBox();
  for (let i = 0; i < 103; i++) {
    const s = new Session(sid(i), ALPHA, "2026-11-20T10:00:00Z");
    s.user(`the kestrel budget ${i}`);
    s.read(`${ALPHA}/src/F${i}.ts`, `export const n = ${i};`);
    s.assistant("Noted.");
    await s.write(box);
  }
  // one pass observes its 100; the other three keep the facts it took, still current
  assert.equal(await countedPass(box, box.now), 0);
  const waiting = await factsRows(box);
  assert.equal(waiting.length, 3);
  assert.ok(waiting.every((w) => w.current === 1));
  // the next pass (another process, as a hook's would be) observes them from the store
  assert.equal(await countedPass(box, box.now), 0);
  assert.deepEqual(await factsRows(box), []);
  const before = await visibleObservations(box.ctx(ALPHA), undefined);
  assert.equal(before.rows.length, 103);
  assert.ok(before.rows.every((r, i) => String(r.mechanical).includes(`src/F${i}.ts`)));
  // the facts are what reading the blocks back gives
  const again = await regenerateObservations(box.ctx(), null);
  assert.ok(again.result !== null);
  assert.equal(again.result.regenerated, 103);
  const after = await visibleObservations(box.ctx(ALPHA), undefined);
  assert.deepEqual(after.rows.map((r) => r.mechanical), before.rows.map((r) => r.mechanical));
});

Deno.test("observations: facts kept for a stream that grew since are not used; the session is read back", async () => {
  await using box = await unitBox();
  // an hour old: archived whole and its facts kept, but not closed yet
  const s = new Session(sid(7), ALPHA, new Date(box.now.getTime() - 3_600_000).toISOString());
  s.user("the first question");
  s.read(`${ALPHA}/src/First.ts`, "export const a = 1;");
  await s.write(box);
  assert.equal(await countedPass(box, box.now), 0);
  assert.deepEqual((await factsRows(box)).map((f) => f.current), [1]);
  // more lines: appended, so the kept facts no longer cover the stream
  s.read(`${ALPHA}/src/Second.ts`, "export const b = 2;");
  await s.write(box);
  assert.equal(await countedPass(box, box.now), 0);
  assert.deepEqual((await factsRows(box)).map((f) => f.current), [0]);
  // a day on it closes, and its observation is read from its blocks, the new lines in it
  const later = new Date(box.now.getTime() + 86_400_000);
  assert.ok(await countedPass(box, later) > 0);
  assert.deepEqual(await factsRows(box), []);
  const seen = await visibleObservations(box.ctx(ALPHA), undefined);
  assert.equal(seen.rows.length, 1);
  assert.match(String(seen.rows[0].mechanical), /src\/First\.ts/);
  assert.match(String(seen.rows[0].mechanical), /src\/Second\.ts/);
});
