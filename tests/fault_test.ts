/**
 * Faults found by an audit of the recovery paths (issue 10), each done for real against a real
 * store: a block whose bytes are wrong, blocks lost from a session's tail, a closed session
 * resumed into the same file, a pass killed or failing a step.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  assertArchiveEqualsFiles,
  bigTree,
  cliCommand,
  cliOk,
  parseEnvelope,
  query,
  runCli,
  sandbox,
  writeConfig,
} from "./helpers.ts";
import { type Hit, hitsOf, ingest, put, Transcript, world } from "./read_helpers.ts";
import { compress, decompress, initCodec } from "../core/store/codec.ts";
import { BLOCK_BYTES } from "../core/constants.ts";

const OLD = "2026-01-01T10:00:00.000Z";

/** A session of `n` prompts, each with its own searchable word `<tag><i>`, spanning blocks. */
function longSession(sessionId: string, cwd: string, tag: string, n: number, start = OLD) {
  const t = new Transcript({ sessionId, cwd, start });
  for (let i = 0; i < n; i++) {
    t.user(`prompt ${tag}${i} ` + "ordinary filler words for the block ".repeat(60));
    t.assistant(`reply about ${tag}${i}`);
  }
  return t;
}

function blockOf(offset: number): number {
  return Math.floor(offset / BLOCK_BYTES);
}

Deno.test("reindex checks block hashes: a block with wrong bytes is named, exit 1, and the sound turns stay searchable", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const a = longSession("10101010-0000-4000-8000-000000000001", alpha, "alphaword", 120);
  const b = longSession("10101010-0000-4000-8000-000000000002", alpha, "betaword", 3);
  await put(w, a);
  await put(w, b);
  await ingest(w);
  const at = { cwd: alpha };
  const store = w.sb.store;
  const [{ no, key }] = query<{ no: number; key: string }>(
    store,
    "SELECT session_no AS no, session_key AS key FROM sessions ORDER BY session_no LIMIT 1",
  );
  const blocks =
    query<{ n: number }>(store, "SELECT count(*) AS n FROM blocks WHERE session_no = ?", no)[0].n;
  assert.ok(blocks >= 4, `the long session spans ${blocks} blocks`);
  const turnsBefore = query(store, "SELECT id, stream_offset, byte_len FROM turns ORDER BY id");

  // block 2 of the long session: bytes that decompress, but not the bytes its hash was taken of
  await initCodec();
  const db = new DatabaseSync(store);
  try {
    const row = db.prepare("SELECT bytes FROM blocks WHERE session_no = ? AND block_no = 2").get(
      no,
    ) as { bytes: Uint8Array };
    const raw = decompress(row.bytes).map((c) => (c === 0x6f ? 0x30 : c)); // every 'o' a '0'
    db.prepare("UPDATE blocks SET bytes = ? WHERE session_no = ? AND block_no = 2").run(
      compress(raw),
      no,
    );
  } finally {
    db.close();
  }

  const r = await w.run(["reindex", "--json"], at);
  assert.equal(r.code, 1, "a damaged session makes reindex exit 1");
  const env = parseEnvelope(r.out);
  const doc = env.data as { sessions: number; skipped: { session_key: string; reason: string }[] };
  assert.deepEqual(doc.skipped.map((s) => s.session_key), [key], "the damaged session is named");
  assert.match(doc.skipped[0].reason, /block 2/);
  assert.equal(doc.sessions, 1, "the other session is still rebuilt");
  const human = await w.run(["reindex"], at);
  assert.equal(human.code, 1);
  assert.ok(human.err.includes(key), "stderr names the damaged session");

  // the turns lying wholly in sound blocks keep their rows and stay searchable
  const sound = (turnsBefore as { id: number; stream_offset: number; byte_len: number }[])
    .filter((t) => t.id < (no + 1) * 2 ** 24 && t.id >= no * 2 ** 24)
    .filter((t) => blockOf(t.stream_offset) !== 2 && blockOf(t.stream_offset + t.byte_len) !== 2);
  assert.ok(sound.length > 0);
  assert.deepEqual(
    query(store, "SELECT id, stream_offset, byte_len FROM turns ORDER BY id"),
    turnsBefore,
    "every turn keeps its row",
  );
  const first = hitsOf(await w.json(["search", "alphaword0"], at)) as Hit[];
  assert.ok(first.some((h) => h.session_key === key), "a turn in block 0 is still found");
  const last = hitsOf(await w.json(["search", "alphaword119"], at)) as Hit[];
  assert.ok(last.some((h) => h.session_key === key), "a turn after the damage is still found");
  assert.ok(hitsOf(await w.json(["search", "betaword1"], at)).length > 0);
  // a turn lying in the damaged block keeps its rows, its search rows included (issue 46)
  const inDamage = (turnsBefore as { id: number; stream_offset: number; byte_len: number }[])
    .filter((t) => t.id < (no + 1) * 2 ** 24 && t.id >= no * 2 ** 24)
    .find((t) => blockOf(t.stream_offset) === 2 && blockOf(t.stream_offset + t.byte_len) === 2);
  assert.ok(inDamage, "a turn lies wholly in block 2");
  const word = `alphaword${Math.floor((inDamage.id - no * 2 ** 24) / 2)}`;
  const damagedHits = hitsOf(await w.json(["search", word], at)) as Hit[];
  assert.ok(
    damagedHits.some((h) => h.session_key === key),
    `${word}, in the damaged block, is found`,
  );
});

