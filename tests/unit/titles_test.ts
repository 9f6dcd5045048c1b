/**
 * A session's title from a `summary` record: only the session's own (its leafUuid one of the
 * session's records, found in the lines archived with it or in turns archived before), never
 * a summary of another conversation Claude Code wrote into the file, nor one that says it had
 * nothing to summarise. A store titled under the old rule reads its titles again.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { jsonOf, pass, type UnitBox, unitBox, watched, withStore } from "./world.ts";
import { Session } from "../inject_helpers.ts";
import { emptySummary } from "../../core/transcript/titles.ts";
import { titleHits } from "../../core/recall/titles.ts";
import { parseQuery } from "../../core/recall/query.ts";
import { totalTurns } from "../../core/store/entities_sql.ts";

const APP = "/nonexistent/terminus-unit/app";

type View = { session_key: string; title: string | null; title_source: string | null };

async function titleOf(box: UnitBox, id: string): Promise<View> {
  const views = (await jsonOf(box, ["sessions"], APP)).data.sessions as View[];
  return views.find((v) => v.session_key === `${id}.jsonl`)!;
}

function summary(text: string, leaf: string) {
  return { type: "summary", summary: text, leafUuid: leaf };
}

Deno.test("a summary titles its session only when its leaf is one of the session's records", async () => {
  await using box = await unitBox();
  // Claude Code 1.x: summaries at the top of the file, the session's own one among others
  const own = new Session("aaaaaaaa-0000-4000-8000-0000000000a1", APP, "2026-11-20T10:00:00Z");
  own.user("tidy the worker");
  const leaf = own.assistant("The worker is tidy.");
  own.records.unshift(
    summary("Another conversation entirely", "ffffffff-0000-4000-8000-00000000ffff"),
    summary("Tidying the worker", leaf),
    summary("Yet another conversation", "eeeeeeee-0000-4000-8000-00000000eeee"),
  );
  await own.write(box);
  // only others' summaries: the title is the first prompt
  const other = new Session("bbbbbbbb-0000-4000-8000-0000000000b2", APP, "2026-11-21T10:00:00Z");
  other.user("fix the flaky upload test");
  other.assistant("Fixed.");
  other.records.unshift(summary("A summary of some other session", "dddddddd-0000-4000-8000-0"));
  await other.write(box);
  // its own leaf, but nothing was summarised
  const empty = new Session("cccccccc-0000-4000-8000-0000000000c3", APP, "2026-11-22T10:00:00Z");
  empty.user("hello");
  const l2 = empty.assistant("Hi.");
  empty.records.unshift(
    summary("I apologize, but there's no conversation text provided for me to summarize.", l2),
  );
  await empty.write(box);
  await pass(box);

  assert.deepEqual(
    [(await titleOf(box, own.sessionId)).title, (await titleOf(box, own.sessionId)).title_source],
    ["Tidying the worker", "summary"],
  );
  const o = await titleOf(box, other.sessionId);
  assert.deepEqual([o.title, o.title_source], ["fix the flaky upload test", "prompt"]);
  const e = await titleOf(box, empty.sessionId);
  assert.deepEqual([e.title, e.title_source], ["hello", "prompt"]);

  // a summary appended later whose leaf was archived by an earlier pass is the session's own
  const file = await other.write(box); // the same lines again, so the next append is new
  const leafEarlier = (other.records[2] as { uuid: string }).uuid;
  await Deno.writeTextFile(
    file,
    JSON.stringify(summary("The flaky upload test, fixed", leafEarlier)) + "\n",
    { append: true },
  );
  await pass(box);
  assert.equal((await titleOf(box, other.sessionId)).title, "The flaky upload test, fixed");
});

Deno.test("summaries that are no title: nothing to summarise, an error in its place", () => {
  for (
    const t of [
      "I apologize, but there's no conversation text provided for me to summarize.",
      "Sorry, there is nothing to summarise here",
      "No conversation content was provided to summarize",
      "Claude AI usage limit reached|1753131600",
    ]
  ) assert.ok(emptySummary(t), t);
  for (
    const t of ["Tidying the worker", "Summary of the apology email draft", "No-op pass timing"]
  ) {
    assert.ok(!emptySummary(t), t);
  }
});

Deno.test("a store titled under the old rule reads its titles again on the next pass", async () => {
  await using box = await unitBox();
  const s = new Session("aaaaaaaa-0000-4000-8000-0000000000d4", APP, "2026-11-20T10:00:00Z");
  s.user("the real first prompt");
  s.assistant("ok");
  s.records.unshift(summary("Somebody else's session", "ffffffff-0000-4000-8000-0000000000ff"));
  await s.write(box);
  await pass(box);
  // what the old rule left: the last summary record, whoever's it was
  const db = new DatabaseSync(box.store);
  db.exec(`UPDATE session_titles SET summary = 'Somebody else''s session';
    UPDATE meta SET value = '1' WHERE key = 'sessions_schema';`);
  db.close();
  assert.equal((await titleOf(box, s.sessionId)).title, "Somebody else's session");
  const r = await pass(box);
  assert.match(r.run?.notes ?? "", /titles read for 1 session\(s\)/);
  assert.equal((await titleOf(box, s.sessionId)).title, "the real first prompt");
});

Deno.test("a search reads the title words and the turn total from narrow indexes, not wide rows", async () => {
  await using box = await unitBox();
  const titled = new Session("aaaaaaaa-0000-4000-8000-0000000000d1", APP, "2026-11-20T10:00:00Z");
  titled.user("tidy the worker");
  const leaf = titled.assistant("The worker is tidy.");
  titled.records.unshift(summary("Tidying the worker", leaf));
  await titled.write(box);
  const plain = new Session("bbbbbbbb-0000-4000-8000-0000000000d2", APP, "2026-11-21T10:00:00Z");
  plain.user("tidying up the upload test");
  plain.assistant("Done.");
  await plain.write(box);
  await pass(box);

  await withStore(box, (db) => {
    const seen: { sql: string; params: unknown[] }[] = [];
    const w = watched(db, (sql, params) => seen.push({ sql, params }));
    const hits = titleHits(w, {
      query: parseQuery("tidying"),
      vis: { project: null, exclude: [] },
      filters: {},
      limit: 10,
    });
    // the first prompt is no title: only the summary's session answers
    assert.deepEqual(hits.map((h) => h.title), ["Tidying the worker"]);
    assert.equal(totalTurns(w), 4);
    // each whole-table read goes through the index holding only what it reads
    for (
      const [read, index] of [
        [/FROM session_titles\b/, "session_titles_titles"],
        [/sum\(turn_count\)/, "session_meta_turns"],
      ] as const
    ) {
      const reads = seen.filter((x) => read.test(x.sql));
      assert.equal(reads.length, 1, String(read));
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${reads[0].sql}`).all(
        ...(reads[0].params as string[]),
      ) as { detail: string }[]).map((r) => r.detail);
      assert.ok(plan.some((d) => d.includes(`COVERING INDEX ${index}`)), plan.join("\n"));
    }
  });
});
