/**
 * terminus verify on damaged stores: every kind of damage it must catch, the failure
 * document it writes, and the one-line-per-failure human output. The damage is done with
 * plain SQL on a store a real pass wrote.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { zstdCompressSync } from "node:zlib";
import {
  cliOk,
  jsonl,
  parseEnvelope,
  runCli,
  type Sandbox,
  sandbox,
  writeTranscript,
} from "./helpers.ts";
import { BLOCK_BYTES } from "../core/constants.ts";

const ALPHA = "/nonexistent/terminus-fixtures/alpha";
const A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";

/** Two sessions, the first spanning four blocks. */
async function twoSessions(): Promise<Sandbox> {
  const sb = await sandbox();
  const rec = (sid: string, n: number, text: string) => ({
    type: "user",
    uuid: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    timestamp: `2026-08-20T10:00:${String(n % 60).padStart(2, "0")}.000Z`,
    sessionId: sid,
    cwd: ALPHA,
    message: { role: "user", content: text },
  });
  const lines = [];
  for (let i = 0; i < 8; i++) lines.push(rec(A, i, `line ${i} `.repeat(4000)));
  await writeTranscript(sb.claude, ALPHA, `${A}.jsonl`, jsonl(lines));
  await writeTranscript(sb.claude, ALPHA, `${B}.jsonl`, jsonl([rec(B, 1, "small")]));
  await cliOk(sb, ["ingest"]);
  return sb;
}

function damage(sb: Sandbox, sql: string, ...params: (string | number | Uint8Array)[]) {
  const db = new DatabaseSync(sb.store);
  try {
    const n = db.prepare(sql).run(...params).changes;
    assert.ok(Number(n) > 0, `the damage changed something: ${sql}`);
  } finally {
    db.close();
  }
}

const SESSION_A = `(SELECT session_no FROM sessions WHERE session_key = '${A}.jsonl')`;

interface Failure {
  session_key: string;
  block: number | null;
  detail: string;
}

async function expectFailures(sb: Sandbox, want: { block: number | null; detail: RegExp }[]) {
  const r = await runCli(sb, ["verify", "--json"]);
  assert.equal(r.code, 1, "failures exit 1");
  const doc = parseEnvelope(r.out);
  assert.equal(doc.ok, false);
  assert.match(doc.reason!, /failure\(s\) in 1 session\(s\)/);
  assert.equal(r.err, "", "the document is the evidence; nothing on stderr");
  const data = doc.data as { checked: number; failures: Failure[] };
  assert.equal(data.checked, 2, "every session is still checked");
  for (const w of want) {
    assert.ok(
      data.failures.some((f) =>
        f.session_key === `${A}.jsonl` && f.block === w.block && w.detail.test(f.detail)
      ),
      `a failure for block ${w.block} matching ${w.detail}: ${JSON.stringify(data.failures)}`,
    );
  }
  assert.ok(
    data.failures.every((f) => f.session_key === `${A}.jsonl`),
    "the other session is clean",
  );

  const human = await runCli(sb, ["verify"]);
  assert.equal(human.code, 1);
  const lines = human.out.trimEnd().split("\n");
  assert.equal(lines.length, data.failures.length, "one stdout line per failure");
  for (const [i, f] of data.failures.entries()) {
    const expected = f.block === null
      ? `${f.session_key}: ${f.detail}`
      : `${f.session_key}: block ${f.block}: ${f.detail}`;
    assert.equal(lines[i], expected);
  }
  assert.match(human.err, /2 session\(s\) checked, \d+ failure\(s\)/);
}

Deno.test("verify: a clean store first, so the damage below is what fails", async () => {
  await using sb = await twoSessions();
  const r = await cliOk(sb, ["verify", "--json"]);
  assert.deepEqual(parseEnvelope(r.out).data, { checked: 2, failures: [] });
  const blocks = await runCli(sb, ["status", "--json"]);
  assert.equal((parseEnvelope(blocks.out).data as { sessions: number }).sessions, 2);
});

