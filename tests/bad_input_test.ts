/**
 * Bad input loses nothing: damaged transcripts, odd trees, stores that are not ours, config
 * files that do not load, and the single-file form of ingest. Every case checks what was
 * archived (or that nothing changed), not only the exit code.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  archivedStreams,
  assertArchiveEqualsFiles,
  assertSameBytes,
  bytes,
  cliOk,
  exists,
  fixture,
  parseEnvelope,
  projectDir,
  query,
  runCli,
  type Sandbox,
  sandbox,
  writeConfig,
  writeTranscript,
} from "./helpers.ts";

const ALPHA = "/nonexistent/terminus-fixtures/alpha";
const BETA = "/nonexistent/terminus-fixtures/beta";
const SECRET = "/nonexistent/terminus-fixtures/secret";
const ID1 = "11111111-1111-4111-8111-111111111111";
const ID6 = "66666666-6666-4666-8666-666666666666";
const ID7 = "77777777-7777-4777-8777-777777777777";
const ID8 = "88888888-8888-4888-8888-888888888888";

interface StatusData {
  sessions: number;
  turns: number;
  excluded: string[] | null;
  last_run: {
    files_seen: number;
    files_committed: number;
    files_failed: number;
    error: string[] | null;
    notes: string[] | null;
  } | null;
}

async function status(sb: Sandbox): Promise<StatusData> {
  const r = await cliOk(sb, ["status", "--json"]);
  return parseEnvelope(r.out).data as unknown as StatusData;
}

async function verifyClean(sb: Sandbox) {
  const r = await cliOk(sb, ["verify", "--json"]);
  const doc = parseEnvelope(r.out);
  assert.equal(doc.ok, true);
  assert.deepEqual((doc.data as { failures: unknown[] }).failures, []);
  return r;
}

/* ---------- damaged transcripts ---------- */

Deno.test("malformed JSON lines and invalid UTF-8 are archived verbatim and the pass goes on", async () => {
  await using sb = await sandbox();
  const base = await fixture("malformed.jsonl");
  // invalid UTF-8: a lone continuation byte, an overlong form, a truncated sequence, and a
  // valid record whose string holds bytes that are not UTF-8
  const damaged = bytes(
    base,
    [0x80, 0xc0, 0xaf, 0xe2, 0x82, 0x0a],
    '{"type":"user","uuid":"b0000000-0000-4000-8000-000000000003","timestamp":"2026-08-17T07:00:02.000Z","sessionId":"',
    ID6,
    '","message":{"role":"user","content":"bad bytes: ',
    [0xff, 0xfe, 0xed],
    '"}}\n',
    "\u0000\u001b[31m control bytes \u0007\n",
  );
  const bad = await writeTranscript(sb.claude, BETA, `${ID6}.jsonl`, damaged);
  const good = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );

  const r = await cliOk(sb, ["ingest"]);
  assert.match(r.err, /2 file\(s\) walked, 2 committed, 0 failed/);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [bad, good]);
  const turns = query<{ uuid: string }>(
    sb.store,
    `SELECT uuid FROM turns JOIN sessions USING (session_no) WHERE session_key = ? ORDER BY turn_seq`,
    `${ID6}.jsonl`,
  );
  assert.deepEqual(
    turns.map((t) => t.uuid),
    [1, 2, 3].map((n) => `b0000000-0000-4000-8000-00000000000${n}`),
    "the parseable turns, including the one with bad bytes in a string",
  );
  const s = await status(sb);
  assert.equal(s.last_run!.error, null, "a line that is not JSON never fails the file");
  assert.equal(s.last_run!.files_failed, 0);
  await verifyClean(sb);
});

Deno.test("a 10 MB single line is archived whole", async () => {
  await using sb = await sandbox();
  const text = "0123456789abcdef".repeat((10 * 1024 * 1024) / 16);
  const line = JSON.stringify({
    type: "user",
    uuid: "b2000000-0000-4000-8000-000000000001",
    timestamp: "2026-08-19T10:00:00.000Z",
    sessionId: ID7,
    cwd: ALPHA,
    toolUseResult: { stdout: text },
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: text }] },
  });
  assert.ok(line.length > 20 * 1024 * 1024 - 4096);
  const path = await writeTranscript(sb.claude, ALPHA, `${ID7}.jsonl`, line + "\n");
  await cliOk(sb, ["ingest"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [path]);
  const t = query<{ byte_len: number }>(sb.store, "SELECT byte_len FROM turns");
  assert.deepEqual(t, [{ byte_len: line.length }]);
  await verifyClean(sb);
});