Deno.test("recovery lowering a watermark does not duplicate turn rows: the re-read tail is indexed once", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = longSession("20202020-0000-4000-8000-000000000001", alpha, "gammaword", 80);
  const file = await put(w, t);
  await ingest(w);
  const store = w.sb.store;
  const clean = query<{ n: number }>(store, "SELECT count(*) AS n FROM turns")[0].n;
  const cleanHits = hitsOf(await w.json(["search", "gammaword79"], { cwd: alpha })).length;
  assert.equal(cleanHits, 2, "the prompt and the reply");

  // the tail blocks are lost, and the session's recorded length says what is left
  const db = new DatabaseSync(store);
  try {
    const last = (db.prepare("SELECT max(block_no) AS b FROM blocks").get() as { b: number }).b;
    assert.ok(last >= 2);
    db.prepare("DELETE FROM blocks WHERE block_no >= ?").run(last - 1);
    db.exec(
      "UPDATE session_meta SET uncompressed_len = (SELECT sum(raw_len) FROM blocks WHERE blocks.session_no = session_meta.session_no)",
    );
  } finally {
    db.close();
  }
  await ingest(w);
  const status = parseEnvelope((await cliOk(w.sb, ["status", "--json"])).out);
  const run = status.data.last_run as { notes: string[] | null; error: string[] | null };
  assert.equal(run.error, null);
  assert.ok(run.notes?.some((n) => /lowered the watermark/.test(n)), JSON.stringify(run.notes));
  await assertArchiveEqualsFiles(store, w.sb.claude, [file]);
  const turns = query<{ n: number; offsets: number }>(
    store,
    "SELECT count(*) AS n, count(DISTINCT stream_offset) AS offsets FROM turns",
  )[0];
  assert.equal(turns.offsets, turns.n, "one row per turn offset");
  assert.equal(turns.n, clean, "as many turn rows as a clean ingest");
  assert.equal(
    query<{ n: number }>(store, "SELECT turn_count AS n FROM session_meta")[0].n,
    clean,
  );
  assert.equal(
    hitsOf(await w.json(["search", "gammaword79"], { cwd: alpha })).length,
    cleanHits,
    "search returns each hit once",
  );
  const v = parseEnvelope((await cliOk(w.sb, ["verify", "--json"])).out);
  assert.deepEqual(v.data.failures, []);
});

