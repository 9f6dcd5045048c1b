/**
 * What the hooks hand over, decided in process against a temp store: the brief at session
 * start, the prompt's recall decision, and the selection rule under it. The hook process
 * itself (stdin, the deadline, the session state file) is still tested in tests/hook_test.ts:
 * its policy lives in hooks/run.ts and cannot be called without a process yet.
 */
import assert from "node:assert/strict";
import { NOW, pass, type UnitBox, unitBox, withStore } from "./world.ts";
import { query } from "../helpers.ts";
import { Session } from "../inject_helpers.ts";
import { defaultConfig } from "../../core/config.ts";
import { resolveScope } from "../../core/open.ts";
import { buildBrief } from "../../core/inject/brief.ts";
import { recall, select } from "../../core/inject/prompt.ts";
import { spellings } from "../../core/inject/spellings.ts";
import { THRESHOLDS } from "../../core/inject/thresholds.ts";
import type { Hit } from "../../core/recall/rank.ts";
import type { Db } from "../../core/store/db.ts";

const ALPHA = "/nonexistent/terminus-unit/alpha";
const FILE = `${ALPHA}/src/worker/S.ts`;
const same = (s: string) => s;

interface World {
  readCall: number;
  readResult: number;
  lastAnswer: string;
}

/** Two sessions in ALPHA: one Read src/worker/S.ts three days ago, the newer one ended after. */
async function world(box: UnitBox): Promise<World> {
  const a = new Session("aaaaaaaa-0000-4000-8000-000000000001", ALPHA, "2026-11-27T10:00:00Z");
  a.user("look at the retry budget in src/worker/S.ts");
  const [call, result] = a.read(FILE, "export const retryBudget = 3;");
  a.assistant("The retry budget lives in src/worker/S.ts; it is 3.");
  await a.write(box);
  const b = new Session("bbbbbbbb-0000-4000-8000-000000000002", ALPHA, "2026-11-28T09:00:00Z");
  b.user("tidy the changelog");
  const lastAnswer = "The changelog is tidy now.";
  b.assistant(lastAnswer);
  await b.write(box);
  await pass(box, NOW);
  const id = (uuid: string) =>
    query<{ id: number }>(box.store, "SELECT id FROM turns WHERE uuid = ?", uuid)[0].id;
  return { readCall: id(call), readResult: id(result), lastAnswer };
}

function recallFor(db: Db, prompt: string, suppress = new Map<number, string>()) {
  const cfg = defaultConfig("/none");
  const scope = resolveScope(db, cfg, `${ALPHA}/src`, undefined);
  assert.ok(scope.ok);
  return recall({
    db,
    vis: scope.vis,
    sessionId: "cccccccc-0000-4000-8000-000000000003",
    spellings: spellings(prompt, ALPHA, THRESHOLDS.max_candidates),
    thresholds: THRESHOLDS,
    suppress,
    owedKnown: null,
    promptChars: cfg.injection.promptChars,
    filter: same,
  });
}

Deno.test("brief: the newest session of the project, its day and its last answer, framed", async () => {
  await using box = await unitBox();
  const w = await world(box);
  const brief = await withStore(box, (db) => {
    const scope = resolveScope(db, defaultConfig("/none"), ALPHA, undefined);
    assert.ok(scope.ok && scope.vis.project === ALPHA);
    return buildBrief(db, { ...scope.vis, project: ALPHA }, 6000, same);
  });
  assert.ok(brief);
  assert.match(brief.text, /^Terminus resume brief/);
  assert.match(brief.text, new RegExp(`The last session in ${ALPHA} ended 2026-11-28`));
  assert.ok(brief.text.includes(`It last answered: ${w.lastAnswer}`), brief.text);
  assert.ok(brief.quoted.length > 0, "the quoted turns are named, so recall can skip them");
});

