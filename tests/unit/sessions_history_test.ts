/**
 * The use cases under `sessions` (listing, name/tag/untag) and `import-history`, called in
 * process against a real temp store: core/sessions/listing.ts, core/sessions/handles.ts,
 * core/sessions/delete.ts (the store's part of a delete), core/sessions/search.ts, core/history/run.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pass, type UnitBox, unitBox } from "./world.ts";
import { Session } from "../inject_helpers.ts";
import { listVisibleSessions } from "../../core/sessions/listing.ts";
import { changeHandle } from "../../core/sessions/handles.ts";
import { historyImported, runImportHistory } from "../../core/history/import_history.ts";
import { NotFoundError } from "../../core/errors.ts";
import { deleteFromStore, readDeletePlan, tombstonesFor } from "../../core/sessions/delete.ts";
import { resolveAll } from "../../core/resolve.ts";
import { searchSessionsFrom } from "../../core/sessions/search.ts";
import { parseQuery } from "../../core/recall/query.ts";

const ALPHA = "/nonexistent/terminus-unit/alpha";
const BETA = "/nonexistent/terminus-unit/beta";
const A1 = "aaaaaaaa-0000-4000-8000-000000000011";
const A2 = "aaaaaaaa-0000-4000-8000-000000000012";
const B1 = "bbbbbbbb-0000-4000-8000-000000000013";

async function world(box: UnitBox): Promise<void> {
  for (
    const [id, cwd, at] of [
      [A1, ALPHA, "2026-11-20T10:00:00Z"],
      [B1, BETA, "2026-11-22T10:00:00Z"],
      [A2, ALPHA, "2026-11-28T10:00:00Z"],
    ]
  ) {
    const s = new Session(id, cwd, at);
    s.user(`a prompt in ${cwd}`);
    s.assistant("an answer");
    await s.write(box);
  }
  await pass(box);
}

Deno.test("listVisibleSessions: no store yet is a reason, not an error", async () => {
  await using box = await unitBox();
  const l = await listVisibleSessions(box.ctx(ALPHA), undefined, {});
  assert.deepEqual(l.views, []);
  assert.match(String(l.reason), /no store yet/);
});

Deno.test("listVisibleSessions: only the project typed in, newest first or by number, limited", async () => {
  await using box = await unitBox();
  await world(box);
  const ids = (l: { views: { session_id: string | null }[] }) => l.views.map((v) => v.session_id);
  const newest = await listVisibleSessions(box.ctx(ALPHA), undefined, { order: "newest" });
  assert.equal(newest.reason, null);
  assert.deepEqual(ids(newest), [A2, A1]);
  const numbered = await listVisibleSessions(box.ctx(ALPHA), undefined, { order: "number" });
  assert.deepEqual(ids(numbered), [A1, A2]);
  const one = await listVisibleSessions(box.ctx(ALPHA), undefined, { order: "newest", limit: 1 });
  assert.deepEqual(ids(one), [A2]);
  const other = await listVisibleSessions(box.ctx(ALPHA), BETA, {});
  assert.deepEqual(ids(other), [B1]);
});

Deno.test("changeHandle: a name and tags written, read back; a reference to nothing is not found", async () => {
  await using box = await unitBox();
  await assert.rejects(
    changeHandle(box.ctx(ALPHA), "1", { verb: "name", name: "x" }, "sessions name"),
    NotFoundError,
  );
  await world(box);
  const [first] = (await listVisibleSessions(box.ctx(ALPHA), undefined, { order: "number" }))
    .views;
  const ref = String(first.session_no);
  const named = await changeHandle(
    box.ctx(ALPHA),
    ref,
    { verb: "name", name: "the kestrel work" },
    "sessions name",
  );
  assert.deepEqual([named.sessionNo, named.view.title, named.changed], [
    first.session_no,
    "the kestrel work",
    true,
  ]);
  const tagged = await changeHandle(
    box.ctx(ALPHA),
    ref,
    { verb: "tag", tags: ["auth", "wip"] },
    "sessions tag",
  );
  assert.deepEqual([tagged.view.tags, tagged.changed], [["auth", "wip"], ["auth", "wip"]]);
  const untagged = await changeHandle(
    box.ctx(ALPHA),
    ref,
    { verb: "untag", tags: ["wip", "none"] },
    "sessions untag",
  );
  assert.deepEqual([untagged.view.tags, untagged.changed], [["auth"], ["wip"]]);
  const cleared = await changeHandle(
    box.ctx(ALPHA),
    ref,
    { verb: "name", name: null },
    "sessions name",
  );
  assert.equal(cleared.changed, true);
  await assert.rejects(
    changeHandle(box.ctx(ALPHA), "999", { verb: "tag", tags: ["x"] }, "sessions tag"),
    NotFoundError,
  );
});

Deno.test("runImportHistory: no history is a reason; a dry run counts and stores nothing; the import adds each prompt once", async () => {
  await using box = await unitBox();
  const none = await runImportHistory(box.ctx(), false);
  assert.equal(none.result, null);
  if (none.result !== null) return;
  assert.equal(none.ok, true);
  assert.match(none.reason, /no prompt history at .*history\.jsonl \(and no store yet/);
  await world(box);
  const entry = (t: number, display: string) =>
    JSON.stringify({ display, pastedContents: {}, timestamp: t, project: ALPHA }) + "\n";
  await Deno.writeTextFile(
    join(box.claude, "history.jsonl"),
    entry(1764255600000, "the first kestrel") + entry(1764255660000, "the second kestrel"),
  );
  const env = box.ctx().env;
  const dry = await runImportHistory(box.ctx(), true);
  assert.equal(historyImported(env), false, "a dry run imports nothing");
  assert.ok(dry.result !== null);
  assert.deepEqual([dry.result.dry_run, dry.result.added, dry.result.already], [true, 2, 0]);
  const done = await runImportHistory(box.ctx(), false);
  assert.ok(done.result !== null);
  assert.deepEqual([done.result.added, done.result.already], [2, 0]);
  assert.equal(historyImported(env), true);
  const again = await runImportHistory(box.ctx(), false);
  assert.ok(again.result !== null);
  assert.deepEqual([again.result.added, again.result.already], [0, 2]);
});

Deno.test("delete's store part: no store is not found; the plan names the session; deleting it takes it off the list", async () => {
  await using box = await unitBox();
  const id = (s: string) => s;
  assert.throws(() => readDeletePlan(resolveAll(box.ctx()), ALPHA, ["1"], id), NotFoundError);
  await world(box);
  const r = resolveAll(box.ctx(ALPHA));
  const { plan } = readDeletePlan(r, ALPHA, [A1], id);
  assert.deepEqual(plan.targets.map((t) => t.session.session_id), [A1]);
  assert.equal(plan.sessionNos.length, 1);
  deleteFromStore(r.store, plan, tombstonesFor(plan, box.now));
  const left = await listVisibleSessions(box.ctx(ALPHA), undefined, { order: "number" });
  assert.deepEqual(left.views.map((v) => v.session_id), [A2]);
});

Deno.test("searchSessionsFrom: sessions whose turns match, from the project typed in, with an excerpt", async () => {
  await using box = await unitBox();
  const q = parseQuery("prompt");
  const none = await searchSessionsFrom(box.ctx(ALPHA), q, undefined, {
    since: null,
    until: null,
    tags: [],
    limit: null,
  });
  assert.match(String(none.reason), /no store yet/);
  await world(box);
  const f = { since: null, until: null, tags: [], limit: null };
  const here = await searchSessionsFrom(box.ctx(ALPHA), q, undefined, f);
  assert.equal(here.reason, null);
  assert.deepEqual(here.hits.map((h) => h.session.session_id).sort(), [A1, A2].sort());
  assert.ok(here.hits.every((h) => /prompt/.test(h.best.excerpt)), "each hit has its excerpt");
  const all = await searchSessionsFrom(box.ctx(ALPHA), q, "*", { ...f, limit: 1 });
  assert.equal(all.hits.length, 1);
  const nothing = await searchSessionsFrom(box.ctx(ALPHA), parseQuery("zebra"), undefined, f);
  assert.deepEqual(nothing.hits, []);
});
