/**
 * A pass that adds a large share of the archive's turns merges the search index into one
 * segment; a pass that adds a little leaves FTS5's own segments alone, except once in a store
 * an earlier build made. Real stores made by
 * `terminus ingest`; the segments are counted in the index's own table.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { ingest, put, Transcript, type World, world } from "./read_helpers.ts";
import { SEARCH_MERGE_SHARE } from "../core/constants.ts";

const count = (w: World, sql: string) => {
  const db = new DatabaseSync(w.sb.store, { readOnly: true });
  try {
    return Object.values(db.prepare(sql).get()!)[0] as number;
  } finally {
    db.close();
  }
};
const segments = (w: World) => count(w, "SELECT count(DISTINCT segid) FROM turns_fts_idx");

/** Sessions `from`..`to`-1, each of `turns` prompts naming its own rare word. */
async function sessions(w: World, from: number, to: number, turns: number): Promise<void> {
  for (let s = from; s < to; s++) {
    const t = new Transcript({
      sessionId: `5e9e5e9e-0000-4000-8000-${s.toString().padStart(12, "0")}`,
      cwd: w.dir("app"),
      start: `2026-03-${String(1 + s).padStart(2, "0")}T09:00:00.000Z`,
    });
    for (let i = 0; i < turns; i++) {
      t.user(`session ${s} step ${i}: fix the quokka${s} parser`);
      t.assistant(`The quokka${s} parser is fixed at step ${i}.`);
    }
    await put(w, t);
  }
}

Deno.test("a pass adding much of the archive leaves one search segment; a small one adds its own", async () => {
  await using w = await world();
  // a pass's commits flush segments of their own: one pass, one segment here
  await sessions(w, 0, 6, 10);
  await ingest(w);
  assert.equal(segments(w), 1);

  await sessions(w, 6, 7, 2);
  await ingest(w);
  // 4 turns of 124 is under the share: the new segment stays beside the merged one
  assert.ok(4 < SEARCH_MERGE_SHARE * 124);
  assert.equal(segments(w), 2, "a small pass is left to FTS5's automerge");

  await sessions(w, 7, 12, 10);
  await ingest(w);
  // without the merge, the pass's own segment would be a third
  assert.equal(segments(w), 1, "100 turns of 224 is over the share: merged");
  // the pages the old segments held are given back, not left free in the file
  assert.equal(count(w, "PRAGMA freelist_count"), 0);

  // a store an earlier build made (no mark) is merged once by the next pass, new bytes or not
  await sessions(w, 12, 13, 2);
  await ingest(w);
  assert.equal(segments(w), 2);
  const db = new DatabaseSync(w.sb.store);
  db.exec("DELETE FROM meta WHERE key = 'search_index_merged_once'");
  db.close();
  await ingest(w);
  assert.equal(segments(w), 1, "the older store's segments merged by a pass that added nothing");
  await sessions(w, 13, 14, 2);
  await ingest(w);
  assert.equal(segments(w), 2, "once only");

  // a reindex refills the index in segments of its own: the merge is owed again, and paid
  const marked = () => count(w, "SELECT count(*) FROM meta WHERE key = 'search_index_merged_once'");
  assert.equal(marked(), 1);
  const re = await w.run(["reindex"]);
  assert.equal(re.code, 0, re.err);
  assert.equal(marked(), 0);
  await ingest(w);
  assert.equal(marked(), 1);
  assert.equal(segments(w), 1);

  // every session's words are found through the merged index
  for (const s of [0, 6, 11]) {
    const r = await w.json(["search", `quokka${s}`, "--project", "*", "--limit", "50"]);
    const hits = (r.data as { hits: unknown[] }).hits;
    assert.equal(hits.length, s === 6 ? 4 : 20, `quokka${s}`);
  }
});
