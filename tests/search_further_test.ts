/**
 * Search's further answers (issue #45), end to end on a real archive made by `terminus ingest`:
 * sessions holding every word across their turns, then turns holding any of the words when
 * nothing holds them all, each hit marked by its `match`; `--strict` gives the spec's answer
 * alone; a definition outranks the turns that only mention it.
 */
import assert from "node:assert/strict";
import { bestIds } from "../core/recall/further.ts";
import { join } from "node:path";
import { parseEnvelope } from "./helpers.ts";
import { type Hit, hitsOf, ingest, put, Transcript, world } from "./read_helpers.ts";

type Marked = Hit & { match: string; session_no: number };

const NO_WORDS = "the query has no words that can be searched";

function marked(hits: Hit[]): Marked[] {
  return hits as Marked[];
}

Deno.test("search: further answers when no single turn holds every word", async (t) => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const file = join(alpha, "src/kernel/sched_core.ts");

  // the target: the word is in the reply just before the Edit that names the file
  const a = new Transcript({
    sessionId: "aaaaaaaa-0000-4000-8000-000000000001",
    cwd: alpha,
    start: "2026-02-01T10:00:00.000Z",
  });
  a.user("the scheduler stalls under load");
  const aProse = a.assistant("The watchdog fires too early; the grace period needs to grow.");
  const aEdit = a.toolUse("Edit", {
    file_path: file,
    old_string: "grace = 5",
    new_string: "grace = 50",
  });
  a.toolResult("The file has been updated.");
  // the question's words, spread over several turns of one session, none holding them all
  a.user("which compression suits the archive?");
  a.assistant("zstd at level three keeps the blocks small");
  await put(w, a);

  // distractors: the word alone, the file alone
  const b = new Transcript({
    sessionId: "bbbbbbbb-0000-4000-8000-000000000002",
    cwd: alpha,
    start: "2026-02-02T10:00:00.000Z",
  });
  b.user("the watchdog in the network stack is fine");
  b.assistant("yes, nothing to change there");
  await put(w, b);
  const c = new Transcript({
    sessionId: "cccccccc-0000-4000-8000-000000000003",
    cwd: alpha,
    start: "2026-02-03T10:00:00.000Z",
  });
  c.toolUse("Read", { file_path: file });
  c.toolResult("export const grace = 50;");
  c.assistant("the scheduler reads its grace from one constant");
  await put(w, c);

  // a rare word only one session holds, with words no turn ever said
  const d = new Transcript({
    sessionId: "dddddddd-0000-4000-8000-000000000004",
    cwd: alpha,
    start: "2026-02-04T10:00:00.000Z",
  });
  const dHit = d.assistant("the frobozz cache is gone from the reader");
  d.user("good, ship it");
  await put(w, d);
  await ingest(w);
  const id = w.ids();
  const at = { cwd: alpha };

  await t.step("a file name and a word of the turn next door find the session", async () => {
    const env = await w.json(["search", "sched_core.ts", "watchdog"], at);
    const hits = marked(hitsOf(env));
    assert.ok(hits.length > 0, "an answer");
    assert.equal(hits[0].session_key, "aaaaaaaa-0000-4000-8000-000000000001.jsonl");
    // the session's group: shown by the turns that hold the words between them
    const session = hits.filter((h) => h.match === "all_words_session");
    assert.deepEqual(
      session.map((h) => h.turn_id).sort(),
      [id.get(aProse)!, id.get(aEdit)!].sort(),
      "the reply holding the word and the Edit naming the file",
    );
    assert.deepEqual(hits.slice(0, session.length), session, "the sessions come first");
    // then turns holding some of the words: the word alone, the file alone, never as a session
    const rest = hits.slice(session.length);
    assert.ok(rest.every((h) => h.match === "any_word"), JSON.stringify(rest));
    assert.ok(rest.some((h) => h.session_key.startsWith("bbbbbbbb")));
    assert.ok(rest.some((h) => h.session_key.startsWith("cccccccc")));
    assert.match(env.reason ?? "", /no turn holds every word/);
    assert.match(env.reason ?? "", /all_words_session/);
  });

  await t.step("--strict gives the spec's answer alone: nothing", async () => {
    const env = await w.json(["search", "sched_core.ts", "watchdog", "--strict"], at);
    assert.deepEqual(hitsOf(env), []);
    assert.equal(env.reason, "no turn matched every word");
    const r = await w.run(["search", "sched_core.ts", "watchdog", "--strict"], at);
    assert.equal(r.code, 0);
    assert.equal(r.out, "");
  });

  await t.step("human output: a line heads the further answers, stderr says why", async () => {
    const r = await w.run(["search", "sched_core.ts", "watchdog"], at);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.split("\n");
    assert.equal(lines[0], "-- sessions that hold every word across their turns --");
    assert.match(lines[1], new RegExp(`^${id.get(aProse)!}|^${id.get(aEdit)!}`));
    assert.match(r.err, /no turn holds every word/);
  });

  await t.step("a question whose words no turn holds together still answers, marked", async () => {
    const env = await w.json(["search", "which", "compression", "zstd", "blocks"], at);
    const hits = marked(hitsOf(env));
    assert.ok(hits.length > 0);
    assert.equal(hits[0].match, "all_words_session");
    assert.equal(hits[0].session_key, "aaaaaaaa-0000-4000-8000-000000000001.jsonl");
  });

  await t.step(
    "nothing holds every word: turns holding some of them, rare words first",
    async () => {
      const env = await w.json(
        ["search", "why", "did", "we", "drop", "the", "frobozz", "cache"],
        at,
      );
      const hits = marked(hitsOf(env));
      assert.ok(hits.length > 0, "never an empty answer when the words are there");
      assert.ok(
        hits.every((h) => h.match === "any_word"),
        JSON.stringify(hits.map((h) => h.match)),
      );
      assert.equal(hits[0].turn_id, id.get(dHit), "the turn holding the rare word comes first");
      assert.match(env.reason ?? "", /nothing holds every word/);
      assert.match(env.reason ?? "", /any_word/);
      const human = await w.run(
        ["search", "why", "did", "we", "drop", "the", "frobozz", "cache"],
        at,
      );
      assert.equal(
        human.out.split("\n")[0],
        "-- turns that hold some of the words, rarer words weighing more --",
      );
      const strict = await w.json(
        ["search", "why", "did", "we", "drop", "frobozz", "--strict"],
        at,
      );
      assert.deepEqual(hitsOf(strict), []);
    },
  );

  await t.step("words the archive never held find nothing, and say so", async () => {
    const env = await w.json(["search", "qwertyzzz", "plughxyzzy"], at);
    assert.deepEqual(hitsOf(env), []);
    assert.equal(env.reason, "no turn matched any of the words");
  });

  await t.step("/// still finds nothing and says so, with or without --strict", async () => {
    for (const extra of [[], ["--strict"]]) {
      const r = await w.run(["search", "///", ...extra, "--json"], at);
      assert.equal(r.code, 0);
      const env = parseEnvelope(r.out);
      assert.deepEqual(hitsOf(env), []);
      assert.equal(env.reason, NO_WORDS);
      const h = await w.run(["search", "///", ...extra], at);
      assert.equal(h.out, "");
      assert.match(h.err, new RegExp(NO_WORDS));
    }
  });
});

