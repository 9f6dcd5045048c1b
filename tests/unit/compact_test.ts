/** `compact`'s use case (core/compact.ts) called in process. */
import assert from "node:assert/strict";
import { pass, unitBox } from "./world.ts";
import { Session } from "../inject_helpers.ts";
import { holdLock } from "../read_helpers.ts";
import { compactArchive } from "../../core/compact.ts";

Deno.test("compactArchive: no store is a reason; the lock held leaves the file as it was; otherwise measured before and after", async () => {
  await using box = await unitBox();
  assert.equal((await compactArchive(box.ctx())).kind, "no store");
  const s = new Session(
    "abababab-0000-4000-8000-000000000041",
    "/nonexistent/terminus-unit/c",
    "2026-11-20T10:00:00Z",
  );
  s.user("the kestrel retry budget");
  s.assistant("It is three.");
  await s.write(box);
  await pass(box);
  const lock = await holdLock(box.data);
  try {
    const held = await compactArchive(box.ctx());
    assert.equal(held.kind, "locked");
    if (held.kind === "locked") assert.ok(held.sizes.db > 0);
  } finally {
    lock.release();
  }
  const done = await compactArchive(box.ctx());
  assert.equal(done.kind, "compacted");
  if (done.kind !== "compacted") return;
  assert.equal(done.store, box.store);
  assert.ok(done.c.before.db > 0 && done.c.after.db > 0);
  assert.ok(done.c.after.total <= done.c.before.total);
  assert.equal(done.c.stranded, 0);
});