Deno.test("a closed session resumed into the same file reopens, closes again, and is observed afresh", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const sessions = ["30303030-0000-4000-8000-000000000001", "30303030-0000-4000-8000-000000000002"]
    .map((sid) => {
      const t = new Transcript({ sessionId: sid, cwd: alpha, start: OLD });
      t.user("start the work");
      t.toolUse("Bash", { command: "cargo build" });
      t.toolResult("ok");
      return t;
    });
  const files = [await put(w, sessions[0]), await put(w, sessions[1])];
  await ingest(w);
  const at = { cwd: alpha };
  type Obs = { session_id: string; mechanical: { commands: string[]; turns: number } };
  const observed = async () =>
    (await w.json(["observations", "--project", alpha], at)).data.observations as Obs[];
  const first = await observed();
  assert.equal(first.length, 2);
  assert.ok(first.every((o) => o.mechanical.commands.join() === "cargo build"));
  const final = (sid: string) =>
    query<{ f: number }>(
      w.sb.store,
      "SELECT is_final AS f FROM session_meta WHERE session_id = ?",
      sid,
    )[0].f;
  assert.equal(final(sessions[0].o.sessionId), 1);

  // the first is resumed and left again long ago: it reopens and closes in the same pass, and
  // its observation is redone; the second is resumed now: it is open again
  const back = new Transcript({
    sessionId: sessions[0].o.sessionId,
    cwd: alpha,
    start: "2026-01-02T10:00:00.000Z",
  });
  back.toolUse("Bash", { command: "cargo test" });
  back.toolResult("ok");
  await Deno.writeTextFile(files[0], back.text(), { append: true });
  const now = new Transcript({
    sessionId: sessions[1].o.sessionId,
    cwd: alpha,
    start: new Date().toISOString(),
  });
  now.user("carry on");
  await Deno.writeTextFile(files[1], now.text(), { append: true });
  await ingest(w);

  assert.equal(final(sessions[1].o.sessionId), 0, "new turns reopen a closed session");
  assert.equal(final(sessions[0].o.sessionId), 1, "and it closes again once quiet");
  const again = (await observed()).find((o) => o.session_id === sessions[0].o.sessionId)!;
  assert.deepEqual(again.mechanical.commands, ["cargo build", "cargo test"], "observed afresh");
  assert.equal(again.mechanical.turns, sessions[0].turns.length + back.turns.length);
});

Deno.test("a pass killed midway is reported, never passed off as a healthy empty pass", async () => {
  await using sb = await sandbox();
  await bigTree(sb.claude, { files: 30, totalBytes: 12_000_000, seed: 101 });
  // kill a pass once its run row exists and before it is completed; later and later until one
  // is caught in flight (a kill after the row is completed, as the process exits, is no catch)
  let caught = false;
  for (const delay of [150, 250, 400, 700, 1000, 1500, 2200, 3000]) {
    await Deno.remove(sb.data, { recursive: true }).catch(() => {});
    const child = cliCommand(sb, ["ingest"], { stdout: "null", stderr: "null" }).spawn();
    const timer = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* it finished */ }
    }, delay);
    const st = await child.status;
    clearTimeout(timer);
    if (st.signal !== "SIGKILL") continue;
    let runs: { duration_ms: number }[] = [];
    try {
      runs = query(sb.store, "SELECT duration_ms FROM runs");
    } catch { /* no store yet */ }
    // the store's mark for a run row begun and not completed is a negative duration
    if (runs.length === 1 && runs[0].duration_ms < 0) {
      caught = true;
      break;
    }
  }
  assert.ok(caught, "a kill landed after the pass had begun its run row");

  const s = parseEnvelope((await cliOk(sb, ["status", "--json"])).out);
  const run = s.data.last_run as { duration_ms: number | null; notes: string[] | null };
  assert.equal(run.duration_ms, null, "an unfinished pass has no duration");
  assert.match(run.notes!.join("\n"), /has not finished/);
  const human = await cliOk(sb, ["status"]);
  assert.match(human.out, /not finished/);
  const doc = parseEnvelope((await runCli(sb, ["doctor", "--json"])).out);
  const check = (doc.data as Record<string, { state: string; finding: string }>).last_run;
  assert.notEqual(check.state, "ok", JSON.stringify(check));
  assert.match(check.finding, /has not finished/);

  // the next pass says the last one died, and its own row is whole
  const r = await runCli(sb, ["ingest"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /did not finish: its process died or was killed/);
  const after = parseEnvelope((await cliOk(sb, ["status", "--json"])).out);
  const last = after.data.last_run as { duration_ms: number | null; error: string[] | null };
  assert.ok(typeof last.duration_ms === "number" && last.duration_ms >= 0);
  assert.match(last.error!.join("\n"), /did not finish: its process died or was killed/);
  const died = query<{ d: number; e: string }>(
    sb.store,
    "SELECT duration_ms AS d, error AS e FROM runs ORDER BY id LIMIT 1",
  )[0];
  assert.match(died.e, /did not finish/, "the dead pass's own row says so too");
});

