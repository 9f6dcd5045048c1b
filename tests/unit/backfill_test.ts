/**
 * Backfill's sizing and estimate in process: the rate comes from the newest sizeable pass the
 * store recorded (a run row written here with a known size and duration), else the bench's.
 * The process test (tests/backfill_test.ts) checks only where the figure came from, because
 * there it is the machine's own speed.
 */
import assert from "node:assert/strict";
import { NOW, type UnitBox, unitBox } from "./world.ts";
import { writeTranscript } from "../helpers.ts";
import { humanEstimate, sizeBackfill } from "../../core/ingest/backfill.ts";
import { resolveAll } from "../../core/resolve.ts";
import { openWrite } from "../../core/store/db.ts";
import { beginRun, finishRun } from "../../core/store/runs.ts";
import { BACKFILL_RATE_MB_S, RATE_SAMPLE_MIN_BYTES } from "../../core/constants.ts";

const ALPHA = "/nonexistent/terminus-unit/alpha";

function recordRun(store: string, bytesRead: number, durationMs: number): void {
  const { db } = openWrite(store);
  try {
    const { id } = beginRun(db, NOW.toISOString());
    finishRun(db, id, {
      startedAt: NOW.toISOString(),
      durationMs,
      filesSeen: 1,
      filesCommitted: 1,
      filesFailed: 0,
      bytesRead,
      turnsAdded: 1,
      error: null,
      notes: null,
    });
  } finally {
    db.close();
  }
}

/** One transcript of `bytes` bytes (a line of filler and its newline). */
function transcriptOf(box: UnitBox, bytes: number): Promise<string> {
  const name = "11111111-1111-4111-8111-111111111111.jsonl";
  return writeTranscript(box.claude, ALPHA, name, "x".repeat(bytes - 1) + "\n");
}

Deno.test("backfill: with no sizeable pass recorded the estimate is at the bench's rate", async () => {
  await using box = await unitBox();
  await transcriptOf(box, 1000);
  const size = sizeBackfill(resolveAll(box.ctx()));
  assert.deepEqual([size.transcripts, size.bytes, size.rateFrom], [1, 1000, "bench"]);
  assert.equal(size.rate, BACKFILL_RATE_MB_S * 1_000_000);
});

Deno.test("backfill: the newest pass that read enough sets the rate; a smaller one after it does not", async () => {
  await using box = await unitBox();
  await transcriptOf(box, 5_000_000);
  recordRun(box.store, RATE_SAMPLE_MIN_BYTES * 2, 4000); // 4 MB/s
  recordRun(box.store, 1000, 1); // too small to measure anything by
  const size = sizeBackfill(resolveAll(box.ctx()));
  assert.equal(size.rateFrom, "last pass");
  assert.equal(size.rate, (RATE_SAMPLE_MIN_BYTES * 2) / 4);
  assert.equal(size.bytes, 5_000_000);
  assert.equal(size.seconds, 5_000_000 / size.rate);
  assert.equal(humanEstimate(size.seconds), "about 1 s");
});

Deno.test("backfill: the estimate in words", () => {
  assert.equal(humanEstimate(0), "nothing to read");
  assert.equal(humanEstimate(0.4), "under a second");
  assert.equal(humanEstimate(185), "about 3 min 5 s");
  assert.equal(humanEstimate(7800), "about 2 h 10 min");
});