Deno.test("search: the spec's answer comes first and in the same order; sessions follow a short one", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const one = new Transcript({
    sessionId: "eeeeeeee-0000-4000-8000-000000000001",
    cwd: alpha,
    start: "2026-03-01T10:00:00.000Z",
  });
  const only = one.user("the quorum lease expired during failover");
  await put(w, one);
  const two = new Transcript({
    sessionId: "ffffffff-0000-4000-8000-000000000002",
    cwd: alpha,
    start: "2026-03-02T10:00:00.000Z",
  });
  two.user("why did the quorum drop?");
  two.assistant("the lease expired because the clock skewed during failover");
  await put(w, two);
  await ingest(w);
  const id = w.ids();
  const at = { cwd: alpha };
  const strict = marked(
    hitsOf(await w.json(["search", "quorum", "lease", "failover", "--strict"], at)),
  );
  assert.deepEqual(strict.map((h) => h.turn_id), [id.get(only)!]);
  assert.equal(strict[0].match, "all_words_turn");
  const env = await w.json(["search", "quorum", "lease", "failover"], at);
  const all = marked(hitsOf(env));
  assert.deepEqual(all.slice(0, strict.length), strict, "the first answer, unchanged");
  const rest = all.slice(strict.length);
  assert.ok(rest.length > 0, "the other session follows");
  assert.ok(rest.every((h) => h.match === "all_words_session"));
  assert.ok(rest.every((h) => h.session_key.startsWith("ffffffff")));
  assert.match(env.reason ?? "", /only 1 turn\(s\) hold every word/);
});