Deno.test("a step that fails is recorded in the run row and shown, and the row is completed", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({
    sessionId: "40404040-0000-4000-8000-000000000001",
    cwd: alpha,
    start: OLD,
  });
  t.user("something to observe");
  await put(w, t);
  await ingest(w);
  // observing is made to fail inside SQLite itself, and the session is due again
  const db = new DatabaseSync(w.sb.store);
  try {
    db.exec("DELETE FROM observations; UPDATE session_meta SET observed = 0");
    db.exec(
      "CREATE TRIGGER fault BEFORE INSERT ON observations BEGIN SELECT RAISE(ABORT, 'injected fault'); END",
    );
  } finally {
    db.close();
  }
  const r = await w.run(["ingest"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /could not be observed: .*injected fault/, "the failure is shown");
  const s = parseEnvelope((await cliOk(w.sb, ["status", "--json"])).out);
  const run = s.data.last_run as { duration_ms: number | null; error: string[] | null };
  assert.ok(run.error?.some((e) => /injected fault/.test(e)), JSON.stringify(run));
  assert.equal(typeof run.duration_ms, "number", "the run row was completed, not left in flight");
  const doc = parseEnvelope((await runCli(w.sb, ["doctor", "--json"])).out);
  const check = (doc.data as Record<string, { state: string }>).last_run;
  assert.equal(check.state, "problem");
});

Deno.test('observations record commits made with -am, -sm, -m"msg" and --message=', async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({
    sessionId: "50505050-0000-4000-8000-000000000001",
    cwd: alpha,
    start: OLD,
  });
  const commands = [
    'git commit -am "all tracked"',
    "git commit -sm 'signed off'",
    'git commit -m"attached"',
    "git commit --message=plain",
    'git commit --message="quoted words"',
    "git log --format=%m",
  ];
  for (const c of commands) {
    t.toolUse("Bash", { command: c });
    t.toolResult("ok");
  }
  await put(w, t);
  await ingest(w);
  const obs = (await w.json(["observations", "--project", alpha], { cwd: alpha })).data
    .observations as { mechanical: { commits: string[] } }[];
  assert.deepEqual(obs[0].mechanical.commits, [
    "all tracked",
    "signed off",
    "attached",
    "plain",
    "quoted words",
  ]);
});

Deno.test("observations regenerate: a failure names the subcommand and echoes --since; notes go to the document only under --json", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({
    sessionId: "60606060-0000-4000-8000-000000000001",
    cwd: alpha,
    start: OLD,
  });
  t.user("to be observed");
  await put(w, t);
  await ingest(w);
  const [{ key }] = query<{ key: string }>(w.sb.store, "SELECT session_key AS key FROM sessions");
  // a block that no longer decompresses: its session cannot be recomputed
  const db = new DatabaseSync(w.sb.store);
  try {
    db.exec("UPDATE blocks SET bytes = x'00010203'");
  } finally {
    db.close();
  }
  const j = await w.run(["observations", "regenerate", "--json"], { cwd: alpha });
  assert.equal(j.code, 0, j.err);
  assert.equal(j.err, "", "under --json the notes are in the document only");
  const doc = parseEnvelope(j.out);
  assert.equal(doc.command, "observations regenerate");
  const notes = (doc.data as { notes: string[] }).notes;
  assert.equal(notes.length, 1);
  assert.ok(notes[0].includes(key));
  const h = await w.run(["observations", "regenerate"], { cwd: alpha });
  assert.equal(h.code, 0);
  assert.ok(h.err.includes(key), "in human mode the note goes to stderr");
  assert.equal(h.stdout.length, 0);

  // an operational failure: the store cannot be read
  await Deno.writeTextFile(w.sb.store, "not a database at all, just text ".repeat(200));
  for (const f of ["-wal", "-shm"]) await Deno.remove(w.sb.store + f).catch(() => {});
  const bad = await w.run(["observations", "regenerate", "--since", "2026-01-01", "--json"], {
    cwd: alpha,
  });
  assert.equal(bad.code, 1, bad.err);
  const fail = parseEnvelope(bad.out);
  assert.equal(fail.command, "observations regenerate");
  assert.equal(fail.ok, false);
  assert.equal((fail.data as { since: string }).since, "2026-01-01T00:00:00.000Z");
});