Deno.test("brief: a session that ended on tool calls keeps its `It last answered:` line", async () => {
  await using box = await unitBox();
  const briefOf = () =>
    withStore(box, (db) => buildBrief(db, { project: ALPHA, exclude: [] }, 6000, same));
  // words, then a Read and an Edit with no word after them: the last words are quoted
  const a = new Session("aaaaaaaa-0000-4000-8000-000000000011", ALPHA, "2026-11-27T10:00:00Z");
  a.user("raise the retry budget");
  a.assistant("I will raise it to 5.");
  a.read(FILE, "export const retryBudget = 3;");
  a.tool("Edit", { file_path: FILE, old_string: "= 3", new_string: "= 5" });
  a.result("The file has been updated.");
  await a.write(box);
  await pass(box, NOW);
  const lines = (await briefOf())!.text.split("\n");
  const asked = lines.findIndex((l) => l.startsWith("It last asked: "));
  assert.equal(lines[asked + 1], "It last answered: I will raise it to 5.");
  // a session whose assistant only ever called tools: its last call is quoted
  const b = new Session("bbbbbbbb-0000-4000-8000-000000000012", ALPHA, "2026-11-28T10:00:00Z");
  b.user("what changed in the last commit");
  b.tool("Bash", { command: "git log --oneline -8" });
  b.result("abc123 fix");
  await b.write(box);
  await pass(box, NOW);
  const only = (await briefOf())!.text;
  assert.match(
    only,
    /^It last asked: what changed in the last commit\nIt last answered: Bash git log --oneline -8$/m,
  );
  // a prompt and no assistant turn at all: the line says so, never a blank
  const c = new Session("cccccccc-0000-4000-8000-000000000013", ALPHA, "2026-11-29T10:00:00Z");
  c.user("are you there");
  await c.write(box);
  await pass(box, NOW);
  const none = (await briefOf())!.text;
  assert.match(none, /^It last answered: nothing; the session ended before a reply$/m, none);
  assert.doesNotMatch(none, /It last asked: .*\n\n\n/);
});

Deno.test("recall: a prompt naming a file a past session Read hands over that Read's turn, never its result", async () => {
  await using box = await unitBox();
  const w = await world(box);
  const r = await withStore(box, (db) => recallFor(db, "why does src/worker/S.ts retry so often?"));
  assert.ok(r.text?.startsWith("Terminus recall"), String(r.text));
  assert.deepEqual(r.injected.map((i) => i.id), [w.readCall]);
  assert.ok(!r.selection.chosen.includes(w.readResult));
  assert.equal(r.compacted, false);
});

Deno.test("recall: a turn already handed over in the session is set aside with its reason", async () => {
  await using box = await unitBox();
  const w = await world(box);
  const why = "already handed over in this session";
  const r = await withStore(
    box,
    (db) => recallFor(db, "src/worker/S.ts again", new Map([[w.readCall, why]])),
  );
  assert.equal(r.text, null);
  assert.deepEqual(r.injected, []);
  assert.deepEqual(r.selection.suppressed.filter((s) => s.id === w.readCall), [{
    id: w.readCall,
    why,
  }]);
});

Deno.test("recall: a prompt naming no path or identifier has no spellings to look up", () => {
  assert.deepEqual(spellings("please tidy up the wording of the last answer", ALPHA, 8), []);
  assert.deepEqual(spellings("open src/worker/S.ts, then explain", ALPHA, 8), [FILE]);
});

function hit(id: number, matched: number, o: Partial<Hit> & { toolResult?: boolean } = {}): Hit {
  return {
    turn_id: id,
    session_no: 1,
    title: null,
    session_key: "k",
    project: ALPHA,
    record_type: "assistant",
    ts: null,
    sidechain: false,
    relevance: 1,
    entity_score: matched,
    matched_on: Array.from({ length: matched }, (_, i) => ({ kind: "path", value: `p${i}` })),
    excerpt: "",
    clipped: { start: false, end: false },
    candidate: { isToolResult: o.toolResult ?? false } as Hit["candidate"],
    ...o,
  };
}