Deno.test("search: words most sessions say are not required of a session; one word that tells sessions apart is", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const at = { cwd: alpha };
  const session = (n: number, day: number) =>
    new Transcript({
      sessionId: `${String(n).repeat(8)}-0000-4000-8000-00000000000${n}`,
      cwd: alpha,
      start: `2026-04-0${day}T10:00:00.000Z`,
    });
  // the session the question means: its commit line holds the rare words, and it never says
  // "did" or "we", which five of the eight sessions do
  const target = session(1, 1);
  target.user("make the loader faster");
  const commit = target.toolUse("Bash", {
    command: 'git commit -m "quokka loader reads zebra tiles"',
  });
  const result = target.toolResult("[main 1a2b3c4] quokka loader reads zebra tiles");
  await put(w, target);
  // it says every word, scattered over long turns
  const scattered = session(2, 2);
  scattered.user(
    "did we ever look at the tile cache, the renderer, the fonts and the build flags?",
  );
  scattered.assistant(
    "The quokka module came up once while we were reading the renderer, the fonts, the build " +
      "flags, the cache layout, the shader list and the tests that cover the tile paths.",
  );
  scattered.assistant(
    "Separately, a zebra pattern shows in the debug overlay when the cache, the fonts, the " +
      "renderer, the shader list and the build flags all change in the same run of the tests.",
  );
  await put(w, scattered);
  // the common words alone, and sessions about something else
  for (let n = 3; n <= 8; n++) {
    const t = session(n, n);
    if (n <= 6) {
      t.user("did we push the release notes?");
      t.assistant("we did, yesterday");
    } else {
      t.user("bump the version");
      t.assistant("bumped to 1.4.2");
    }
    await put(w, t);
  }
  await ingest(w);
  const id = w.ids();

  const q = ["search", "did", "we", "quokka", "zebra"];
  assert.equal(hitsOf(await w.json([...q, "--strict"], at)).length, 0, "no turn holds them all");
  const hits = marked(hitsOf(await w.json(q, at)));
  const sessions = hits.filter((h) => h.match === "all_words_session");
  // the target lacks only words five sessions of eight say: it holds every word that tells
  // sessions apart, so it is among the sessions, shown by its commit, before any turn that
  // holds only some of the words
  const mine = sessions.find((h) => h.session_key.startsWith("11111111"));
  assert.ok(mine, `the target among the sessions: ${JSON.stringify(hits.map((h) => h.match))}`);
  assert.ok([id.get(commit), id.get(result)].includes(mine.turn_id), "shown by the commit");
  assert.ok(sessions.some((h) => h.session_key.startsWith("22222222")), "and the one saying all");
  const firstAny = hits.findIndex((h) => h.match === "any_word");
  assert.ok(firstAny === -1 || hits.indexOf(mine) < firstAny);
  // a session holding only the words most sessions say is not one that holds every word
  assert.ok(!sessions.some((h) => /^[3-8]{8}/.test(h.session_key)));
});

Deno.test("search: a definition ranks above 20 newer mentions", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const def = new Transcript({
    sessionId: "12121212-0000-4000-8000-000000000001",
    cwd: alpha,
    start: "2026-01-01T10:00:00.000Z",
  });
  def.user("write the planner module");
  const write = def.toolUse("Write", {
    file_path: join(alpha, "src/plan/graph.py"),
    content: [
      "import heapq",
      "",
      "class GraphPlanner:",
      '    """Orders the steps of a plan by their dependencies, cheapest first."""',
      "",
      "    def __init__(self, steps):",
      "        self.steps = steps",
      "",
      "    def order(self):",
      "        return sorted(self.steps, key=lambda s: s.cost)",
      "",
    ].join("\n"),
  });
  def.toolResult("File created successfully");
  await put(w, def);
  for (let i = 0; i < 20; i++) {
    const m = new Transcript({
      sessionId: `34343434-0000-4000-8000-${String(i).padStart(12, "0")}`,
      cwd: alpha,
      start: `2026-01-${String(2 + i).padStart(2, "0")}T10:00:00.000Z`,
    });
    m.user(`GraphPlanner again ${i}`);
    // a mention that is a stored symbol too (a Bash line's identifier), short and newer
    m.toolUse("Bash", { command: `rg GraphPlanner src/plan` });
    m.toolResult(`src/plan/run.py:${i}: GraphPlanner(steps).order()`);
    m.assistant(`GraphPlanner is used here, see GraphPlanner`);
    await put(w, m);
  }
  await ingest(w);
  const id = w.ids();
  for (const extra of [[], ["--strict"]]) {
    const hits = marked(hitsOf(await w.json(["search", "GraphPlanner", ...extra], { cwd: alpha })));
    assert.equal(hits[0].turn_id, id.get(write), JSON.stringify(hits.slice(0, 3)));
    assert.ok(
      hits[0].matched_on.some((m) => m.kind === "symbol" && m.value === "GraphPlanner"),
      "the definition is a stored symbol",
    );
  }
});

Deno.test("the any-word pool keeps the highest sums, the higher id first among equals, as a full sort would", () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const size of [0, 1, 49, 50, 51, 3_000]) {
    const sum = new Map<number, number>();
    // few distinct sums, as a handful of words' idf make: many ties for the id to break
    const idf = [0.5, 1.25, 2, 3.75];
    for (let i = 0; i < size; i++) {
      sum.set(Math.floor(next() * 1e6), idf[Math.floor(next() * idf.length)] * (1 + (i % 3)));
    }
    const sorted = [...sum.entries()].sort((x, y) => y[1] - x[1] || y[0] - x[0])
      .slice(0, 50).map(([id]) => id);
    assert.deepEqual(bestIds(sum, 50), sorted, `${sum.size} sums`);
  }
});
