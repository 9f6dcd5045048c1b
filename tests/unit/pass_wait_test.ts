/**
 * What a pass a hook started still waits, from the hook's mark (the time it started the pass)
 * and a clock the test holds: the deadline's rest, nothing once it is over, never more than the
 * whole wait, and the whole wait for a mark that is no time.
 */
import assert from "node:assert/strict";
import { passWaitLeft } from "../../core/context.ts";

const WAIT = 50;
const T = 1_764_633_600_000;

Deno.test("a pass started now waits the whole of the hook's deadline", () => {
  assert.equal(passWaitLeft(String(T), T, WAIT), WAIT);
});

Deno.test("a pass whose start already slept part of it waits only the rest", () => {
  assert.equal(passWaitLeft(String(T), T + 20, WAIT), 30);
  assert.equal(passWaitLeft(String(T), T + 50, WAIT), 0);
  assert.equal(passWaitLeft(String(T), T + 5_000, WAIT), 0);
});

Deno.test("a clock stepped back never makes the wait longer than the deadline", () => {
  assert.equal(passWaitLeft(String(T), T - 60_000, WAIT), WAIT);
});

Deno.test("a mark that is no time waits the whole deadline; a time long past, nothing", () => {
  for (const mark of ["", "0", "-5", "soon", "1e12", "99999999999999999999"]) {
    assert.equal(passWaitLeft(mark, T, WAIT), WAIT, `mark ${JSON.stringify(mark)}`);
  }
  // an older build's mark, `1`, reads as 1 ms after the epoch: its wait is long over
  assert.equal(passWaitLeft("1", T, WAIT), 0);
});
