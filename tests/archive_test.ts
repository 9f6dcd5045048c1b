/**
 * The archive pass over hand-written fixtures: what is kept (every byte), what is a turn,
 * partial lines, records spanning blocks, sidecars, continuations and compactions. Each
 * test reads the archived stream back in-process and compares it with the file.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  appendTo,
  archivedStreams,
  assertArchiveEqualsFiles,
  assertSameBytes,
  cliOk,
  encodeCwd,
  fixture,
  jsonl,
  parseEnvelope,
  query,
  sandbox,
  writeConfig,
  writeTranscript,
} from "./helpers.ts";
import { openRead } from "../core/store/db.ts";
import { BlockCache, readStream } from "../core/store/archive.ts";
import { initCodec } from "../core/store/codec.ts";
import { BLOCK_BYTES, TURN_SEQ_SPAN } from "../core/constants.ts";

const ALPHA = "/nonexistent/terminus-fixtures/alpha";
const ID1 = "11111111-1111-4111-8111-111111111111";
const ID2 = "22222222-2222-4222-8222-222222222222";
const ID3 = "33333333-3333-4333-8333-333333333333";
const ID4 = "44444444-4444-4444-8444-444444444444";
const ID5 = "55555555-5555-4555-8555-555555555555";

interface TurnRow {
  id: number;
  session_no: number;
  turn_seq: number;
  uuid: string;
  record_type: string;
  stream_offset: number;
  byte_len: number;
  is_typed: number;
  is_sidechain: number;
}

function turnsOf(store: string, key: string): TurnRow[] {
  return query<TurnRow>(
    store,
    `SELECT t.* FROM turns t JOIN sessions s USING (session_no) WHERE s.session_key = ?
     ORDER BY t.turn_seq`,
    key,
  );
}

function metaOf(store: string, key: string): Record<string, unknown> {
  const rows = query(
    store,
    `SELECT m.*, w.offset AS watermark FROM session_meta m JOIN sessions s USING (session_no)
     LEFT JOIN watermarks w USING (session_no) WHERE s.session_key = ?`,
    key,
  );
  assert.equal(rows.length, 1, `one session_meta row for ${key}`);
  return rows[0];
}

async function status(sb: Awaited<ReturnType<typeof sandbox>>) {
  const r = await cliOk(sb, ["status", "--json"]);
  return parseEnvelope(r.out).data as Record<string, unknown> & {
    last_run: Record<string, unknown>;
  };
}

async function verifyClean(sb: Awaited<ReturnType<typeof sandbox>>, checked: number) {
  const r = await cliOk(sb, ["verify", "--json"]);
  const doc = parseEnvelope(r.out);
  assert.equal(doc.ok, true);
  assert.deepEqual(doc.data, { checked, failures: [] });
  assert.equal(r.err, "");
}

Deno.test("every record type is archived byte for byte, and only typed records with uuid and timestamp are turns", async () => {
  await using sb = await sandbox();
  const content = await fixture("every_record.jsonl");
  const path = await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, content);

  const r = await cliOk(sb, ["ingest"]);
  assert.equal(r.out, "", "ingest prints nothing on stdout");
  assert.match(r.err, /1 file\(s\) walked, 1 committed, 0 failed/);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [path]);

  const key = `${ID1}.jsonl`;
  const turns = turnsOf(sb.store, key);
  assert.deepEqual(
    turns.map((t) => t.record_type),
    ["user", "attachment", "assistant", "assistant", "user", "system"],
  );
  assert.deepEqual(
    turns.map((t) => t.uuid),
    [1, 2, 3, 4, 5, 6].map((n) => `a0000000-0000-4000-8000-00000000000${n}`),
  );
  const lines = new TextDecoder().decode(content).split("\n");
  for (const t of turns) {
    assert.equal(
      t.id,
      t.session_no * TURN_SEQ_SPAN + t.turn_seq,
      "turn id = session_no << 24 | seq",
    );
    // each turn addresses its own line in the stream
    const line = new TextDecoder().decode(
      content.subarray(t.stream_offset, t.stream_offset + t.byte_len),
    );
    assert.ok(lines.includes(line), `turn ${t.turn_seq} addresses a whole line`);
    assert.equal(JSON.parse(line).uuid, t.uuid);
  }
  assert.deepEqual(turns.map((t) => t.is_typed), [1, 0, 0, 0, 0, 0], "only the prompt was typed");

  const m = metaOf(sb.store, key);
  assert.equal(m.session_id, ID1);
  assert.equal(m.project, ALPHA, "a cwd that does not exist is its own project");
  assert.equal(m.cwd, ALPHA);
  assert.equal(m.branch, "phase-3", "the branch of the last record that named one");
  assert.equal(m.first_turn_at, "2026-08-12T21:00:00.100Z");
  assert.equal(m.last_turn_at, "2026-08-12T21:00:04.000Z");
  assert.equal(m.uncompressed_len, content.length);
  assert.equal(m.watermark, content.length);
  assert.equal(m.transcript_path, path);
  assert.equal(m.parent_session_key, null);

  const s = await status(sb);
  assert.equal(s.sessions, 1);
  assert.equal(s.turns, 6);
  assert.equal(s.watermarks, 1);
  assert.equal(s.watermark_bytes, content.length);
  assert.equal(s.last_run.files_committed, 1);
  assert.equal(s.last_run.bytes_read, content.length);
  assert.equal(s.last_run.turns_added, 6);
  assert.equal(s.last_run.error, null);
  await verifyClean(sb, 1);

  // a second pass finds nothing new and changes nothing
  const again = await cliOk(sb, ["ingest"]);
  assert.match(again.err, /0 committed, 0 failed, 0 byte\(s\) read, 0 turn\(s\) added/);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [path]);
  assert.equal(turnsOf(sb.store, key).length, 6);
});

Deno.test("a partial last line is archived only once it is completed", async () => {
  await using sb = await sandbox();
  const content = await fixture("compaction.jsonl");
  const text = new TextDecoder().decode(content);
  const cut = text.indexOf("\n", text.indexOf("\n", text.indexOf("\n") + 1) + 1) + 1; // 3 lines
  const half = cut + 40;
  const path = await writeTranscript(sb.claude, ALPHA, `${ID2}.jsonl`, content.subarray(0, half));
  // a file that is nothing but a partial line has nothing to archive yet
  const lonelyId = "77777777-7777-4777-8777-777777777777";
  const lonely = await writeTranscript(
    sb.claude,
    ALPHA,
    `${lonelyId}.jsonl`,
    '{"type":"user","uuid":"x"',
  );

  await cliOk(sb, ["ingest"]);
  let streams = await archivedStreams(sb.store);
  assertSameBytes(streams.get(`${ID2}.jsonl`), content.subarray(0, cut), "the complete lines");
  assert.equal(streams.has(`${lonelyId}.jsonl`), false, "no complete line, no session");
  assert.equal(
    metaOf(sb.store, `${ID2}.jsonl`).watermark,
    cut,
    "watermark just past the last newline",
  );
  assert.equal(turnsOf(sb.store, `${ID2}.jsonl`).length, 3);

  // the writer finishes the line (and the rest of the session): the next pass picks it up
  await appendTo(path, content.subarray(half));
  await appendTo(lonely, ',"timestamp":"2026-08-13T11:00:00.000Z"}\n');
  await cliOk(sb, ["ingest"]);
  streams = await archivedStreams(sb.store);
  assertSameBytes(streams.get(`${ID2}.jsonl`), content, "the whole file");
  assertSameBytes(
    streams.get(`${lonelyId}.jsonl`),
    await Deno.readFile(lonely),
    "the completed line",
  );
  assert.deepEqual(
    turnsOf(sb.store, `${ID2}.jsonl`).map((t) => t.turn_seq),
    [0, 1, 2, 3, 4, 5, 6, 7],
    "turn_seq carries on across passes",
  );
  await verifyClean(sb, 2);
});

Deno.test("a record spanning several 64 KiB blocks round-trips, and completed blocks never move", async () => {
  await using sb = await sandbox();
  const big = "x".repeat(40) + "retryBudget ".repeat(200_000 / 12);
  const line = (uuid: string, text: string, n: number) => ({
    parentUuid: null,
    type: "user",
    uuid,
    timestamp: `2026-08-18T10:00:0${n}.000Z`,
    cwd: ALPHA,
    sessionId: ID1,
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: text }] },
  });
  const first = jsonl([
    line("b1000000-0000-4000-8000-000000000001", "short", 1),
    line("b1000000-0000-4000-8000-000000000002", big, 2),
    line("b1000000-0000-4000-8000-000000000003", "short again", 3),
  ]);
  const path = await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, first);
  assert.ok(first.length > 3 * BLOCK_BYTES);

  await cliOk(sb, ["ingest"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [path]);
  const blocksBefore = query<
    { block_no: number; raw_len: number; hash: Uint8Array; bytes: Uint8Array }
  >(
    sb.store,
    "SELECT block_no, raw_len, hash, bytes FROM blocks ORDER BY block_no",
  );
  assert.equal(blocksBefore.length, Math.ceil(first.length / BLOCK_BYTES));

  // the big turn reads back from its (offset, length) across the blocks it spans
  const t = turnsOf(sb.store, `${ID1}.jsonl`)[1];
  assert.ok(t.byte_len > 3 * BLOCK_BYTES);
  await initCodec();
  const opened = openRead(sb.store)!;
  try {
    const rec = readStream(opened.db, t.session_no, t.stream_offset, t.byte_len);
    assert.equal(JSON.parse(new TextDecoder().decode(rec)).message.content[0].content, big);
  } finally {
    opened.db.close();
  }

  // appending rewrites only the trailing partial block
  await appendTo(
    path,
    jsonl([line("b1000000-0000-4000-8000-000000000004", big.slice(0, 100_000), 4)]),
  );
  await cliOk(sb, ["ingest"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [path]);
  const blocksAfter = query<
    { block_no: number; raw_len: number; hash: Uint8Array; bytes: Uint8Array }
  >(
    sb.store,
    "SELECT block_no, raw_len, hash, bytes FROM blocks ORDER BY block_no",
  );
  const full = Math.floor(first.length / BLOCK_BYTES);
  for (let i = 0; i < full; i++) {
    assert.deepEqual(blocksAfter[i].hash, blocksBefore[i].hash, `block ${i} kept its hash`);
    assert.deepEqual(blocksAfter[i].bytes, blocksBefore[i].bytes, `block ${i} kept its bytes`);
  }
  const total = (await Deno.stat(path)).size;
  assert.equal(blocksAfter.length, Math.ceil(total / BLOCK_BYTES));
  for (const b of blocksAfter.slice(0, -1)) assert.equal(b.raw_len, BLOCK_BYTES);
  await verifyClean(sb, 1);
});

Deno.test("a subagent sidecar tree: keys, parent, meta, and what is not a transcript", async () => {
  await using sb = await sandbox();
  const parent = await fixture("sidecar/parent.jsonl");
  const agent = await fixture("sidecar/agent-a1.jsonl");
  const meta = await fixture("sidecar/agent-a1.meta.json");
  const journal = await fixture("sidecar/journal.jsonl");
  const files = [
    await writeTranscript(sb.claude, ALPHA, `${ID4}.jsonl`, parent),
    await writeTranscript(sb.claude, ALPHA, `${ID4}/subagents/agent-a1.jsonl`, agent),
    await writeTranscript(
      sb.claude,
      ALPHA,
      `${ID4}/subagents/workflows/wf_1/agent-w1.jsonl`,
      agent,
    ),
    // the 2.0.x layout: agent-*.jsonl directly in the project folder
    await writeTranscript(sb.claude, ALPHA, "agent-old1.jsonl", agent),
  ];
  // none of these is a transcript
  await writeTranscript(sb.claude, ALPHA, `${ID4}/subagents/agent-a1.meta.json`, meta);
  await writeTranscript(sb.claude, ALPHA, `${ID4}/subagents/workflows/wf_1/journal.jsonl`, journal);
  await writeTranscript(sb.claude, ALPHA, `${ID4}/tool-results/agent-spill.jsonl`, agent);
  await writeTranscript(sb.claude, ALPHA, "notes.jsonl", agent);
  await writeTranscript(sb.claude, ALPHA, `${ID4}.jsonl.bak`, agent);

  await cliOk(sb, ["ingest"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, files);

  const a1 = metaOf(sb.store, `${ID4}/subagents/agent-a1.jsonl`);
  assert.equal(a1.parent_session_key, `${ID4}.jsonl`);
  assert.equal(a1.agent_meta, null, "the .meta.json beside it is not opened: it is no transcript");
  assert.equal(a1.session_id, ID4, "a sidecar carries its parent's session id");
  assert.ok(
    turnsOf(sb.store, `${ID4}/subagents/agent-a1.jsonl`).every((t) => t.is_sidechain === 1),
  );

  const w1 = metaOf(sb.store, `${ID4}/subagents/workflows/wf_1/agent-w1.jsonl`);
  assert.equal(w1.parent_session_key, `${ID4}.jsonl`);
  assert.equal(w1.agent_meta, null, "no .meta.json beside it");

  // outside the two key shapes: keyed by its canonical path
  const old = metaOf(sb.store, await Deno.realPath(files[3]));
  assert.equal(old.parent_session_key, `${ID4}.jsonl`, "the parent from the records' sessionId");
  assert.equal(metaOf(sb.store, `${ID4}.jsonl`).parent_session_key, null);
  await verifyClean(sb, 4);
});

Deno.test("continuations: a foreign snake_case session_id, and a first turn whose parent is archived", async () => {
  await using sb = await sandbox();
  const files = [
    await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, await fixture("every_record.jsonl")),
    await writeTranscript(sb.claude, ALPHA, `${ID3}.jsonl`, await fixture("continuation.jsonl")),
    await writeTranscript(sb.claude, ALPHA, `${ID5}.jsonl`, await fixture("parent_link.jsonl")),
  ];
  await cliOk(sb, ["ingest"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, files);
  assert.equal(metaOf(sb.store, `${ID1}.jsonl`).continues_from, null);
  assert.equal(
    metaOf(sb.store, `${ID3}.jsonl`).continues_from,
    ID1,
    "the foreign id, not the file's own id that appears first",
  );
  assert.equal(
    metaOf(sb.store, `${ID5}.jsonl`).continues_from,
    ID1,
    "from the first turn's parentUuid",
  );
  await verifyClean(sb, 3);
});

Deno.test("a continuation whose predecessor arrives in a later pass is linked then", async () => {
  await using sb = await sandbox();
  const later = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID5}.jsonl`,
    await fixture("parent_link.jsonl"),
  );
  await cliOk(sb, ["ingest"]);
  assert.equal(
    metaOf(sb.store, `${ID5}.jsonl`).continues_from,
    null,
    "predecessor not archived yet",
  );
  const earlier = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );
  await cliOk(sb, ["ingest"]);
  assert.equal(metaOf(sb.store, `${ID5}.jsonl`).continues_from, ID1);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [later, earlier]);
});

Deno.test("a compaction: the boundary is recorded and the summary is not a typed prompt", async () => {
  await using sb = await sandbox();
  const path = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID2}.jsonl`,
    await fixture("compaction.jsonl"),
  );
  await cliOk(sb, ["ingest"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [path]);
  const turns = turnsOf(sb.store, `${ID2}.jsonl`);
  assert.equal(turns.length, 8);
  const cb = query<{ turn_id: number; preserved: string | null }>(
    sb.store,
    "SELECT turn_id, preserved FROM compaction_boundaries",
  );
  assert.equal(cb.length, 1);
  assert.equal(cb[0].turn_id, turns[4].id, "the compact_boundary system record");
  assert.deepEqual(JSON.parse(cb[0].preserved!), ["c0000000-0000-4000-8000-000000000004"]);
  assert.equal(turns[4].record_type, "system");
  assert.deepEqual(turns.map((t) => t.is_typed), [1, 0, 0, 0, 0, 0, 1, 0]);
  await verifyClean(sb, 1);
});

Deno.test("everything in the data directory is owner-only: folders 0700, files 0600", async () => {
  await using sb = await sandbox();
  await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, await fixture("every_record.jsonl"));
  await cliOk(sb, ["ingest"]);
  await cliOk(sb, ["status"]); // a reader opening the store must not widen anything either
  const seen: string[] = [];
  const walk = async (dir: string) => {
    const st = await Deno.stat(dir);
    assert.equal((st.mode! & 0o777).toString(8), "700", `${dir} is 0700`);
    for await (const e of Deno.readDir(dir)) {
      const p = join(dir, e.name);
      seen.push(e.name);
      if (e.isDirectory) await walk(p);
      else assert.equal(((await Deno.stat(p)).mode! & 0o777).toString(8), "600", `${p} is 0600`);
    }
  };
  await walk(sb.data);
  assert.ok(seen.includes("terminus.db"));
  assert.ok(seen.includes("LOCK"));
});

Deno.test("the same root listed twice, or reached through a symlink, archives each file once", async () => {
  await using sb = await sandbox();
  const path = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );
  const link = join(sb.dir, "claude-link");
  await Deno.symlink(sb.claude, link);
  await Deno.writeTextFile(
    join(sb.config, "terminus.toml"),
    `roots = [${JSON.stringify(sb.claude)}, ${JSON.stringify(link)}, ${
      JSON.stringify(sb.claude)
    }]\n`,
  );
  await cliOk(sb, ["ingest"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [path]);
  assert.equal(turnsOf(sb.store, `${ID1}.jsonl`).length, 6);
});

Deno.test("session keys survive a moved .claude folder: nothing is archived twice, growth carries on", async () => {
  await using sb = await sandbox();
  const content = await fixture("compaction.jsonl");
  const half = content.indexOf(0x0a, content.length / 2) + 1;
  await writeTranscript(sb.claude, ALPHA, `${ID2}.jsonl`, content.subarray(0, half));
  await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID4}/subagents/agent-a1.jsonl`,
    await fixture("sidecar/agent-a1.jsonl"),
  );
  await cliOk(sb, ["ingest"]);
  const keys = query(sb.store, "SELECT session_no, session_key FROM sessions ORDER BY session_no");

  // Claude Code's folder moves, and is reached through a symlink as well
  const moved = join(sb.dir, "claude-moved");
  await Deno.rename(sb.claude, moved);
  const link = join(sb.dir, "claude-link");
  await Deno.symlink(moved, link);
  const env = { CLAUDE_CONFIG_DIR: link };
  const path = join(moved, "projects", encodeCwd(ALPHA), `${ID2}.jsonl`);
  await appendTo(path, content.subarray(half));
  const r = await cliOk(sb, ["ingest"], { env });
  assert.match(r.err, /1 committed/, "only the grown file has anything new");
  assert.deepEqual(
    query(sb.store, "SELECT session_no, session_key FROM sessions ORDER BY session_no"),
    keys,
    "the same sessions under the same keys",
  );
  const streams = await archivedStreams(sb.store);
  assertSameBytes(streams.get(`${ID2}.jsonl`), content, "the stream carried on where it stopped");
  assert.equal(turnsOf(sb.store, `${ID2}.jsonl`).length, 8);
  await verifyClean(sb, 2);
});

Deno.test("a transcript that is a symlink is keyed by the file it points at", async () => {
  await using sb = await sandbox();
  const content = await fixture("every_record.jsonl");
  // the real file sits outside any projects folder
  const outside = join(sb.dir, "elsewhere", `${ID1}.jsonl`);
  await Deno.mkdir(join(sb.dir, "elsewhere"));
  await Deno.writeFile(outside, content);
  const linkPath = join(sb.claude, "projects", encodeCwd(ALPHA), `${ID3}.jsonl`);
  await Deno.mkdir(join(sb.claude, "projects", encodeCwd(ALPHA)));
  await Deno.symlink(outside, linkPath);
  await cliOk(sb, ["ingest"]);
  const streams = await archivedStreams(sb.store);
  assert.deepEqual([...streams.keys()], [await Deno.realPath(outside)], "its canonical path");
  assertSameBytes(streams.get(await Deno.realPath(outside)), content, "its bytes");
});

Deno.test("capture lean and minimal replace tool output with a size note; full keeps every byte", async () => {
  const big = "y".repeat(9_000);
  const rec = (n: number, out: string) => ({
    type: "user",
    uuid: `c1000000-0000-4000-8000-00000000000${n}`,
    timestamp: `2026-08-21T10:00:0${n}.000Z`,
    sessionId: ID1,
    cwd: ALPHA,
    message: {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `t${n}`, content: out }],
    },
    toolUseResult: { stdout: out },
  });
  const text = jsonl([rec(1, "small output"), rec(2, big), { type: "summary", summary: "s" }]);
  for (const mode of ["full", "lean", "minimal"]) {
    await using sb = await sandbox();
    const path = await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, text);
    await writeConfig(sb, `[capture]\nmode = "${mode}"\n`);
    await cliOk(sb, ["ingest"]);
    const stream = new TextDecoder().decode((await archivedStreams(sb.store)).get(`${ID1}.jsonl`));
    const lines = stream.trimEnd().split("\n").map((l) => JSON.parse(l));
    assert.equal(lines.length, 3, `${mode}: every record is kept`);
    if (mode === "full") {
      assert.equal(stream, text, "full: the transcript exactly");
    } else {
      assert.match(
        lines[1].toolUseResult,
        new RegExp(`^\\[terminus capture ${mode}: `),
        `${mode}: big replaced`,
      );
      assert.equal(
        lines[1].message.content[0].content,
        big,
        `${mode}: a tool_result block is kept`,
      );
      if (mode === "lean") assert.deepEqual(lines[0].toolUseResult, { stdout: "small output" });
      else assert.match(lines[0].toolUseResult, /^\[terminus capture minimal: /);
      assert.deepEqual(lines[2], { type: "summary", summary: "s" });
    }
    // the watermark is the file's, so a second pass reads nothing again
    assert.equal(metaOf(sb.store, `${ID1}.jsonl`).watermark, text.length);
    const again = await cliOk(sb, ["ingest"]);
    assert.match(again.err, /0 committed, 0 failed, 0 byte\(s\) read/, `${mode}: nothing re-read`);
    await verifyClean(sb, 1);
    assert.ok(await Deno.stat(path));
  }
});

Deno.test("turns read through one kept block, in any order and across sessions, are the file's bytes", async () => {
  await using sb = await sandbox();
  // two sessions of several blocks each, with turns that share blocks and turns that span them
  const line = (id: string, n: number, text: string) => ({
    parentUuid: null,
    type: "user",
    uuid: `c${id.slice(0, 7)}-0000-4000-8000-${String(n).padStart(12, "0")}`,
    timestamp: `2026-08-18T10:${String(n).padStart(2, "0")}:00.000Z`,
    cwd: ALPHA,
    sessionId: id,
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: text }] },
  });
  const files: { id: string; path: string; bytes: Uint8Array }[] = [];
  for (const [id, seed] of [[ID1, "alpha"], [ID2, "beta"]] as const) {
    const lines = [];
    for (let n = 0; n < 24; n++) {
      // the same block numbers in both sessions hold other bytes
      lines.push(line(id, n, `${seed} turn ${n} `.repeat(n % 5 === 4 ? 9_000 : 300 + n * 40)));
    }
    const text = jsonl(lines);
    const path = await writeTranscript(sb.claude, ALPHA, `${id}.jsonl`, text);
    files.push({ id, path, bytes: new TextEncoder().encode(text) });
  }
  await cliOk(sb, ["ingest"]);
  await initCodec();
  const opened = openRead(sb.store)!;
  try {
    const reads = files.flatMap((f) =>
      turnsOf(sb.store, `${f.id}.jsonl`).map((t) => ({ t, want: f.bytes }))
    );
    assert.ok(reads.some(({ t }) => t.byte_len > BLOCK_BYTES), "a turn spans blocks");
    assert.ok(
      reads.some(({ t }, i) =>
        i > 0 && Math.floor(t.stream_offset / BLOCK_BYTES) ===
          Math.floor(reads[i - 1].t.stream_offset / BLOCK_BYTES)
      ),
      "neighbours share a block",
    );
    // one turn of each session in turn: the same block number, held for the other session
    const [a, b] = files.map((f) => reads.filter((r) => r.want === f.bytes));
    const interleaved = a.flatMap((r, i) => (b[i] ? [r, b[i]] : [r]));
    for (const order of [reads, [...reads].reverse(), interleaved]) {
      const cache = new BlockCache();
      for (const { t, want } of order) {
        const got = readStream(opened.db, t.session_no, t.stream_offset, t.byte_len, cache);
        assert.deepEqual(
          got,
          want.subarray(t.stream_offset, t.stream_offset + t.byte_len),
          `session ${t.session_no} turn ${t.turn_seq}`,
        );
      }
    }
  } finally {
    opened.db.close();
  }
});

Deno.test("a reader keeps a page cache under SQLite's default", async () => {
  await using sb = await sandbox();
  await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, jsonl([]));
  await cliOk(sb, ["ingest"]);
  const opened = openRead(sb.store)!;
  try {
    const kib = -(opened.db.prepare("PRAGMA cache_size").get() as { cache_size: number })
      .cache_size;
    assert.ok(kib > 0 && kib < 2000, `a reader's cache is ${kib} KiB, under SQLite's 2000`);
  } finally {
    opened.db.close();
  }
});