Deno.test("a transcript truncated below its watermark is flagged diverged, its archive kept, and the file archived again as a new lineage", async () => {
  await using sb = await sandbox();
  const content = await fixture("every_record.jsonl");
  const path = await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, content);
  await cliOk(sb, ["ingest"]);

  const shorter = content.subarray(0, content.indexOf(0x0a) + 1);
  await Deno.writeFile(path, shorter);
  // verify sees the shorter file even before a pass has flagged it
  const early = await verifyClean(sb);
  assert.match(early.err, new RegExp(`${ID1}\\.jsonl: .*shorter`));
  await cliOk(sb, ["ingest"]);
  let streams = await archivedStreams(sb.store);
  assertSameBytes(streams.get(`${ID1}.jsonl`), content, "the archive holds what it held");
  const s = await status(sb);
  assert.ok(
    s.last_run!.notes?.some((n) => n.includes(`${ID1}.jsonl`) && /diverged/.test(n)),
    `status notes name it: ${JSON.stringify(s.last_run)}`,
  );
  assert.equal(s.last_run!.error, null, "a divergence is a note, not an error");
  assert.deepEqual(
    query(
      sb.store,
      "SELECT session_key, transcript_diverged FROM sessions JOIN session_meta USING (session_no) ORDER BY session_no",
    ),
    [
      { session_key: `${ID1}.jsonl`, transcript_diverged: 1 },
      { session_key: `${ID1}.jsonl#2`, transcript_diverged: 0 },
    ],
  );
  assertSameBytes(streams.get(`${ID1}.jsonl#2`), shorter, "the new lineage holds the file now");

  const v = await verifyClean(sb);
  assert.match(
    v.err,
    new RegExp(`${ID1}\\.jsonl: .*shorter`),
    "verify warns about the file on stderr",
  );
  const human = await cliOk(sb, ["verify"]);
  assert.equal(human.out, "", "a divergence is no failure");

  // the old lineage is never re-read; the new one takes what the file gains
  await Deno.writeFile(path, bytes(shorter, content, content));
  await cliOk(sb, ["ingest"]);
  streams = await archivedStreams(sb.store);
  assertSameBytes(streams.get(`${ID1}.jsonl`), content, "still what it held");
  assertSameBytes(streams.get(`${ID1}.jsonl#2`), bytes(shorter, content, content), "never spliced");
});

Deno.test("a transcript deleted between passes keeps its archive, and is no divergence", async () => {
  await using sb = await sandbox();
  const content = await fixture("every_record.jsonl");
  const path = await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, content);
  const other = await writeTranscript(
    sb.claude,
    BETA,
    `${ID6}.jsonl`,
    await fixture("malformed.jsonl"),
  );
  await cliOk(sb, ["ingest"]);
  await Deno.remove(path);
  const r = await cliOk(sb, ["ingest"]);
  assert.doesNotMatch(r.err, /vanished|cannot/);
  const streams = await archivedStreams(sb.store);
  assertSameBytes(streams.get(`${ID1}.jsonl`), content, "the deleted file's archive");
  assertSameBytes(streams.get(`${ID6}.jsonl`), await Deno.readFile(other), "the other file");
  const s = await status(sb);
  assert.equal(s.sessions, 2);
  assert.equal(s.last_run!.error, null);
  const v = await verifyClean(sb);
  assert.equal(v.err, "", "no warning for a file Claude Code deleted");
});

/* ---------- trees that cannot be walked ---------- */