Deno.test("verify catches a block whose bytes no longer match its hash", async () => {
  await using sb = await twoSessions();
  const other = new Uint8Array(zstdCompressSync(new Uint8Array(BLOCK_BYTES).fill(0x41)));
  damage(sb, `UPDATE blocks SET bytes = ? WHERE session_no = ${SESSION_A} AND block_no = 1`, other);
  await expectFailures(sb, [{ block: 1, detail: /hash does not match/ }]);
});

Deno.test("verify catches a block that does not decompress", async () => {
  await using sb = await twoSessions();
  damage(
    sb,
    `UPDATE blocks SET bytes = ? WHERE session_no = ${SESSION_A} AND block_no = 2`,
    new Uint8Array([1, 2, 3, 4, 5]),
  );
  await expectFailures(sb, [{ block: 2, detail: /does not decompress/ }]);
});

Deno.test("verify catches a session checksum that no longer matches its block hashes", async () => {
  await using sb = await twoSessions();
  damage(
    sb,
    `UPDATE session_meta SET checksum = ? WHERE session_no = ${SESSION_A}`,
    new Uint8Array(32),
  );
  await expectFailures(sb, [{ block: null, detail: /checksum/ }]);
});

Deno.test("verify catches a missing block", async () => {
  await using sb = await twoSessions();
  damage(sb, `DELETE FROM blocks WHERE session_no = ${SESSION_A} AND block_no = 1`);
  await expectFailures(sb, [{ block: 1, detail: /missing/ }]);
});

Deno.test("verify catches a recorded length that disagrees with the blocks", async () => {
  await using sb = await twoSessions();
  damage(
    sb,
    `UPDATE blocks SET raw_len = raw_len - 1 WHERE session_no = ${SESSION_A} AND block_no = 0`,
  );
  await expectFailures(sb, [{ block: 0, detail: /recorded/ }]);
});

Deno.test("verify catches a session with no session_meta row", async () => {
  await using sb = await twoSessions();
  damage(sb, `DELETE FROM session_meta WHERE session_no = ${SESSION_A}`);
  await expectFailures(sb, [{ block: null, detail: /session_meta/ }]);
});

Deno.test("status and verify on a store whose derived tables are older: warn, work, change nothing", async () => {
  await using sb = await twoSessions();
  damage(sb, "UPDATE meta SET value = '0' WHERE key = 'derived_schema'");
  const before = await Deno.readFile(sb.store);
  for (const cmd of ["status", "verify"]) {
    const r = await runCli(sb, [cmd, "--json"]);
    assert.equal(r.code, 0, `${cmd} still answers`);
    assert.equal(parseEnvelope(r.out).ok, true);
    assert.match(r.err, /derived tables predate this build/, `${cmd} warns on stderr`);
  }
  assert.deepEqual(
    await Deno.readFile(sb.store),
    before,
    "terminus.db is byte for byte what it was",
  );

  // the next pass rebuilds them, with the same turn ids
  const db = new DatabaseSync(sb.store, { readOnly: true });
  const ids = db.prepare("SELECT id, uuid FROM turns ORDER BY id").all();
  db.close();
  const r = await cliOk(sb, ["ingest"]);
  assert.equal(r.code, 0);
  const status = parseEnvelope((await cliOk(sb, ["status", "--json"])).out).data as {
    last_run: { notes: string[] | null };
  };
  assert.ok(status.last_run.notes?.some((n) => /rebuilt/.test(n)), JSON.stringify(status.last_run));
  const after = new DatabaseSync(sb.store, { readOnly: true });
  assert.deepEqual(after.prepare("SELECT id, uuid FROM turns ORDER BY id").all(), ids);
  after.close();
  const v = await runCli(sb, ["verify", "--json"]);
  assert.equal(v.err, "", "no warning once rebuilt");
});
