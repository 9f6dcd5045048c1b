/**
 * Issue 46: what stopped the archive or left something out, each driven for real (a real FIFO
 * behind a real link, /dev/zero, a real SIGKILL, a real 300 MB line, a transcript idle past the
 * closing rule). docs/design/faults.md lists what each guarantees.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  archivedStreams,
  assertArchiveEqualsFiles,
  cliArgs,
  cliOk,
  parseEnvelope,
  query,
  runCli,
  type Sandbox,
  sandbox,
  writeTranscript,
} from "./helpers.ts";

const SESSION = "22222222-2222-4222-8222-222222222222";
const CWD = "/nonexistent/terminus-left-out/alpha";

function rec(uuid: string, text: string, type = "user", ts = "2026-08-12T21:00:00.000Z") {
  return {
    type,
    uuid,
    parentUuid: null,
    timestamp: ts,
    cwd: CWD,
    sessionId: SESSION,
    message: { role: type, content: text },
  };
}

/**
 * The CLI with a generous guard: a command that blocks is killed after two minutes and the
 * test fails on that (a signal), instead of hanging the suite. Nothing is timed.
 */
async function guarded(sb: Sandbox, args: string[], env: Record<string, string> = {}) {
  const o = await new Deno.Command(Deno.execPath(), {
    args: cliArgs(args),
    cwd: sb.dir,
    env: { ...sb.env, ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  const dec = new TextDecoder();
  return { code: o.code, signal: o.signal, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
}

async function mkfifo(path: string): Promise<void> {
  const mk = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.equal(mk.code, 0, "mkfifo");
}

async function statusNotes(sb: Sandbox): Promise<string> {
  const s = parseEnvelope((await cliOk(sb, ["status", "--json"])).out);
  const last = (s.data as { last_run: { notes: string | null; error: string | null } }).last_run;
  return `${last.notes ?? ""}\n${last.error ?? ""}`;
}

Deno.test("a transcript that is a link to a FIFO or /dev/zero is refused unread; archiving goes on", async () => {
  await using sb = await sandbox();
  const folder = join(sb.claude, "projects", "-home-u-p");
  await Deno.mkdir(folder, { recursive: true });
  const fifo = join(sb.dir, "f");
  await mkfifo(fifo);
  await Deno.symlink(fifo, join(folder, "11111111-1111-4111-8111-111111111111.jsonl"));
  await Deno.symlink("/dev/zero", join(folder, "agent-zero.jsonl"));
  await writeTranscript(
    sb.claude,
    CWD,
    `${SESSION}.jsonl`,
    JSON.stringify(rec("u1", "kept")) + "\n",
  );

  const first = await guarded(sb, ["ingest"]);
  assert.equal(first.signal, null, "the pass blocked on the FIFO's open");
  assert.equal(first.code, 0, first.err);
  assert.match(first.err, /is not a regular file \(a FIFO\); it was not read/);
  const notes = await statusNotes(sb);
  assert.match(
    notes,
    /11111111-1111-4111-8111-111111111111\.jsonl is not a regular file \(a FIFO\)/,
  );
  assert.match(notes, /agent-zero\.jsonl is not a regular file \(a character device\)/);
  // the lock is free: a second pass runs, and a new session beside the FIFO is archived
  await writeTranscript(
    sb.claude,
    CWD,
    "33333333-3333-4333-8333-333333333333.jsonl",
    JSON.stringify(rec("u2", "later")) + "\n",
  );
  const second = await guarded(sb, ["ingest"]);
  assert.equal(second.signal, null);
  assert.equal(second.code, 0, second.err);
  const s = parseEnvelope((await cliOk(sb, ["status", "--json"])).out);
  const run = (s.data as { last_run: { files_committed: number } }).last_run;
  assert.equal(run.files_committed, 1, JSON.stringify(run));
  const hits = await cliOk(sb, ["search", "kept", "--project", "*", "--json"]);
  assert.equal((parseEnvelope(hits.out).data as { hits: unknown[] }).hits.length, 1);
});

Deno.test("a transcript's name swapped for a FIFO between the stat and the read: the read is refused, not blocked", async () => {
  await using sb = await sandbox();
  const fifo = join(sb.dir, "f");
  await mkfifo(fifo);
  // the reader itself, in a child so that a blocking open fails the test instead of hanging it
  const code = `import { readRange } from ${
    JSON.stringify(new URL("../core/ingest/window.ts", import.meta.url).href)
  };
try { readRange(${
    JSON.stringify(fifo)
  }, 0, 10); console.log("read"); } catch (e) { console.log(e.message); }`;
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-prompt", code],
    env: { ...sb.env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(120_000),
  }).output();
  assert.equal(o.signal, null, "the open blocked");
  assert.match(
    new TextDecoder().decode(o.stdout),
    /is not a regular file \(a FIFO\); it was not read/,
  );
});

Deno.test("doctor on a hostile terminus.toml: a FIFO, a link to /dev/zero and a 2 MiB file are each refused, unread", async () => {
  await using sb = await sandbox();
  const path = join(sb.config, "terminus.toml");
  const cases: [string, () => Promise<void>, RegExp][] = [
    ["a FIFO", () => mkfifo(path), /not a regular file \(a FIFO\)/],
    [
      "a link to /dev/zero",
      () => Deno.symlink("/dev/zero", path),
      /not a regular file \(a character device\)/,
    ],
    [
      "a 2 MiB file",
      () => Deno.writeTextFile(path, "roots = []\n" + "#".repeat(2 * 1024 * 1024) + "\n"),
      /larger than 1 MiB/,
    ],
  ];
  for (const [what, make, want] of cases) {
    await Deno.remove(path).catch(() => {});
    await make();
    const r = await guarded(sb, ["doctor", "--json"]);
    assert.equal(r.signal, null, `doctor blocked on ${what}`);
    const doc = parseEnvelope(r.out).data as Record<string, { state: string; finding: string }>;
    assert.equal(doc.config_roots.state, "problem", what);
    assert.match(doc.config_roots.finding, want, what);
  }
});

/** Sets a file's times to `hours` ago: a transcript nobody has written since then. */
async function idle(path: string, hours: number): Promise<void> {
  const t = new Date(Date.now() - hours * 3600_000);
  await Deno.utime(path, t, t);
}

async function hitCount(sb: Sandbox, word: string): Promise<number> {
  const r = await cliOk(sb, ["search", word, "--project", "*", "--json"]);
  return (parseEnvelope(r.out).data as { hits: unknown[] }).hits.length;
}

Deno.test("a closed session's last record without a newline is archived, byte for byte; one that is no record stays out, noted once", async () => {
  await using sb = await sandbox();
  const first = JSON.stringify(rec("u1", "the question")) + "\n";
  const last = JSON.stringify(
    rec("a1", "FinalAnswerWombat", "assistant", "2026-08-12T21:00:05.000Z"),
  );
  const file = await writeTranscript(sb.claude, CWD, `${SESSION}.jsonl`, first + last);

  // still being written: the last line waits for its newline
  await cliOk(sb, ["ingest"]);
  assert.equal(await hitCount(sb, "FinalAnswerWombat"), 0, "an open file's partial line waits");
  // idle past the closing rule: it is one complete record, so it is archived as it is
  await idle(file, 7);
  await cliOk(sb, ["ingest"]);
  assert.equal(await hitCount(sb, "FinalAnswerWombat"), 1, "the closed session's last record");
  await assertArchiveEqualsFiles(sb.store, sb.claude, [file]);
  const dest = join(sb.dir, "export");
  await cliOk(sb, ["export", dest]);
  const manifest = JSON.parse(await Deno.readTextFile(join(dest, "manifest.json"))) as {
    files: { session_key: string; file: string }[];
  };
  const one = manifest.files.find((f) => f.session_key === `${SESSION}.jsonl`)!;
  assert.deepEqual(
    await Deno.readFile(join(dest, one.file)),
    await Deno.readFile(file),
    "export gives the file's bytes",
  );

  // resumed: Claude Code glues its next record onto the line left without a newline
  const next = JSON.stringify(rec("u9", "ResumedOtter", "user", "2026-08-13T09:00:00.000Z")) + "\n";
  await Deno.writeTextFile(file, next, { append: true });
  await cliOk(sb, ["ingest"]);
  assert.equal(await hitCount(sb, "ResumedOtter"), 1, "the record glued on is read");
  await assertArchiveEqualsFiles(sb.store, sb.claude, [file]);

  // a closed file whose last line is not a record: it stays out, and the pass says so once
  const other = "44444444-4444-4444-8444-444444444444";
  const bad = await writeTranscript(
    sb.claude,
    CWD,
    `${other}.jsonl`,
    JSON.stringify({ ...rec("u5", "kept part"), sessionId: other }) + "\n" + '{"type":"user","mess',
  );
  await idle(bad, 30);
  await cliOk(sb, ["ingest"]);
  const once = await statusNotes(sb);
  assert.match(
    once,
    new RegExp(`${other}\\.jsonl: its transcript is closed, and its last 20 byte`),
  );
  await cliOk(sb, ["ingest"]);
  assert.doesNotMatch(await statusNotes(sb), new RegExp(other), "said once, not every pass");
  const held = (await archivedStreams(sb.store)).get(`${other}.jsonl`)!;
  const want = await Deno.readFile(bad);
  assert.deepEqual(held, want.subarray(0, want.lastIndexOf(0x0a) + 1), "up to its last newline");
});

Deno.test("records glued on one line are each read; lines that still cannot be read are counted in the pass's notes", async () => {
  await using sb = await sandbox();
  const glued = JSON.stringify(rec("u1", "GluedBadger")) +
    JSON.stringify({ type: "summary", summary: "SummaryOfGlue", leafUuid: "u1" }) +
    JSON.stringify(rec("u2", "GluedHeron", "assistant", "2026-08-12T21:00:09.000Z"));
  const text = glued + "\n" + "not json at all\n" + '{"half": \n' +
    JSON.stringify(rec("u3", "plain")) + "\n";
  const file = await writeTranscript(sb.claude, CWD, `${SESSION}.jsonl`, text);
  await cliOk(sb, ["ingest"]);
  assert.equal(await hitCount(sb, "GluedBadger"), 1);
  assert.equal(await hitCount(sb, "GluedHeron"), 1);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [file]);
  assert.match(
    await statusNotes(sb),
    /2 line\(s\) are neither a JSON record nor records glued together/,
  );
  const list = parseEnvelope((await cliOk(sb, ["sessions", "--project", "*", "--json"])).out);
  assert.match(
    JSON.stringify(list.data),
    /SummaryOfGlue/,
    "the summary on the glued line titles it",
  );
  // reindex reads the glued line as the pass did: same turns
  const before = query(sb.store, "SELECT id, stream_offset, byte_len FROM turns ORDER BY id");
  await cliOk(sb, ["reindex"]);
  assert.deepEqual(
    query(sb.store, "SELECT id, stream_offset, byte_len FROM turns ORDER BY id"),
    before,
  );
});

/**
 * Runs `argv` under a bash loop that reads the child's VmHWM (its peak resident set, which
 * never falls) from /proc while it runs: the runtime lets a test read another process's /proc
 * only with every permission. Returns the output and the peak in KiB.
 */
async function withPeakRss(
  sb: Sandbox,
  argv: string[],
): Promise<{ out: Deno.CommandOutput; kib: number }> {
  const peakFile = join(sb.dir, "peak");
  const script = `"$@" & pid=$!
peak=0
while kill -0 "$pid" 2>/dev/null; do
  while read -r k v _; do
    if [ "$k" = "VmHWM:" ] && [ "$v" -gt "$peak" ]; then peak=$v; fi
  done < "/proc/$pid/status" 2>/dev/null
  sleep 0.02
done
wait "$pid"; code=$?
echo "$peak" > ${JSON.stringify(peakFile)}
exit $code`;
  const out = await new Deno.Command("bash", {
    args: ["-c", script, "peak", ...argv],
    cwd: sb.dir,
    env: sb.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { out, kib: Number((await Deno.readTextFile(peakFile)).trim()) };
}

Deno.test("reindex over a 300 MB line: memory stays bounded by the pass's window, and it exits 0", async () => {
  await using sb = await sandbox();
  const path = join(sb.claude, "projects", "-big", `${SESSION}.jsonl`);
  await Deno.mkdir(join(sb.claude, "projects", "-big"), { recursive: true });
  {
    // written a MiB at a time: the test itself never holds the line
    using f = await Deno.open(path, { write: true, createNew: true });
    const enc = new TextEncoder();
    await f.write(enc.encode(JSON.stringify(rec("u0", "small")) + "\n"));
    await f.write(enc.encode('{"type":"user","message":{"role":"user","content":"'));
    const mib = new Uint8Array(1024 * 1024).fill(0x78);
    for (let i = 0; i < 300; i++) {
      let off = 0;
      while (off < mib.length) off += await f.write(mib.subarray(off));
    }
    await f.write(enc.encode('"}}'));
  }
  await idle(path, 1);
  await cliOk(sb, ["ingest"]);
  const { out, kib } = await withPeakRss(sb, [Deno.execPath(), ...cliArgs(["reindex", "--json"])]);
  const err = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, err.slice(0, 2000));
  const doc = parseEnvelope(new TextDecoder().decode(out.stdout)).data as { turns: number };
  assert.equal(doc.turns, 1, "the small turn is indexed; the over-cap line is not parsed");
  assert.ok(kib > 0, "the child's VmHWM was read");
  // the whole line held (as reindex did) peaks near 1 GiB; a window at a time is well under half
  assert.ok(kib < 512 * 1024, `reindex peaked at ${kib} KiB`);
  assert.equal(await hitCount(sb, "small"), 1);
});

Deno.test("Windows paths: a drive-letter cwd is a project, its worktree folds, and D:\\a\\x.go is D:/a/x.go; the bytes stay as written", async () => {
  await using sb = await sandbox();
  const session = (id: string, cwd: string, file: string, word: string) =>
    [
      { ...rec("u-" + id, `where is ${word}`), cwd, sessionId: id },
      {
        type: "assistant",
        uuid: "a-" + id,
        parentUuid: "u-" + id,
        timestamp: "2026-08-12T21:00:01.000Z",
        cwd,
        sessionId: id,
        message: {
          role: "assistant",
          content: [{ type: "tool_use", id: "t-" + id, name: "Read", input: { file_path: file } }],
        },
      },
    ].map((r) => JSON.stringify(r) + "\n").join("");
  const one = "55555555-5555-4555-8555-555555555555";
  const two = "66666666-6666-4666-8666-666666666666";
  const f1 = await writeTranscript(
    sb.claude,
    "D:\\repo",
    `${one}.jsonl`,
    session(one, "D:\\repo", "D:\\repo\\src\\git.go", "WinOne"),
  );
  const f2 = await writeTranscript(
    sb.claude,
    "D:\\repo\\.claude\\worktrees\\brave-fox",
    `${two}.jsonl`,
    session(two, "D:\\repo\\.claude\\worktrees\\brave-fox", "D:/repo/src/git.go", "WinTwo"),
  );
  await cliOk(sb, ["ingest"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [f1, f2]);
  const rows = query<{ project: string; pre: string | null; cwd: string }>(
    sb.store,
    "SELECT project, project_pre_worktree AS pre, cwd FROM session_meta ORDER BY session_no",
  );
  assert.deepEqual(rows.map((r) => r.project), ["D:/repo", "D:/repo"], JSON.stringify(rows));
  assert.equal(rows[1].pre, "D:/repo/.claude/worktrees/brave-fox");
  assert.deepEqual(rows.map((r) => r.cwd), ["D:\\repo", "D:\\repo\\.claude\\worktrees\\brave-fox"]);
  assert.deepEqual(
    query(sb.store, "SELECT DISTINCT path FROM paths").map((r) => r.path),
    ["D:/repo/src/git.go"],
    "one file, one path",
  );
  for (const flag of ["D:\\repo", "d:/repo/"]) {
    const list = parseEnvelope((await cliOk(sb, ["sessions", "--project", flag, "--json"])).out);
    assert.equal((list.data as { sessions: unknown[] }).sessions.length, 2, flag);
  }
  const hits = await cliOk(sb, [
    "search",
    "--project",
    "D:\\repo",
    "--path",
    "D:\\repo\\src\\git.go",
    "--json",
  ]);
  assert.equal((parseEnvelope(hits.out).data as { hits: unknown[] }).hits.length, 2);

  // a store an earlier build wrote filed them under the cwd as written: the next pass moves them
  {
    const db = new DatabaseSync(sb.store);
    db.exec(`UPDATE session_meta SET project = cwd, project_pre_worktree = NULL;
      DELETE FROM meta WHERE key = 'windows_projects_slashed'`);
    db.close();
  }
  await cliOk(sb, ["ingest"]);
  assert.deepEqual(
    query(sb.store, "SELECT project, project_pre_worktree AS pre FROM session_meta ORDER BY 1, 2"),
    [
      { project: "D:/repo", pre: null },
      { project: "D:/repo", pre: "D:/repo/.claude/worktrees/brave-fox" },
    ],
  );
});

Deno.test("a data directory this user cannot read: status and search say so and exit 1, never 'no store yet'", async () => {
  await using sb = await sandbox();
  await writeTranscript(
    sb.claude,
    CWD,
    `${SESSION}.jsonl`,
    JSON.stringify(rec("u1", "hidden")) + "\n",
  );
  await cliOk(sb, ["ingest"]);
  await Deno.chmod(sb.data, 0o000);
  try {
    // as root the child runs without the capabilities that skip permission checks: to it the
    // folder is another user's, unreadable
    for (const args of [["status"], ["search", "hidden", "--project", "*"]]) {
      const r = await runCli(sb, args, { asUser: true });
      assert.equal(r.code, 1, `${args[0]}: ${r.out}${r.err}`);
      assert.match(r.err, /cannot be read: permission denied/, args[0]);
      assert.doesNotMatch(r.out + r.err, /no store yet/, args[0]);
    }
  } finally {
    await Deno.chmod(sb.data, 0o700);
  }
});

Deno.test("doctor with 10,000 roots cuts the list with a count", async () => {
  await using sb = await sandbox();
  const roots = Array.from({ length: 10_000 }, (_, i) => `/nonexistent/terminus-roots/r${i}`);
  await Deno.writeTextFile(join(sb.config, "terminus.toml"), `roots = ${JSON.stringify(roots)}\n`);
  const r = await guarded(sb, ["doctor", "--json"]);
  const doc = parseEnvelope(r.out).data as Record<string, { state: string; finding: string }>;
  assert.equal(doc.config_roots.state, "problem");
  assert.match(doc.config_roots.finding, /r4 does not exist.*; and 9995 more$/);
  assert.ok(
    doc.config_roots.finding.length < 2000,
    `${doc.config_roots.finding.length} characters`,
  );
  const human = await guarded(sb, ["doctor"]);
  const longest = Math.max(...(human.out + human.err).split("\n").map((l) => l.length));
  assert.ok(longest < 2000, `a line of ${longest} characters`);
});

Deno.test("data move /proc/x says in our words that the path cannot be written", async () => {
  await using sb = await sandbox();
  await writeTranscript(sb.claude, CWD, `${SESSION}.jsonl`, JSON.stringify(rec("u1", "x")) + "\n");
  await cliOk(sb, ["ingest"]);
  const r = await runCli(sb, ["data", "move", "/proc/x", "--yes"]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /\/proc\/x cannot be written: it is a system path/);
  assert.doesNotMatch(r.err, /allow-all/);
});

/** A real 16 MiB tmpfs at `dir`; false (the test says it was skipped) where none can be made. */
async function tmpfs(dir: string): Promise<boolean> {
  await Deno.mkdir(dir, { recursive: true });
  try {
    const o = await new Deno.Command("mount", {
      args: ["-t", "tmpfs", "-o", "size=16m", "tmpfs", dir],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (o.success) return true;
    console.error(
      `left_out_test: no tmpfs (${new TextDecoder().decode(o.stderr).trim()}); skipped`,
    );
  } catch (e) {
    console.error(`left_out_test: no mount (${(e as Error).message}); skipped`);
  }
  return false;
}

Deno.test("passes that fail one after another on a full disk each keep their cause: none reads as killed", async () => {
  await using sb = await sandbox();
  const disk = join(sb.dir, "disk");
  if (!(await tmpfs(disk))) return;
  try {
    const opts = { env: { TERMINUS_DATA_DIR: join(disk, "data") } };
    await writeTranscript(
      sb.claude,
      CWD,
      `${SESSION}.jsonl`,
      JSON.stringify(rec("u1", "x")) + "\n",
    );
    await cliOk(sb, ["ingest"], opts);
    const filler = join(disk, "filler");
    {
      using f = await Deno.open(filler, { write: true, create: true });
      const chunk = new Uint8Array(64 * 1024);
      try {
        while (true) await f.write(chunk);
      } catch (e) {
        if (!/No space left/.test((e as Error).message)) throw e;
      }
    }
    // a hook starts a pass at every prompt: on a full disk each of them fails in turn
    for (let i = 0; i < 3; i++) {
      await Deno.writeTextFile(
        join(sb.claude, "projects", CWD.replace(/[^A-Za-z0-9]/g, "-"), `${SESSION}.jsonl`),
        JSON.stringify(rec(`u${i + 2}`, `more ${i}`)) + "\n",
        { append: true },
      );
      const failed = await runCli(sb, ["ingest"], opts);
      assert.equal(failed.code, 1, failed.out + failed.err);
      await new Promise((r) => setTimeout(r, 5)); // each pass its own start time
    }
    await Deno.remove(filler);
    const after = await runCli(sb, ["ingest"], opts);
    assert.equal(after.code, 0, after.err);
    const named = [...after.err.matchAll(/the pass started at (\S+) stopped/g)].map((m) => m[1]);
    assert.equal(new Set(named).size, 3, `every failed pass named for its cause: ${after.err}`);
    assert.doesNotMatch(after.err, /died or was killed/);
    const again = await runCli(sb, ["ingest"], opts);
    assert.doesNotMatch(again.err, /stopped/, "each cause is reported once");
  } finally {
    await new Deno.Command("umount", { args: [disk] }).output();
  }
});