Deno.test("a folder under a root that cannot be listed is reported and skipped; the rest is archived", async () => {
  await using sb = await sandbox();
  const good = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );
  // a second root whose projects folder is a file: listing it fails whoever runs the test
  const broken = join(sb.dir, "broken-root");
  await Deno.mkdir(broken);
  await Deno.writeTextFile(join(broken, "projects"), "not a folder\n");
  // a third root whose project folder is closed with chmod 000
  const closed = join(sb.dir, "closed-root");
  const locked = await writeTranscript(
    closed,
    BETA,
    `${ID6}.jsonl`,
    await fixture("malformed.jsonl"),
  );
  await Deno.chmod(projectDir(closed, BETA), 0o000);
  // a project "folder" that is a file, and one that is a dangling symlink: not folders at all
  await Deno.writeTextFile(join(sb.claude, "projects", "-a-file"), "x\n");
  await Deno.symlink(join(sb.dir, "nowhere"), join(sb.claude, "projects", "-a-dangling-link"));
  await writeConfig(sb, `roots = ${JSON.stringify([sb.claude, broken, closed])}\n`);

  let canRead = true;
  try {
    for (const _ of Deno.readDirSync(projectDir(closed, BETA))) break;
  } catch {
    canRead = false;
  }
  try {
    const r = await cliOk(sb, ["ingest"]);
    assert.match(
      r.err,
      new RegExp(`${join(broken, "projects")} cannot be listed`),
      "named on stderr",
    );
    const s = await status(sb);
    assert.ok(
      s.last_run!.error?.some((e) => e.includes(join(broken, "projects"))),
      "and in status",
    );
    if (canRead) {
      // running as root: chmod 000 does not stop reading, so the folder is simply archived
      const streams = await archivedStreams(sb.store);
      assertSameBytes(streams.get(`${ID6}.jsonl`), await Deno.readFile(locked), "readable as root");
      assert.equal(s.last_run!.error!.length, 1, "only the broken root is an error");
    } else {
      assert.match(r.err, new RegExp(`${projectDir(closed, BETA)} cannot be listed`));
      assert.ok(s.last_run!.error!.some((e) => e.includes(projectDir(closed, BETA))));
      assert.equal((await archivedStreams(sb.store)).has(`${ID6}.jsonl`), false);
    }
    const streams = await archivedStreams(sb.store);
    assertSameBytes(streams.get(`${ID1}.jsonl`), await Deno.readFile(good), "the good root");
    await verifyClean(sb);
  } finally {
    await Deno.chmod(projectDir(closed, BETA), 0o755);
  }
});

Deno.test("a transcript that cannot be read is named on stderr and in status; the rest is archived", async () => {
  await using sb = await sandbox();
  const good = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );
  const dangling = join(projectDir(sb.claude, ALPHA), `${ID7}.jsonl`);
  await Deno.symlink(join(sb.dir, "gone.jsonl"), dangling);
  const dir = join(sb.dir, "a-folder");
  await Deno.mkdir(dir);
  await Deno.writeTextFile(join(dir, "x"), "x".repeat(10_000));
  const toDir = join(projectDir(sb.claude, ALPHA), `${ID8}.jsonl`);
  await Deno.symlink(dir, toDir);

  const r = await cliOk(sb, ["ingest"]);
  assert.ok(r.err.includes(dangling), `the dangling link is named: ${r.err}`);
  assert.ok(r.err.includes(toDir), `the link to a folder is named: ${r.err}`);
  const s = await status(sb);
  assert.equal(s.last_run!.files_failed, 2);
  assert.equal(s.last_run!.files_committed, 1);
  assert.ok(s.last_run!.error!.some((e) => e.includes(dangling)));
  assert.ok(s.last_run!.error!.some((e) => e.includes(toDir)));
  await assertArchiveEqualsFiles(sb.store, sb.claude, [good]);
  await verifyClean(sb);
});

Deno.test("an excluded project is skipped before any of its files is opened", async () => {
  await using sb = await sandbox();
  const good = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );
  const hidden = await writeTranscript(
    sb.claude,
    SECRET,
    `${ID6}.jsonl`,
    await fixture("malformed.jsonl"),
  );
  // opening this would fail the file; skipping the folder first never touches it
  await Deno.symlink(
    join(sb.dir, "gone.jsonl"),
    join(projectDir(sb.claude, SECRET), `${ID7}.jsonl`),
  );
  await writeConfig(sb, `exclude = ["${SECRET}/"]\n`);
  const r = await cliOk(sb, ["ingest"]);
  assert.doesNotMatch(r.err, /gone|vanished|[1-9]\d* failed/);
  const s = await status(sb);
  assert.equal(s.last_run!.error, null);
  assert.equal(s.last_run!.files_failed, 0);
  assert.deepEqual(s.excluded, [SECRET]);
  assert.ok(s.last_run!.notes?.some((n) => /excluded/.test(n)));
  await assertArchiveEqualsFiles(sb.store, sb.claude, [good]);
  assert.ok(await exists(hidden));
});

