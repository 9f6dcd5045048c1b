/**
 * The read and write use cases as a person calls them, answered in process by the same
 * command modules the CLI dispatches to: search, sessions (list, name, tag, untag), stats with
 * its labels, retention, status. The clock is the box's; nothing depends on today's date.
 */
import assert from "node:assert/strict";
import { cli, jsonOf, NOW, pass, type UnitBox, unitBox } from "./world.ts";
import { query, writeConfig } from "../helpers.ts";
import { Session } from "../inject_helpers.ts";
import { queueDecision } from "../../core/inject/queue.ts";
import { THRESHOLDS } from "../../core/inject/thresholds.ts";
import { CLOSE_AFTER_MS, DAY_MS } from "../../core/constants.ts";

const ALPHA = "/nonexistent/terminus-unit/alpha";
const BETA = "/nonexistent/terminus-unit/beta";
const FILE = `${ALPHA}/src/worker/S.ts`;
const OLD = "aaaaaaaa-0000-4000-8000-000000000001";
const NEW = "bbbbbbbb-0000-4000-8000-000000000002";
const OTHER = "dddddddd-0000-4000-8000-000000000004";

type Rec = Record<string, unknown>;

/** ALPHA: an old session that Read FILE (Nov 20), a newer one (Nov 28); BETA: one session. */
async function world(box: UnitBox): Promise<void> {
  const a = new Session(OLD, ALPHA, "2026-11-20T10:00:00Z");
  a.user("the kestrel retry budget in src/worker/S.ts");
  a.read(FILE, "export const retryBudget = 3;");
  a.assistant("The retry budget lives in src/worker/S.ts; it is 3.");
  await a.write(box);
  const b = new Session(NEW, ALPHA, "2026-11-28T09:00:00Z");
  b.user("tidy the changelog");
  b.assistant("The changelog is tidy now.");
  await b.write(box);
  const c = new Session(OTHER, BETA, "2026-11-29T09:00:00Z");
  c.user("kestrel in another project");
  c.assistant("Nothing of alpha here.");
  await c.write(box);
  await pass(box);
}

Deno.test("search: words find their turn in the project typed in, and only there", async () => {
  await using box = await unitBox();
  await world(box);
  const here = await jsonOf(box, ["search", "kestrel"], `${ALPHA}/src`);
  const hits = here.data.hits as Rec[];
  assert.deepEqual(hits.map((h) => [h.session_key, h.project]), [[`${OLD}.jsonl`, ALPHA]]);
  const everywhere = await jsonOf(box, ["search", "kestrel", "--project", "*"], ALPHA);
  assert.deepEqual(
    (everywhere.data.hits as Rec[]).map((h) => h.project).sort(),
    [ALPHA, BETA],
  );
  const bounded = await jsonOf(box, ["search", "kestrel", "--since", "2026-11-21"], ALPHA);
  assert.deepEqual(bounded.data.hits, []);
});

Deno.test("search: no words and no selector is misuse, exit 2, nothing on stdout", async () => {
  await using box = await unitBox();
  await world(box);
  const r = await cli(box, ["search", "--json"], ALPHA);
  assert.deepEqual([r.code, r.out], [2, ""]);
  assert.match(r.err, /search needs words/);
});

Deno.test("sessions: newest first on screen, number order in JSON; name and tag show in the listing, untag and --clear take them away", async () => {
  await using box = await unitBox();
  await world(box);
  const list = async () => (await jsonOf(box, ["sessions"], ALPHA)).data.sessions as Rec[];
  assert.deepEqual((await list()).map((s) => s.session_id), [OLD, NEW]);
  const screen = (await cli(box, ["sessions"], ALPHA)).out.split("\n").filter(Boolean);
  assert.deepEqual(
    [screen[0].includes("tidy the changelog"), screen[1].includes("kestrel")],
    [true, true],
    screen.join("\n"),
  );
  const named = await jsonOf(box, ["sessions", "name", OLD, "kestrel work"], ALPHA);
  assert.equal(named.data.changed, true);
  await jsonOf(box, ["sessions", "tag", OLD, "bug", "retry"], ALPHA);
  const old = (await list()).find((s) => s.session_id === OLD)!;
  assert.deepEqual([old.name, old.title, old.tags], ["kestrel work", "kestrel work", [
    "bug",
    "retry",
  ]]);
  const text = await cli(box, ["sessions", "--tag", "bug"], ALPHA);
  assert.equal(text.code, 0, text.err);
  assert.equal(text.out.split("\n").filter(Boolean).length, 1);
  assert.match(text.out, /kestrel work .*\+bug/);
  await jsonOf(box, ["sessions", "untag", OLD, "bug"], ALPHA);
  await jsonOf(box, ["sessions", "name", OLD, "--clear"], ALPHA);
  const after = (await list()).find((s) => s.session_id === OLD)!;
  assert.deepEqual([after.name, after.tags], [null, ["retry"]]);
});

