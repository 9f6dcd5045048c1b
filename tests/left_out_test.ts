/**
 * Issue 46: what stopped the archive or left something out, each driven for real (a real FIFO
 * behind a real link, /dev/zero, a real SIGKILL, a real 300 MB line, a transcript idle past the
 * closing rule). docs/design/faults.md lists what each guarantees.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  cliArgs,
  cliOk,
  parseEnvelope,
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