Deno.test("exclude covers subfolders and not siblings, though the folder names collide", async () => {
  await using sb = await sandbox();
  // real folders, so the lossy folder-name encoding can be decided on disk before opening
  const demo = join(sb.dir, "code", "demo");
  await Deno.mkdir(join(demo, "sub"), { recursive: true });
  await Deno.mkdir(join(sb.dir, "code", "demo-other"));
  const rec = (sid: string, cwd: string) =>
    JSON.stringify({
      type: "user",
      uuid: sid,
      timestamp: "2026-08-22T10:00:00.000Z",
      sessionId: sid,
      cwd,
    }) +
    "\n";
  await writeTranscript(sb.claude, join(demo, "sub"), `${ID6}.jsonl`, rec(ID6, join(demo, "sub")));
  // a file that fails if opened, in the excluded subfolder's project folder
  await Deno.symlink(
    join(sb.dir, "gone.jsonl"),
    join(projectDir(sb.claude, join(demo, "sub")), `${ID8}.jsonl`),
  );
  const sibling = await writeTranscript(
    sb.claude,
    join(sb.dir, "code", "demo-other"),
    `${ID7}.jsonl`,
    rec(ID7, join(sb.dir, "code", "demo-other")),
  );
  // a cwd below the excluded path that no longer exists: decided from the records' cwd
  await writeTranscript(
    sb.claude,
    join(demo, "gone-sub"),
    `${ID1}.jsonl`,
    rec(ID1, join(demo, "gone-sub")),
  );
  await writeConfig(sb, `exclude = [${JSON.stringify(demo + "/")}]\n`);

  const r = await cliOk(sb, ["ingest"]);
  assert.doesNotMatch(r.err, /gone\.jsonl|vanished/, "the excluded folder was never opened");
  await assertArchiveEqualsFiles(sb.store, sb.claude, [sibling]);
  const s = await status(sb);
  assert.equal(s.last_run!.error, null);
  assert.deepEqual(s.excluded, [demo]);
});

/* ---------- single-file ingest ---------- */

Deno.test("ingest <path>: a good file is archived alone, relative paths resolve from the cwd", async () => {
  await using sb = await sandbox();
  const one = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );
  await writeTranscript(sb.claude, BETA, `${ID6}.jsonl`, await fixture("malformed.jsonl"));
  const r = await runCli(sb, ["ingest", `${ID1}.jsonl`], { cwd: projectDir(sb.claude, ALPHA) });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, "");
  await assertArchiveEqualsFiles(sb.store, sb.claude, [one]);
  assert.deepEqual(
    query(sb.store, "SELECT is_final FROM session_meta"),
    [{ is_final: 0 }],
    "single-file ingest closes no session, however old",
  );
  const s = await status(sb);
  assert.equal(s.last_run!.files_seen, 1);
  assert.equal(s.last_run!.files_committed, 1);

  // again: already up to date, still one run row, exit 0
  const again = await runCli(sb, ["ingest", one]);
  assert.equal(again.code, 0);
  assert.equal(query(sb.store, "SELECT id FROM runs").length, 2);
});

Deno.test("ingest <path>: a missing file exits 1 and status names it under error", async () => {
  await using sb = await sandbox();
  const missing = join(projectDir(sb.claude, ALPHA), `${ID1}.jsonl`);
  const r = await runCli(sb, ["ingest", missing]);
  assert.equal(r.code, 1);
  assert.equal(r.out, "");
  assert.ok(r.err.includes(missing), r.err);
  const s = await status(sb);
  assert.equal(s.last_run!.files_failed, 1);
  assert.ok(s.last_run!.error!.some((e) => e.includes(missing)));
  assert.equal(s.sessions, 0);
});

Deno.test("ingest <path>: a file in an excluded project is not read, says so, and exits 0", async () => {
  await using sb = await sandbox();
  await writeConfig(sb, `exclude = ["${SECRET}"]\n`);
  const top = await writeTranscript(
    sb.claude,
    SECRET,
    `${ID6}.jsonl`,
    await fixture("malformed.jsonl"),
  );
  // a sidecar below the excluded folder whose records name another cwd: the folder decides
  const other = await fixture("sidecar/agent-a1.jsonl");
  const sidecar = await writeTranscript(
    sb.claude,
    SECRET,
    `${ID6}/subagents/agent-a1.jsonl`,
    other,
  );
  for (const path of [top, sidecar]) {
    const r = await runCli(sb, ["ingest", path]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "");
    assert.match(r.err, /excluded/, `${path}: says so on stderr`);
  }
  assert.equal((await archivedStreams(sb.store)).size, 0, "nothing archived");
  // the whole-tree pass agrees
  await cliOk(sb, ["ingest"]);
  assert.equal((await archivedStreams(sb.store)).size, 0);
});

