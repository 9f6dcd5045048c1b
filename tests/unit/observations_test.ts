/** `observations`' use cases (core/observe/run.ts) called in process. */
import assert from "node:assert/strict";
import { pass, unitBox } from "./world.ts";
import { Session } from "../inject_helpers.ts";
import { holdLock } from "../read_helpers.ts";
import { regenerateObservations, visibleObservations } from "../../core/observe/run.ts";

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