Deno.test("select: free text alone is never handed over; past the entity rank two matches are needed; at most max_turns", () => {
  const t = { ...THRESHOLDS };
  const s = select({
    hits: [
      hit(1, 0), // free text only
      hit(2, 1, { toolResult: true }), // a tool result takes no rank
      hit(3, 1),
      hit(4, 1),
      hit(5, 1), // rank 4 with one match: past entity_rank
      hit(6, 2),
      hit(7, 2),
    ],
    thresholds: t,
    suppress: new Map(),
    onlyIds: null,
  });
  assert.deepEqual(s.chosen, [3, 4, 6]);
  assert.deepEqual(s.suppressed, [{ id: 2, why: "tool result" }]);
  assert.equal(s.candidates.length, 7);
});

Deno.test("select: after a compaction only the dropped turns may be handed over", () => {
  const s = select({
    hits: [hit(1, 1), hit(2, 1)],
    thresholds: { ...THRESHOLDS },
    suppress: new Map(),
    onlyIds: new Set([2]),
  });
  assert.deepEqual(s.chosen, [2]);
  assert.deepEqual(s.suppressed, [{ id: 1, why: "not dropped by the compaction" }]);
});

Deno.test("brief: the newest session is the one whose last turn is newest, ties to the higher number, read from the index's end", async () => {
  await using box = await unitBox();
  const project = "/nonexistent/terminus-unit/busy";
  // archived in this order, so session numbers run against the times
  const ends = ["2026-11-28T09:00:00Z", "2026-11-20T09:00:00Z", "2026-11-28T09:00:00Z"];
  for (const [i, start] of ends.entries()) {
    const s = new Session(`dddddddd-0000-4000-8000-00000000000${i}`, project, start);
    s.user(`question ${i}`);
    s.assistant(`answer ${i}`);
    await s.write(box);
    await pass(box, NOW);
  }
  const numbers = query<{ n: number; at: string }>(
    box.store,
    "SELECT session_no AS n, last_turn_at AS at FROM session_meta WHERE project = ? ORDER BY session_no",
    project,
  );
  assert.equal(numbers.length, 3);
  const brief = await withStore(box, (db) => {
    const plan = db.prepare(
      `EXPLAIN QUERY PLAN SELECT 1 FROM session_meta m WHERE m.project = ? AND m.last_turn_at IS NOT NULL
       ORDER BY m.last_turn_at DESC, m.session_no DESC LIMIT 1`,
    ).all(project) as { detail: string }[];
    assert.ok(
      plan.some((p) => /session_meta_project_recency/.test(p.detail)) &&
        !plan.some((p) => /TEMP B-TREE/.test(p.detail)),
      JSON.stringify(plan),
    );
    return buildBrief(db, { project, exclude: [] }, 6000, same);
  });
  assert.ok(brief);
  // the first and third end at the same time: the third (the higher number) is the newest
  assert.ok(brief.text.includes("It last answered: answer 2"), brief.text);
  assert.equal(numbers[2].at, numbers[0].at);
});

Deno.test("recall: a folder a past session named with its trailing slash is held when a prompt names it without one", async () => {
  await using box = await unitBox();
  const folder = `${ALPHA}/docs/notes`;
  const a = new Session("eeeeeeee-0000-4000-8000-000000000001", ALPHA, "2026-11-27T10:00:00Z");
  a.user("what is in the notes folder?");
  const [call] = a.read(`${folder}/`, "plan.md\nretro.md");
  a.assistant("Two files: plan.md and retro.md.");
  await a.write(box);
  await pass(box, NOW);
  const callId =
    query<{ id: number }>(box.store, "SELECT id FROM turns WHERE uuid = ?", call)[0].id;
  const r = await withStore(box, (db) => recallFor(db, `tidy up ${folder} for me`));
  assert.deepEqual(r.unheld ?? [], [], JSON.stringify(r));
  assert.ok(r.injected.some((t) => t.id === callId), JSON.stringify(r));
});