/* ---------- stores that are not ours ---------- */

async function assertRefusedUnchanged(sb: Sandbox, message: RegExp) {
  const before = await Deno.readFile(sb.store);
  const r = await runCli(sb, ["ingest"]);
  assert.equal(r.code, 1, `ingest refuses: ${r.err}`);
  assert.equal(r.out, "");
  assert.match(r.err, message);
  assert.deepEqual(await Deno.readFile(sb.store), before, "the file is byte for byte what it was");
  for (const cmd of ["status", "verify"]) {
    const h = await runCli(sb, [cmd]);
    assert.equal(h.code, 1, `${cmd} fails`);
    assert.equal(h.out, "");
    assert.match(h.err, message);
    const j = await runCli(sb, [cmd, "--json"]);
    assert.equal(j.code, 1);
    const doc = parseEnvelope(j.out);
    assert.equal(doc.ok, false);
    assert.match(doc.reason!, message);
    assert.equal(j.err, "");
  }
  assert.deepEqual(await Deno.readFile(sb.store), before, "still byte for byte what it was");
}

Deno.test("a foreign SQLite file is refused and left byte-identical", async () => {
  await using sb = await sandbox();
  await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, await fixture("every_record.jsonl"));
  await Deno.mkdir(sb.data);
  const db = new DatabaseSync(sb.store);
  db.exec("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine')");
  db.close();
  await assertRefusedUnchanged(sb, /is not a Terminus store/);
});

Deno.test("a corrupt SQLite file is refused and left byte-identical", async () => {
  await using sb = await sandbox();
  const path = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );
  await cliOk(sb, ["ingest"]);
  // a real store whose header is overwritten
  const store = await Deno.readFile(sb.store);
  store.set(new TextEncoder().encode("this is no longer an SQLite header, just junk bytes!!"), 0);
  await Deno.remove(sb.store);
  await Deno.remove(sb.store + "-wal").catch(() => {});
  await Deno.remove(sb.store + "-shm").catch(() => {});
  await Deno.writeFile(sb.store, store);
  await assertRefusedUnchanged(sb, /terminus\.db/);
  // and a file that is SQLite's magic followed by noise
  await Deno.writeFile(sb.store, bytes("SQLite format 3\u0000", new Uint8Array(4000).fill(0x5a)));
  await assertRefusedUnchanged(sb, /terminus\.db/);
  assert.ok(await exists(path));
});

Deno.test("a store in another archive format is refused, never converted", async () => {
  for (const [format, message] of [["0", /older.*clean install/], ["99", /newer/]] as const) {
    await using sb = await sandbox();
    await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, await fixture("every_record.jsonl"));
    await cliOk(sb, ["ingest"]);
    const db = new DatabaseSync(sb.store);
    db.exec(`UPDATE meta SET value = '${format}' WHERE key = 'archive_format'`);
    db.close();
    await assertRefusedUnchanged(sb, message);
  }
});

Deno.test("an empty store file, as a first pass killed early leaves, is no store yet", async () => {
  await using sb = await sandbox();
  const path = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );
  await Deno.mkdir(sb.data);
  await Deno.writeFile(sb.store, new Uint8Array(0));
  for (const cmd of ["status", "verify"]) {
    const r = await runCli(sb, [cmd, "--json"]);
    assert.equal(r.code, 0, `${cmd}: ${r.out}`);
    const doc = parseEnvelope(r.out);
    assert.equal(doc.ok, true);
    assert.match(doc.reason!, /no store/);
  }
  await cliOk(sb, ["ingest"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [path]);
});

Deno.test("a data directory that is a file: ingest exits 1 and leaves it alone", async () => {
  await using sb = await sandbox();
  await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, await fixture("every_record.jsonl"));
  await Deno.writeTextFile(sb.data, "not a folder\n");
  const r = await runCli(sb, ["ingest"]);
  assert.equal(r.code, 1);
  assert.equal(r.out, "");
  assert.ok(r.err.includes(sb.data), r.err);
  assert.equal(await Deno.readTextFile(sb.data), "not a folder\n");
});

