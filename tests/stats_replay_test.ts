/**
 * The injection log: decision files in the queue (written here in the hook's own format),
 * drained by the pass, labelled once their session has closed, counted by `terminus stats`
 * and re-scored by `terminus replay`, which must leave the store byte for byte as it was.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  cliOk,
  exists,
  parseEnvelope,
  query,
  runCli,
  type Sandbox,
  writeConfig,
} from "./helpers.ts";
import {
  ALPHA,
  daysAgo,
  hookSandbox,
  ingestSettled,
  jsonData,
  queueDir,
  Session,
  sid,
  turnIdOf,
} from "./inject_helpers.ts";
import type { DecisionDoc } from "../core/inject/queue.ts";
import { THRESHOLDS } from "../core/inject/thresholds.ts";

const X = sid(0x71); // a closed session that got injections
const Y = sid(0x72); // a session still open

interface World {
  readCall: number;
  notesCall: number;
  /** When session X started; its decisions are logged a minute or so later. */
  t0: number;
  yAt: number;
}

/**
 * Session A (five days ago) read src/worker/S.ts and docs/NOTES.md. Session X (three days
 * ago, so closed) went on to edit S.ts and to ask recall_search for retryBudget. Session Y's
 * last turn is an hour old, so it is still open.
 */
async function world(sb: Sandbox): Promise<World> {
  const a = new Session(sid(0x70), ALPHA, daysAgo(5));
  a.user("look at src/worker/S.ts and the notes");
  const [readCall] = a.read(`${ALPHA}/src/worker/S.ts`, "export const retryBudget = 3;");
  const [notesCall] = a.read(`${ALPHA}/docs/NOTES.md`, "# Notes");
  a.assistant("Both read.");
  await a.write(sb);

  const t0 = Date.parse(daysAgo(3));
  const x = new Session(X, ALPHA, new Date(t0).toISOString());
  x.user("start");
  x.at(new Date(t0 + 300_000).toISOString());
  x.tool("Edit", {
    file_path: `${ALPHA}/src/worker/S.ts`,
    old_string: "retryBudget = 3",
    new_string: "retryBudget = 5",
  });
  x.result("edited", { filePath: `${ALPHA}/src/worker/S.ts`, oldString: "3", newString: "5" });
  x.tool("mcp__terminus__recall_search", { query: "retryBudget" });
  x.result('{"hits":[]}');
  x.assistant("Raised it.");
  await x.write(sb);

  const yAt = Date.now() - 3_600_000;
  const y = new Session(Y, ALPHA, new Date(yAt).toISOString());
  y.user("a session still going");
  y.assistant("still here");
  await y.write(sb);

  await ingestSettled(sb);
  return {
    readCall: turnIdOf(sb, readCall),
    notesCall: turnIdOf(sb, notesCall),
    t0,
    yAt,
  };
}

let seq = 0;

/** Queues a decision as the hook would: one JSON file, named so the queue sorts by time. */
async function queueDecision(
  sb: Sandbox,
  d: Partial<DecisionDoc> & { session_id: string; at: string },
  drop: (keyof DecisionDoc)[] = [],
): Promise<string> {
  const maxId = query<{ n: number }>(sb.store, "SELECT max(id) AS n FROM turns")[0].n;
  const doc: Record<string, unknown> = {
    cwd: ALPHA,
    project: ALPHA,
    prompt: "a prompt",
    spellings: [],
    candidates: [],
    injected: [],
    suppressed: [],
    compacted: false,
    dropped: 0,
    thresholds: { ...THRESHOLDS },
    watermark: maxId,
    note: null,
    ...d,
  };
  for (const k of drop) delete doc[k];
  await Deno.mkdir(queueDir(sb), { recursive: true });
  const name = `${String(Date.parse(d.at)).padStart(15, "0")}-${
    String(seq++).padStart(4, "0")
  }.json`;
  await Deno.writeTextFile(join(queueDir(sb), name), JSON.stringify(doc));
  return name;
}

const iso = (ms: number) => new Date(ms).toISOString();

async function sha256(path: string): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return new Uint8Array(d).toHex();
}