Deno.test("time bounds take only the two forms: no other RFC 3339 spelling is guessed at", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({
    sessionId: "70707070-0000-4000-8000-000000000001",
    cwd: alpha,
    start: "2026-01-05T09:00:00.000Z",
  });
  t.user("session 1");
  await put(w, t);
  await ingest(w);
  for (
    const v of [
      "2026-01-05T10:00:00Z",
      "2026-01-05T10:00:00.5Z",
      "2026-01-05T12:00:00+02:00",
      "2026-01-05T08:30:00.000000-01:30",
      "2026-01-05t10:00:00z",
    ]
  ) {
    const r = await w.run(["sessions", "--project", "*", "--since", v, "--json"], { cwd: alpha });
    assert.equal(r.code, 2, v);
    assert.equal(r.out, "", v);
    assert.match(r.err, /--since/, v);
  }
});

Deno.test('roots = ["~/.claude"] walks nothing, and status and doctor say so', async () => {
  await using sb = await sandbox();
  await writeConfig(sb, 'roots = ["~/.claude", "relative/claude"]\n');
  for (const args of [["status"], ["status", "--json"]]) {
    const r = await runCli(sb, args, { cwd: sb.dir });
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /the transcript root ~\/\.claude does not exist.*~ is not expanded/);
    assert.match(r.err, /the transcript root relative\/claude does not exist/);
  }
  await cliOk(sb, ["ingest"]);
  const s = await runCli(sb, ["status"], { cwd: sb.dir });
  assert.match(s.err, /~\/\.claude does not exist/, "with a store too");
  const doc = parseEnvelope((await runCli(sb, ["doctor", "--json"], { cwd: sb.dir })).out);
  const check = (doc.data as Record<string, { state: string; finding: string }>).config_roots;
  assert.equal(check.state, "problem");
  assert.match(check.finding, /~\/\.claude does not exist/);

  // a root that is there raises nothing
  await writeConfig(sb, `roots = [${JSON.stringify(sb.claude)}]\n`);
  const fine = await runCli(sb, ["status"], { cwd: sb.dir });
  assert.doesNotMatch(fine.err, /transcript root/);
});

Deno.test("2.0.x agent-<id>.jsonl files of the same name in two projects stay two sessions, and an old store is re-keyed", async () => {
  await using w = await world();
  const [alpha, beta] = [w.dir("alpha"), w.dir("beta")];
  const agent = (cwd: string, words: string) => {
    const t = new Transcript({
      sessionId: "80808080-0000-4000-8000-000000000001",
      cwd,
      start: OLD,
      sidechain: true,
    });
    t.user(words);
    t.assistant(`${words} done`);
    return t;
  };
  const a = await put(w, agent(alpha, "alpha agent task"), "agent-same.jsonl");
  await ingest(w);
  const store = w.sb.store;
  // an earlier build keyed it by its bare name: put the store back that way
  const db = new DatabaseSync(store);
  try {
    db.exec("UPDATE sessions SET session_key = 'agent-same.jsonl'");
    db.exec("DELETE FROM meta WHERE key = 'agent_keys_canonical'");
  } finally {
    db.close();
  }
  const b = await put(
    w,
    agent(beta, "beta agent work, a longer transcript than alpha's"),
    "agent-same.jsonl",
  );
  await ingest(w);
  const keys = query<{ k: string }>(store, "SELECT session_key AS k FROM sessions ORDER BY k")
    .map((r) => r.k);
  assert.deepEqual(keys, [await Deno.realPath(a), await Deno.realPath(b)].sort());
  await assertArchiveEqualsFiles(store, w.sb.claude, [a, b]);
  assert.deepEqual(
    query(store, "SELECT transcript_diverged AS d FROM session_meta"),
    [{ d: 0 }, { d: 0 }],
    "neither is flagged diverged",
  );
  const s = parseEnvelope((await cliOk(w.sb, ["status", "--json"])).out);
  const notes = (s.data.last_run as { notes: string[] | null }).notes ?? [];
  assert.ok(notes.some((n) => /agent-same\.jsonl re-keyed as /.test(n)), JSON.stringify(notes));
  // and both grow on: each file's new turns reach its own session
  await Deno.writeTextFile(b, agent(beta, "more beta").text(), { append: true });
  await ingest(w);
  await assertArchiveEqualsFiles(store, w.sb.claude, [a, b]);
  const v = parseEnvelope((await cliOk(w.sb, ["verify", "--json"])).out);
  assert.deepEqual(v.data.failures, []);
});