/* ---------- terminus.toml that does not load ---------- */

async function assertConfigFails(sb: Sandbox, toml: string, message: RegExp) {
  const path = await writeConfig(sb, toml);
  const r = await runCli(sb, ["status"]);
  assert.equal(r.code, 1, `${toml}: status exits 1`);
  assert.equal(r.out, "");
  assert.ok(r.err.startsWith(path + " "), `the message opens with the path: ${r.err}`);
  assert.match(r.err, message);
  const j = await runCli(sb, ["status", "--json"]);
  assert.equal(j.code, 1);
  assert.equal(j.err, "", "under --json the failure puts nothing on stderr");
  const doc = parseEnvelope(j.out);
  assert.equal(doc.ok, false);
  assert.match(doc.reason!, message);
  assert.deepEqual(doc.data, {
    excluded: null,
    last_run: null,
    sessions: 0,
    size_bytes: 0,
    store: null,
    turns: 0,
    watermark_bytes: 0,
    watermarks: 0,
  });
  for (const cmd of [["verify"], ["ingest"]]) {
    const x = await runCli(sb, cmd);
    assert.equal(x.code, 1, `${cmd} exits 1 too`);
    assert.match(x.err, message);
  }
  assert.equal(await exists(sb.data), false, "no pass ran");
}

Deno.test("terminus.toml that is not TOML fails the load with '<path> is not valid TOML: ...'", async () => {
  await using sb = await sandbox();
  await assertConfigFails(sb, "roots = [\n", /is not valid TOML: .* at line \d+, column \d+/);
  await assertConfigFails(sb, "this is = not toml at all\n", /is not valid TOML: /);
});

Deno.test("a [provider] table fails the load with its own message", async () => {
  await using sb = await sandbox();
  await assertConfigFails(
    sb,
    '[provider]\nname = "anthropic"\n',
    /still has a \[provider\] table\. Model calls were removed from Terminus, so nothing reads that table any more\. Delete it from the file to continue\./,
  );
});

Deno.test('"" means unset for the text keys and fails the load for every other key', async () => {
  await using sb = await sandbox();
  for (
    const ok of [
      '[capture]\nmode = ""\n',
      '[retention]\naction = ""\nage_days = 30\n',
      '[retention.project."/nonexistent/x"]\naction = ""\n',
    ]
  ) {
    await writeConfig(sb, ok);
    const r = await runCli(sb, ["status", "--json"]);
    assert.equal(r.code, 0, `${ok}: loads (${r.out})`);
  }
  for (
    const bad of [
      'roots = ""\n',
      'exclude = ""\n',
      '[injection]\nbrief_chars = ""\n',
      '[injection]\nprompt_chars = ""\n',
      '[retention]\nage_days = ""\n',
      '[snapshot]\nenabled = ""\n',
      '[snapshot]\ninterval_hours = ""\n',
      '[snapshot]\nkeep = ""\n',
      '[privacy]\nredact_recall = ""\n',
    ]
  ) {
    await assertConfigFails(sb, bad, /is not valid TOML: /);
  }
});

Deno.test("an api_key in a TOML error prints the position and no excerpt of the line", async () => {
  await using sb = await sandbox();
  const path = await writeConfig(sb, 'roots = []\napi_key = "sk-ant-supersecret-value\n');
  const r = await runCli(sb, ["status"]);
  assert.equal(r.code, 1);
  assert.ok(r.err.startsWith(`${path} is not valid TOML: `), r.err);
  assert.match(r.err, /line 2, column \d+/);
  assert.doesNotMatch(r.err, /supersecret/);
  const j = await runCli(sb, ["status", "--json"]);
  assert.doesNotMatch(j.out + j.err, /supersecret/);
  // an ordinary error does print its line, so the rule above is doing the work
  await writeConfig(sb, "roots = @@@\n");
  assert.match((await runCli(sb, ["status"])).err, /line 1, column \d+: roots = @@@/);
});

Deno.test("an empty terminus.toml, and one with unknown keys, loads with every default", async () => {
  await using sb = await sandbox();
  const good = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );
  for (const toml of ["", "future_key = 1\n[future_table]\nx = true\n"]) {
    await writeConfig(sb, toml);
    await cliOk(sb, ["ingest"]);
    await assertArchiveEqualsFiles(sb.store, sb.claude, [good]);
  }
});