interface Labels {
  decision: string;
  turn_id: number | null;
  label: string;
  chars: number;
}

function labels(sb: Sandbox): Labels[] {
  return query<Labels>(
    sb.store,
    `SELECT d.queue_name AS decision, l.turn_id, l.label, l.chars FROM labels l
     JOIN decisions d ON d.id = l.decision_id ORDER BY d.id, l.rowid`,
  );
}

function decisionIds(sb: Sandbox): Map<string, number> {
  return new Map(
    query<{ id: number; q: string }>(sb.store, "SELECT id, queue_name AS q FROM decisions").map((
      r,
    ) => [r.q, r.id]),
  );
}

const STATS_KEYS = [
  "chars_injected",
  "chars_referenced",
  "compacted_decisions",
  "decisions",
  "false_positives",
  "hits",
  "injected_turns",
  "misses",
  "ordinary_decisions",
  "precision",
  "wasted_budget",
];

Deno.test("stats and labels: hit, false positive, miss and wasted budget, written once at close and never revised", async () => {
  await using sb = await hookSandbox();
  const w = await world(sb);

  // nothing logged: every count zero, precision null
  const zero = await jsonData(sb, ["stats"]);
  assert.deepEqual(Object.keys(zero), STATS_KEYS);
  for (const k of STATS_KEYS) assert.equal(zero[k], k === "precision" ? null : 0, k);

  // a decision in the open session: logged and counted, never labelled while it is open
  const d5 = await queueDecision(sb, {
    session_id: Y,
    at: iso(w.yAt + 1_500),
    spellings: [`${ALPHA}/src/worker/S.ts`],
    injected: [{ id: w.readCall, chars: 40 }],
    compacted: true,
  });
  await ingestSettled(sb);
  assert.deepEqual([...Deno.readDirSync(queueDir(sb))], [], "the queue was drained");
  const open = await jsonData(sb, ["stats"]);
  assert.equal(open.decisions, 1);
  assert.equal(open.compacted_decisions, 1);
  assert.equal(open.injected_turns, 1);
  assert.equal(open.chars_injected, 40);
  assert.equal(open.hits, 0);
  assert.equal(open.false_positives, 0);
  assert.equal(open.precision, null, "nothing labelled: precision is null, not 0");
  assert.deepEqual(labels(sb), []);

  // decisions in the closed session X
  const d1 = await queueDecision(sb, {
    session_id: X,
    at: iso(w.t0 + 60_000),
    prompt: "why does src/worker/S.ts retry",
    spellings: [`${ALPHA}/src/worker/S.ts`],
    injected: [{ id: w.readCall, chars: 70 }],
  });
  const d2 = await queueDecision(sb, {
    session_id: X,
    at: iso(w.t0 + 120_000),
    prompt: "what is in docs/NOTES.md",
    spellings: [`${ALPHA}/docs/NOTES.md`],
    injected: [{ id: w.notesCall, chars: 50 }],
  });
  const d3 = await queueDecision(sb, {
    session_id: X,
    at: iso(w.t0 + 180_000),
    prompt: "where is retryBudget set",
    spellings: ["retryBudget"],
  });
  const d4 = await queueDecision(sb, {
    session_id: X,
    at: iso(w.t0 + 200_000),
    prompt: "tidy the wording",
    note: "the prompt names no path or identifier",
  });
  // logged by a build that did not record whether the prompt followed a compaction
  const d6 = await queueDecision(sb, { session_id: X, at: iso(w.t0 + 210_000) }, ["compacted"]);
  await ingestSettled(sb);

  assert.deepEqual(labels(sb), [
    { decision: d1, turn_id: w.readCall, label: "hit", chars: 70 },
    { decision: d2, turn_id: w.notesCall, label: "false positive", chars: 50 },
    { decision: d2, turn_id: null, label: "wasted budget", chars: 50 },
    { decision: d3, turn_id: null, label: "miss", chars: 0 },
  ]);
  for (const d of [d4, d6, d5]) assert.ok(!labels(sb).some((l) => l.decision === d));
  const stats = await jsonData(sb, ["stats"]);
  assert.deepEqual(stats, {
    chars_injected: 160,
    chars_referenced: 70,
    compacted_decisions: 1,
    decisions: 6,
    false_positives: 1,
    hits: 1,
    injected_turns: 3,
    misses: 1,
    ordinary_decisions: 4,
    precision: 0.5,
    wasted_budget: 1,
  });
  const human = await cliOk(sb, ["stats"]);
  assert.deepEqual(
    human.out.trimEnd().split("\n").map((l) => l.replace(/\s{2,}\S+$/, "").trim()),
    [
      "decisions",
      "compacted",
      "ordinary",
      "injected turns",
      "hits",
      "false positives",
      "precision",
      "misses",
      "wasted budget",
      "chars injected",
      "chars referenced",
    ],
  );
  assert.match(human.out, /^precision\s+0\.50$/m);

  // never revised: X later reads the notes (which would make d2 a hit) and passes run again
  const labelled = labels(sb);
  const xPath = join(sb.claude, "projects", ALPHA.replace(/[^A-Za-z0-9]/g, "-"), `${X}.jsonl`);
  const more = new Session(X, ALPHA, iso(w.t0 + 900_000));
  more.read(`${ALPHA}/docs/NOTES.md`, "# Notes");
  await Deno.writeTextFile(xPath, more.text(), { append: true });
  await ingestSettled(sb);
  await ingestSettled(sb);
  assert.ok(
    query<{ n: number }>(
      sb.store,
      "SELECT count(*) AS n FROM turns t JOIN session_meta m ON m.session_no = t.session_no WHERE m.session_id = ?",
      X,
    )[0].n >= 7,
    "the appended turn was archived",
  );
  assert.deepEqual(labels(sb), labelled, "a label was revised");
  assert.deepEqual(decisionIds(sb).size, 6);
});

