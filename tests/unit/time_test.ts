/** Time bounds and durations (core/time.ts), as the read commands' --since and --until take them. */
import assert from "node:assert/strict";
import { boundFlag, durationText, parseBound, secondsBetween } from "../../core/time.ts";
import { UsageError } from "../../core/errors.ts";

Deno.test("time: a bare date is the start of its UTC day in --since and the end of it in --until", () => {
  assert.equal(parseBound("2026-02-28", "start"), "2026-02-28T00:00:00.000Z");
  assert.equal(parseBound("2026-02-28", "end"), "2026-02-28T23:59:59.999Z");
});

Deno.test("time: a stamp is UTC with exactly three fraction digits; any other form is no bound", () => {
  assert.equal(parseBound("2026-03-01T01:30:00.250Z", "start"), "2026-03-01T01:30:00.250Z");
  for (
    const v of ["2026-03-01T01:30:00+02:00", "2026-03-01T01:30:00Z", "2026-03-01T01:30:00.0001Z"]
  ) {
    assert.equal(parseBound(v, "start"), null, v);
  }
});

Deno.test("time: dates and times that do not exist are not bounds", () => {
  for (
    const v of [
      "2026-02-29",
      "2026-13-01",
      "2026-01-01T24:00:00Z",
      "yesterday",
      "2026-01-01T00:00:00+24:00",
    ]
  ) {
    assert.equal(parseBound(v, "start"), null, v);
  }
  assert.throws(() => boundFlag("--since", "2026-02-30", "start"), UsageError);
  assert.equal(boundFlag("--since", undefined, "start"), null);
});

Deno.test("time: durations read as h/m/s, and a missing end measures nothing", () => {
  assert.equal(durationText(3723), "1h 2m 3s");
  assert.equal(durationText(129), "2m 9s");
  assert.equal(durationText(45), "45s");
  assert.equal(durationText(null), "-");
  assert.equal(secondsBetween("2026-01-01T00:00:00Z", "2026-01-01T00:01:01.4Z"), 61);
  assert.equal(secondsBetween("2026-01-01T00:00:00Z", null), null);
});
