/**
 * Retention: the rule inside the whole-tree pass, and `terminus retention --dry-run`, which
 * shares its evaluation. Transcripts dated 2025-01-01 are due under any age a test sets.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  appendTo,
  cliOk,
  exists,
  query,
  runCli,
  type Sandbox,
  sandbox,
  writeConfig,
  writeTranscript,
} from "./helpers.ts";
import { data, OLD, turns } from "./maint_helpers.ts";
import { DAY_MS, RETENTION_PER_PASS } from "../core/constants.ts";

interface Plan {
  cutoff: string | null;
  evict: string[];
  delete: string[];
  over: number;
  excluded: number;
}

const P = "/nonexistent/terminus-retention";
const id = (n: number) => `00000000-0000-4000-8000-${n.toString().padStart(12, "0")}`;

async function dryRun(sb: Sandbox): Promise<{ plan: Plan; reason: string | null }> {
  const r = await cliOk(sb, ["retention", "--dry-run", "--json"]);
  assert.equal(r.err, "", "a clean --json run writes nothing to stderr");
  const env = JSON.parse(r.out);
  return { plan: data<Plan>(r.out), reason: env.reason };
}

interface MetaRow {
  session_no: number;
  session_key: string;
  is_evicted: number;
  blocks: number;
  turns: number;
  offset: number | null;
  observed: number;
}

function meta(sb: Sandbox, key: string): MetaRow | undefined {
  return query<MetaRow>(
    sb.store,
    `SELECT s.session_no, s.session_key, m.is_evicted,
       (SELECT count(*) FROM blocks b WHERE b.session_no = s.session_no) AS blocks,
       (SELECT count(*) FROM turns t WHERE t.session_no = s.session_no) AS turns,
       (SELECT offset FROM watermarks w WHERE w.session_no = s.session_no) AS offset,
       (SELECT count(*) FROM observations o WHERE o.session_no = s.session_no) AS observed
     FROM sessions s JOIN session_meta m USING (session_no) WHERE s.session_key = ?`,
    key,
  )[0];
}

function lastNotes(sb: Sandbox): string {
  return query<{ notes: string | null }>(
    sb.store,
    "SELECT notes FROM runs ORDER BY id DESC LIMIT 1",
  )[0]
    .notes ?? "";
}

Deno.test("retention with no store: an empty answer with a reason, and nothing created", async () => {
  await using sb = await sandbox();
  const r = await cliOk(sb, ["retention", "--json"]);
  const env = JSON.parse(r.out);
  assert.deepEqual(env.data, { cutoff: null, delete: [], evict: [], excluded: 0, over: 0 });
  assert.equal(env.ok, true);
  assert.match(env.reason, /no store/);
  assert.equal(await exists(sb.data), false, "no data directory made by asking");
});

Deno.test("retention is off by default: the dry-run says no rule selects anything, and a pass keeps every byte", async () => {
  await using sb = await sandbox();
  await writeTranscript(
    sb.claude,
    `${P}/a`,
    `${id(1)}.jsonl`,
    turns({ sessionId: id(1), cwd: `${P}/a`, at: OLD }),
  );
  await cliOk(sb, ["ingest"]);
  const { plan, reason } = await dryRun(sb);
  assert.deepEqual(plan.evict, []);
  assert.deepEqual(plan.delete, []);
  assert.ok(plan.cutoff && !Number.isNaN(Date.parse(plan.cutoff)), "the instant is reported");
  assert.match(reason ?? "", /no \[retention\] rule selects anything/);
  const m = meta(sb, `${id(1)}.jsonl`)!;
  assert.equal(m.is_evicted, 0);
  assert.ok(m.blocks > 0);
});

Deno.test("a rule with only one key set does nothing", async () => {
  await using sb = await sandbox();
  await writeTranscript(
    sb.claude,
    `${P}/a`,
    `${id(1)}.jsonl`,
    turns({ sessionId: id(1), cwd: `${P}/a`, at: OLD }),
  );
  await writeConfig(sb, `[retention]\naction = "evict"\n`);
  await cliOk(sb, ["ingest"]);
  assert.match((await dryRun(sb)).reason ?? "", /no \[retention\] rule selects anything/);
  await writeConfig(sb, `[retention]\nage_days = 30\n`);
  await cliOk(sb, ["ingest"]);
  assert.equal(meta(sb, `${id(1)}.jsonl`)!.is_evicted, 0);
});

Deno.test("evict drops a closed, old session's blocks and keeps its rows, observation and watermark; new bytes are not appended", async () => {
  await using sb = await sandbox();
  const cwd = `${P}/evict`;
  const old = await writeTranscript(
    sb.claude,
    cwd,
    `${id(1)}.jsonl`,
    turns({ sessionId: id(1), cwd, at: OLD, pairs: 3, marker: "zebracorn" }),
  );
  // closed but younger than the rule
  await writeTranscript(
    sb.claude,
    cwd,
    `${id(2)}.jsonl`,
    turns({ sessionId: id(2), cwd, at: new Date(Date.now() - 2 * DAY_MS) }),
  );
  // still open: its last turn is minutes old, however the rule reads
  await writeTranscript(
    sb.claude,
    cwd,
    `${id(3)}.jsonl`,
    turns({ sessionId: id(3), cwd, at: new Date(Date.now() - 60_000) }),
  );
  await writeConfig(sb, `[retention]\naction = "evict"\nage_days = 30\n`);
  await cliOk(sb, ["ingest"]);

  const a = meta(sb, `${id(1)}.jsonl`)!;
  assert.equal(a.is_evicted, 1, "the old session is evicted");
  assert.equal(a.blocks, 0, "its blocks are gone");
  assert.equal(a.turns, 6, "its turn rows stay");
  assert.equal(a.observed, 1, "its observation stays");
  const size = (await Deno.stat(old)).size;
  assert.equal(a.offset, size, "its watermark stays where the transcript ended");
  for (const k of [2, 3]) {
    const m = meta(sb, `${id(k)}.jsonl`)!;
    assert.equal(m.is_evicted, 0, `session ${k} is kept`);
    assert.ok(m.blocks > 0);
  }
  assert.match(lastNotes(sb), /retention evicted 1 session\(s\)/);

  const sessions = data<{ sessions: { session_key: string; evicted: boolean }[] }>(
    (await cliOk(sb, ["sessions", "--project", "*", "--json"])).out,
  ).sessions;
  assert.equal(sessions.find((s) => s.session_key === `${id(1)}.jsonl`)?.evicted, true);
  const hits = data<{ hits: { session_key: string; excerpt: string }[] }>(
    (await cliOk(sb, ["search", "zebracorn", "--project", "*", "--json"])).out,
  ).hits;
  assert.ok(hits.length > 0, "its search rows stay");
  assert.ok(hits.every((h) => h.excerpt === ""), "its excerpts are empty");
  await cliOk(sb, ["verify"]);

  // the transcript grows: an evicted stream is never appended to
  await appendTo(old, turns({ sessionId: id(1), cwd, at: OLD, marker: "later" }));
  await cliOk(sb, ["ingest"]);
  const after = meta(sb, `${id(1)}.jsonl`)!;
  assert.equal(after.blocks, 0);
  assert.equal(after.turns, 6);
  assert.equal(after.offset, size);
  await cliOk(sb, ["verify"]);
});

Deno.test("delete waits for the transcript to be gone, then removes the session and all that hangs off it; a subagent's removes no prompts", async () => {
  await using sb = await sandbox();
  const cwd = `${P}/delete`;
  const parent = await writeTranscript(
    sb.claude,
    cwd,
    `${id(1)}.jsonl`,
    turns({ sessionId: id(1), cwd, at: OLD, marker: "quokkaphrase" }),
  );
  const agentKey = `${id(1)}/subagents/agent-a1.jsonl`;
  const agent = await writeTranscript(
    sb.claude,
    cwd,
    agentKey,
    turns({ sessionId: id(1), cwd, at: OLD }),
  );
  await writeTranscript(
    sb.claude,
    cwd,
    `${id(2)}.jsonl`,
    turns({ sessionId: id(2), cwd, at: OLD }),
  );
  await writeConfig(sb, `[retention]\naction = "delete"\nage_days = 30\n`);
  await cliOk(sb, ["ingest"]);

  // every transcript is still on disk: nothing is due, however old
  const first = await dryRun(sb);
  assert.deepEqual(first.plan.delete, []);
  assert.match(first.reason ?? "", /nothing due/);
  const human = await cliOk(sb, ["retention", "--dry-run"]);
  assert.match(human.err, /3 session\(s\) due for delete wait for their transcript to be gone/);
  assert.equal(query(sb.store, "SELECT 1 FROM sessions").length, 3);

  // the injection log's prompts and labels, as the hooks would have left them
  const db = new DatabaseSync(sb.store);
  const turnOf = (key: string) =>
    (db.prepare(
      "SELECT t.id FROM turns t JOIN sessions s USING (session_no) WHERE s.session_key = ? LIMIT 1",
    ).get(key) as { id: number }).id;
  for (const sid of [id(1), id(2)]) {
    const d = db.prepare("INSERT INTO decisions (session_id, labelled, doc) VALUES (?, 1, '{}')")
      .run(sid);
    db.prepare("INSERT INTO labels (decision_id, turn_id, label) VALUES (?, ?, 'hit')").run(
      d.lastInsertRowid,
      turnOf(`${id(2)}.jsonl`),
    );
  }
  db.close();
  const prompts = (sid: string) =>
    query(sb.store, "SELECT 1 FROM decisions WHERE session_id = ?", sid).length;
  const labels = (sid: string) =>
    query(
      sb.store,
      "SELECT 1 FROM labels WHERE decision_id IN (SELECT id FROM decisions WHERE session_id = ?)",
      sid,
    ).length;

  // the subagent's transcript goes first: it reports its parent's id, so no prompt goes
  await Deno.remove(agent);
  assert.deepEqual((await dryRun(sb)).plan.delete, [agentKey]);
  await cliOk(sb, ["ingest"]);
  assert.equal(meta(sb, agentKey), undefined, "the subagent's session is gone");
  assert.equal(prompts(id(1)), 1, "its parent's prompts stay");
  assert.match(lastNotes(sb), /retention deleted 1 session\(s\) and 0 logged prompt\(s\)/);

  const parentNo = meta(sb, `${id(1)}.jsonl`)!.session_no;
  await Deno.remove(parent);
  assert.deepEqual((await dryRun(sb)).plan.delete, [`${id(1)}.jsonl`]);
  await cliOk(sb, ["ingest"]);
  assert.equal(meta(sb, `${id(1)}.jsonl`), undefined, "the parent's session is gone");
  for (const t of ["blocks", "observations", "watermarks", "session_meta", "turns"]) {
    assert.equal(
      query(sb.store, `SELECT 1 FROM ${t} WHERE session_no = ?`, parentNo).length,
      0,
      `no ${t} row is left`,
    );
  }
  assert.equal(prompts(id(1)), 0, "the parent's prompts are gone");
  assert.equal(labels(id(1)), 0, "and their labels");
  assert.equal(prompts(id(2)), 1, "another session's prompts stay");
  assert.equal(labels(id(2)), 1);
  const hits = data<{ hits: unknown[] }>(
    (await cliOk(sb, ["search", "quokkaphrase", "--project", "*", "--json"])).out,
  ).hits;
  assert.deepEqual(hits, [], "no search hit is left");
  assert.ok(meta(sb, `${id(2)}.jsonl`), "the session whose transcript is on disk stays");
  await cliOk(sb, ["verify"]);
});

Deno.test("a per-project table replaces the global rule whole, and the longest path wins", async () => {
  await using sb = await sandbox();
  const dirs = [`${P}/global`, `${P}/kept`, `${P}/kept/deep`];
  for (const [i, cwd] of dirs.entries()) {
    await writeTranscript(
      sb.claude,
      cwd,
      `${id(i + 1)}.jsonl`,
      turns({ sessionId: id(i + 1), cwd, at: OLD }),
    );
  }
  await writeConfig(
    sb,
    [
      `[retention]`,
      `action = "evict"`,
      `age_days = 30`,
      // age_days left out is 0, not the global 30: this table turns retention off here
      `[retention.project."${P}/kept"]`,
      `action = "evict"`,
      `[retention.project."${P}/kept/deep"]`,
      `action = "evict"`,
      `age_days = 10`,
    ].join("\n") + "\n",
  );
  await cliOk(sb, ["ingest"]);
  assert.equal(
    meta(sb, `${id(1)}.jsonl`)!.is_evicted,
    1,
    "the global rule applies outside the tables",
  );
  assert.equal(
    meta(sb, `${id(2)}.jsonl`)!.is_evicted,
    0,
    "a table with one key replaces the global rule",
  );
  assert.equal(meta(sb, `${id(3)}.jsonl`)!.is_evicted, 1, "the longer path's table wins");
});

Deno.test("the per-pass cap carries the rest to the next pass, and the dry-run names exactly what that pass does", async () => {
  await using sb = await sandbox();
  const total = RETENTION_PER_PASS + 5;
  const cwd = `${P}/many`;
  for (let i = 0; i < total; i++) {
    // distinct days, so "oldest first" has one answer
    const at = new Date(OLD.getTime() + i * DAY_MS);
    await writeTranscript(
      sb.claude,
      cwd,
      `${id(i + 1)}.jsonl`,
      turns({ sessionId: id(i + 1), cwd, at }),
    );
  }
  await cliOk(sb, ["ingest"]);
  await writeConfig(sb, `[retention]\naction = "evict"\nage_days = 30\n`);

  const first = (await dryRun(sb)).plan;
  assert.equal(first.evict.length, RETENTION_PER_PASS);
  assert.equal(first.over, 5);
  assert.deepEqual(
    first.evict,
    Array.from({ length: RETENTION_PER_PASS }, (_, i) => `${id(i + 1)}.jsonl`),
    "oldest first",
  );
  await cliOk(sb, ["ingest"]);
  const evicted = () =>
    query<{ session_key: string }>(
      sb.store,
      `SELECT s.session_key FROM sessions s JOIN session_meta m USING (session_no)
       WHERE m.is_evicted = 1 ORDER BY m.last_turn_at`,
    ).map((r) => r.session_key);
  assert.deepEqual(evicted(), first.evict, "the pass evicted exactly what the dry-run named");
  assert.match(lastNotes(sb), /5 session\(s\) over the per-pass retention limit/);

  const second = (await dryRun(sb)).plan;
  assert.equal(second.evict.length, 5);
  assert.equal(second.over, 0);
  await cliOk(sb, ["ingest"]);
  assert.deepEqual(evicted(), [...first.evict, ...second.evict]);
  const last = await dryRun(sb);
  assert.deepEqual(last.plan.evict, []);
  assert.match(last.reason ?? "", /nothing due/);
});

Deno.test("sessions in excluded projects are passed over and counted, never named or touched", async () => {
  await using sb = await sandbox();
  const secret = `${P}/secret`;
  await writeTranscript(
    sb.claude,
    secret,
    `${id(1)}.jsonl`,
    turns({ sessionId: id(1), cwd: secret, at: OLD }),
  );
  await writeTranscript(
    sb.claude,
    `${P}/open`,
    `${id(2)}.jsonl`,
    turns({ sessionId: id(2), cwd: `${P}/open`, at: OLD }),
  );
  await cliOk(sb, ["ingest"]);
  await writeConfig(sb, `exclude = ["${secret}"]\n[retention]\naction = "evict"\nage_days = 30\n`);
  const { plan } = await dryRun(sb);
  assert.deepEqual(plan.evict, [`${id(2)}.jsonl`]);
  assert.equal(plan.excluded, 1);
  const human = await cliOk(sb, ["retention"]);
  assert.match(human.err, /1 in excluded projects passed over/);
  assert.doesNotMatch(human.out, new RegExp(id(1)));
  await cliOk(sb, ["ingest"]);
  assert.equal(meta(sb, `${id(1)}.jsonl`)!.is_evicted, 0, "the excluded session is untouched");
  assert.ok(meta(sb, `${id(1)}.jsonl`)!.blocks > 0);
  assert.equal(meta(sb, `${id(2)}.jsonl`)!.is_evicted, 1);
  assert.match(lastNotes(sb), /passed over 1 session\(s\) in excluded projects/);
});

Deno.test("retention --dry-run changes nothing in the store", async () => {
  await using sb = await sandbox();
  await writeTranscript(
    sb.claude,
    `${P}/a`,
    `${id(1)}.jsonl`,
    turns({ sessionId: id(1), cwd: `${P}/a`, at: OLD }),
  );
  await cliOk(sb, ["ingest"]);
  await writeConfig(sb, `[retention]\naction = "evict"\nage_days = 30\n`);
  const before = await Deno.readFile(sb.store);
  const { plan } = await dryRun(sb);
  assert.deepEqual(plan.evict, [`${id(1)}.jsonl`]);
  await cliOk(sb, ["retention"]);
  assert.deepEqual(await Deno.readFile(sb.store), before, "terminus.db is byte for byte as it was");
  assert.equal(meta(sb, `${id(1)}.jsonl`)!.is_evicted, 0);
  const r = await runCli(sb, ["retention", "--json", "extra"]);
  assert.equal(r.code, 2, "a stray argument is misuse");
  assert.equal(r.out, "");
});