Deno.test("replay: shape, thresholds echoed, labels in order, --max-turns 0 turns injection off, and the store is untouched", async () => {
  await using sb = await hookSandbox();

  // no store: the empty answer still echoes the thresholds
  const none = parseEnvelope((await cliOk(sb, ["replay", "--max-turns", "2", "--json"])).out);
  assert.equal(none.ok, true);
  assert.deepEqual(none.data, {
    changed: [],
    decisions: 0,
    labels: [],
    thresholds: { ...THRESHOLDS, max_turns: 2 },
  });
  assert.equal(await exists(sb.data), false, "replay created the data directory");

  const w = await world(sb);
  // a store with an empty decision log: all four labels, at 0
  const empty = await jsonData(sb, ["replay"]);
  assert.deepEqual(empty, {
    changed: [],
    decisions: 0,
    labels: [
      { label: "hit", new: 0, old: 0 },
      { label: "false positive", new: 0, old: 0 },
      { label: "miss", new: 0, old: 0 },
      { label: "wasted budget", new: 0, old: 0 },
    ],
    thresholds: { ...THRESHOLDS },
  });

  const d1 = await queueDecision(sb, {
    session_id: X,
    at: iso(w.t0 + 60_000),
    spellings: [`${ALPHA}/src/worker/S.ts`],
    injected: [{ id: w.readCall, chars: 70 }],
  });
  const d2 = await queueDecision(sb, {
    session_id: X,
    at: iso(w.t0 + 120_000),
    spellings: [`${ALPHA}/docs/NOTES.md`],
    injected: [{ id: w.notesCall, chars: 50 }],
  });
  await queueDecision(sb, { session_id: X, at: iso(w.t0 + 180_000), spellings: ["retryBudget"] });
  await queueDecision(sb, { session_id: X, at: iso(w.t0 + 200_000) });
  await queueDecision(sb, {
    session_id: Y,
    at: iso(w.yAt + 1_500),
    spellings: [`${ALPHA}/src/worker/S.ts`],
    injected: [{ id: w.readCall, chars: 40 }],
  });
  await ingestSettled(sb);
  const ids = decisionIds(sb);

  const db = sb.store;
  const before = await sha256(db);
  const wal = `${db}-wal`;
  const walBefore = (await exists(wal)) ? (await Deno.stat(wal)).size : 0;

  const same = await jsonData(sb, ["replay"]);
  assert.deepEqual(Object.keys(same), ["changed", "decisions", "labels", "thresholds"]);
  assert.deepEqual(same.thresholds, { ...THRESHOLDS });
  assert.equal(same.decisions, 4, "the closed sessions' decisions, not the open one's");
  assert.deepEqual(same.labels, [
    { label: "hit", new: 1, old: 1 },
    { label: "false positive", new: 1, old: 1 },
    { label: "miss", new: 1, old: 1 },
    { label: "wasted budget", new: 1, old: 1 },
  ]);
  assert.deepEqual(same.changed, [], "the compiled-in thresholds reproduce the labels");

  const off = await jsonData(sb, ["replay", "--max-turns", "0"]);
  assert.deepEqual(off.thresholds, { ...THRESHOLDS, max_turns: 0 });
  assert.deepEqual(off.labels, [
    { label: "hit", new: 0, old: 1 },
    { label: "false positive", new: 0, old: 1 },
    { label: "miss", new: 1, old: 1 },
    { label: "wasted budget", new: 0, old: 1 },
  ]);
  assert.deepEqual(off.changed, [ids.get(d1), ids.get(d2)].sort((a, b) => a! - b!));

  const moved = await jsonData(sb, [
    "replay",
    "--ranked",
    "20",
    "--compacted-ranked",
    "40",
    "--entity-rank",
    "1",
    "--co-occurring",
    "3",
    "--max-turns",
    "1",
    "--max-candidates",
    "4",
  ]);
  assert.deepEqual(moved.thresholds, {
    ranked: 20,
    compacted_ranked: 40,
    entity_rank: 1,
    co_occurring: 3,
    max_turns: 1,
    max_candidates: 4,
  });

  const human = await cliOk(sb, ["replay", "--max-turns", "0"]);
  assert.match(human.out, /^decisions\s+4$/m);
  assert.match(human.out, /^hit\s+1 -> 0$/m);
  assert.match(human.out, /^false positive\s+1 -> 0$/m);
  assert.match(human.out, /^miss\s+1 -> 1$/m);
  assert.match(human.out, /^wasted budget\s+1 -> 0$/m);
  assert.match(human.out, /^changed\s+2 decision\(s\)$/m);

  // read-only: the database file is byte for byte what it was, and the WAL took no frame
  assert.equal(await sha256(db), before);
  const walAfter = (await exists(wal)) ? (await Deno.stat(wal)).size : 0;
  assert.equal(walAfter, walBefore);
  assert.equal(walAfter, 0);

  // a project excluded since: its logged prompts stay counted, and replay scores them as
  // injecting nothing
  await writeConfig(sb, `exclude = ["${ALPHA}"]\n`);
  assert.equal((await jsonData(sb, ["stats"])).decisions, 5);
  const excluded = await jsonData(sb, ["replay"]);
  assert.deepEqual(excluded.labels, [
    { label: "hit", new: 0, old: 1 },
    { label: "false positive", new: 0, old: 1 },
    { label: "miss", new: 1, old: 1 },
    { label: "wasted budget", new: 0, old: 1 },
  ]);
  assert.equal(await sha256(db), before);
});

Deno.test("stats and replay: flag misuse exits 2 with nothing on stdout", async () => {
  await using sb = await hookSandbox();
  const misuse = [
    ["replay", "--max-turns", "-1"],
    ["replay", "--max-turns", "x"],
    ["replay", "--ranked", "1.5"],
    ["replay", "--entity-rank", ""],
    ["replay", "--max-turns"],
    ["replay", "--bogus", "3"],
    ["replay", "extra"],
    ["replay", "--json", "--co-occurring", "two"],
    ["stats", "--max-turns", "3"],
    ["stats", "extra"],
    ["stats", "--json", "--raw"],
  ];
  for (const args of misuse) {
    const r = await runCli(sb, args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}${r.err}`);
    assert.equal(r.out, "", args.join(" "));
    assert.notEqual(r.err, "");
  }
});