Deno.test("sessions show: the conversation read back from the archived blocks, in order", async () => {
  await using box = await unitBox();
  await world(box);
  const shown = await jsonOf(box, ["sessions", "show", OLD], ALPHA);
  const messages = shown.data.messages as Rec[];
  assert.equal((shown.data.session as Rec).session_id, OLD);
  const text = JSON.stringify(messages);
  assert.ok(
    text.indexOf("the kestrel retry budget") < text.indexOf("it is 3."),
    "the prompt before the answer",
  );
  assert.match(text, /src\/worker\/S\.ts/);
});

Deno.test("sessions: a reference that matches nothing fails with exit 1 and names it", async () => {
  await using box = await unitBox();
  await world(box);
  const r = await cli(box, ["sessions", "name", "99", "x", "--json"], ALPHA);
  assert.equal(r.code, 1);
  const doc = JSON.parse(r.out);
  assert.equal(doc.ok, false);
  assert.match(doc.reason, /99/);
});

Deno.test("stats: a queued decision is logged by the pass and labelled a hit once its session closed having touched the file", async () => {
  await using box = await unitBox();
  await world(box);
  const readCall = query<{ id: number }>(
    box.store,
    "SELECT t.id FROM turns t JOIN session_meta m USING (session_no) WHERE m.session_id = ? AND t.record_type = 'assistant' ORDER BY t.id LIMIT 1",
    OLD,
  )[0].id;
  const sid = "eeeeeeee-0000-4000-8000-000000000005";
  const at = "2026-11-30T12:00:00.000Z";
  queueDecision(box.data, {
    session_id: sid,
    at,
    cwd: ALPHA,
    project: ALPHA,
    prompt: "what about src/worker/S.ts?",
    spellings: [FILE],
    candidates: [],
    injected: [{ id: readCall, chars: 120 }],
    suppressed: [],
    compacted: false,
    dropped: 0,
    thresholds: { ...THRESHOLDS },
    watermark: readCall,
    note: null,
  });
  // the session the prompt was in goes on to Read the file itself
  const s = new Session(sid, ALPHA, "2026-11-30T12:00:01Z");
  s.user("what about src/worker/S.ts?");
  s.read(FILE, "export const retryBudget = 3;");
  s.assistant("Still 3.");
  await s.write(box);
  await pass(box, new Date(NOW.getTime() + 60_000));
  const open = await jsonOf(box, ["stats"]);
  assert.deepEqual([open.data.decisions, open.data.hits], [1, 0], "not labelled while open");
  // stats and replay both say why the prompt has no label yet
  const waiting =
    /^1 logged prompt\(s\) wait for a label: a label is written once the session has been idle 6 hours, and replay re-scores only labelled prompts$/m;
  assert.match((await cli(box, ["stats"])).err, waiting);
  assert.match((await cli(box, ["replay"])).err, waiting);
  await pass(box, new Date(NOW.getTime() + CLOSE_AFTER_MS + 3_600_000));
  assert.doesNotMatch((await cli(box, ["stats"])).err, /wait for a label/);
  const closed = await jsonOf(box, ["stats"]);
  assert.deepEqual(
    [closed.data.decisions, closed.data.injected_turns, closed.data.hits, closed.data.precision],
    [1, 1, 1, 1],
  );
});

Deno.test("retention: ages are measured from the clock's now; only sessions older than age_days are due", async () => {
  await using box = await unitBox();
  await world(box);
  await writeConfig(box, '[retention]\naction = "evict"\nage_days = 5\n');
  const plan = await jsonOf(box, ["retention", "--dry-run"]);
  assert.equal(plan.data.cutoff, NOW.toISOString());
  assert.deepEqual(plan.data.evict, [`${OLD}.jsonl`]);
  box.now = new Date(NOW.getTime() + 30 * DAY_MS);
  const later = await jsonOf(box, ["retention"]);
  assert.deepEqual(
    (later.data.evict as string[]).sort(),
    [`${OLD}.jsonl`, `${NEW}.jsonl`, `${OTHER}.jsonl`].sort(),
  );
});

Deno.test("status: the last run as the pass recorded it, at the time it was handed", async () => {
  await using box = await unitBox();
  await world(box);
  const s = await jsonOf(box, ["status"]);
  const run = s.data.last_run as Rec;
  assert.equal(run.started_at, NOW.toISOString());
  assert.deepEqual([s.data.sessions, run.files_committed, run.error], [3, 3, null]);
});

Deno.test("read commands before any pass: no store yet, exit 0 and the empty document", async () => {
  await using box = await unitBox();
  for (const name of ["stats", "retention", "search", "sessions"]) {
    const args = name === "search" ? [name, "kestrel", "--json"] : [name, "--json"];
    const r = await cli(box, args, ALPHA);
    assert.equal(r.code, 0, `${name}: ${r.err}`);
    const doc = JSON.parse(r.out);
    assert.match(String(doc.reason), /no store yet/, name);
  }
});
