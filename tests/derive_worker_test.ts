/**
 * The derive worker: a pass with enough bytes waiting derives its windows on a worker thread
 * (parse, index rows, zstd, BLAKE3, observation) while the main thread writes. What it stores
 * must be exactly what the inline path stores, observations included.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cp } from "node:fs/promises";
import { DERIVE_WORKER_MIN_BYTES, PASS_WINDOW_BYTES } from "../core/constants.ts";
import {
  archivedStreams,
  assertSameBytes,
  bigTree,
  cliOk,
  corpusRoots,
  keyOf,
  prng,
  query,
  sandbox,
  syntheticSession,
  uuidFrom,
  writeTranscript,
} from "./helpers.ts";

const CORPUS = Deno.env.get("TERMINUS_TEST_CORPUS");

/** Every derived row and block, keyed by session key and turn number, never by row id. */
function dump(store: string): Record<string, unknown[]> {
  const key = "(SELECT session_key FROM sessions s WHERE s.session_no = t.session_no)";
  const words = ["worker", "manager", "retry", "src", "cargo", "archive", "error", "hook"];
  const fts: unknown[] = [];
  for (const w of words) {
    fts.push(
      w,
      query(
        store,
        `SELECT ${key} AS k, t.turn_seq AS seq FROM turns_fts f JOIN turns t ON t.id = f.rowid
         WHERE turns_fts MATCH ? ORDER BY k, seq`,
        w,
      ),
    );
  }
  return {
    turns: query(
      store,
      `SELECT ${key} AS k, turn_seq, uuid, parent_uuid, record_type, tool_name, ts,
         stream_offset, byte_len, is_typed, is_sidechain, is_tool_result
       FROM turns t ORDER BY k, turn_seq`,
    ),
    entities: query(
      store,
      `SELECT ${key} AS k, t.turn_seq, e.kind, e.value FROM entities e JOIN turns t ON t.id = e.turn_id
       ORDER BY k, t.turn_seq, e.kind, e.value`,
    ),
    paths: query(
      store,
      `SELECT ${key} AS k, t.turn_seq, p.path FROM paths p JOIN turns t ON t.id = p.turn_id
       ORDER BY k, t.turn_seq, p.path`,
    ),
    quotes: query(
      store,
      `SELECT ${key} AS k, t.turn_seq, q.text, q.is_reply FROM turn_text q JOIN turns t ON t.id = q.turn_id
       ORDER BY k, t.turn_seq`,
    ),
    blocks: query(
      store,
      `SELECT ${key} AS k, block_no, raw_len, hex(hash) AS h FROM blocks t ORDER BY k, block_no`,
    ),
    meta: query(
      store,
      `SELECT ${key} AS k, session_id, hex(checksum) AS c, uncompressed_len, first_turn_at,
         last_turn_at, cwd, project, branch, parent_session_key, turn_count, is_final
       FROM session_meta t ORDER BY k`,
    ),
    observations: query(
      store,
      `SELECT ${key} AS k, mechanical FROM observations t ORDER BY k`,
    ),
    fts,
  };
}

Deno.test("a pass big enough for the derive worker stores exactly what windows derived inline store", async () => {
  await using a = await sandbox();
  await using b = await sandbox();
  const root = a.claude;
  const tree = await bigTree(root, { files: 24, totalBytes: 8 * 1024 * 1024, seed: 7 });
  // one transcript longer than a window: its observation is carried from window to window
  const rand = prng(11);
  const sid = uuidFrom(rand);
  const long = await writeTranscript(
    root,
    "/nonexistent/terminus-big/long",
    `${sid}.jsonl`,
    syntheticSession({
      sessionId: sid,
      cwd: "/nonexistent/terminus-big/long",
      bytes: PASS_WINDOW_BYTES + 3 * 1024 * 1024,
      rand,
    }),
  );
  // and one whose middle record is a line longer than a window, an error the observation
  // names: that window is derived apart from the worker, which must not carry on observing
  const hid = uuidFrom(rand);
  const hcwd = "/nonexistent/terminus-big/huge";
  const head = syntheticSession({ sessionId: hid, cwd: hcwd, bytes: 2 * 1024 * 1024, rand });
  const hugeLine = JSON.stringify({
    type: "user",
    uuid: uuidFrom(rand),
    parentUuid: null,
    timestamp: "2026-08-12T23:59:00.000Z",
    cwd: hcwd,
    sessionId: hid,
    message: {
      role: "user",
      content: [{
        type: "tool_result",
        tool_use_id: "toolu_huge",
        is_error: true,
        content: "quokka-overflow: the ledger would not balance\n" +
          "x".repeat(PASS_WINDOW_BYTES + 1024 * 1024),
      }],
    },
  }) + "\n";
  const tail = syntheticSession({
    sessionId: hid,
    cwd: hcwd,
    bytes: 2 * 1024 * 1024,
    rand,
    start: new Date("2026-08-13T01:00:00.000Z"),
  });
  const huge = await writeTranscript(root, hcwd, `${hid}.jsonl`, head + hugeLine + tail);
  const files = [...tree.files, long, huge];
  if (CORPUS) {
    // genuine records: files read and modified, errors and commits for the observations
    for (const r of corpusRoots(CORPUS)) {
      await cp(join(r, "projects"), join(root, "projects"), { recursive: true });
    }
  }
  let waiting = 0;
  for (const f of files) waiting += (await Deno.stat(f)).size;
  assert.ok(waiting >= DERIVE_WORKER_MIN_BYTES, "the whole pass is big enough for the worker");

  // a: one whole-tree pass, derived on the worker
  await cliOk(a, ["ingest"]);
  // b: file by file (each below the worker's threshold but the long one), then a pass that
  // closes and observes them by reading their blocks back
  const env = { CLAUDE_CONFIG_DIR: root };
  const all = query<{ path: string }>(a.store, "SELECT transcript_path AS path FROM session_meta")
    .map((r) => r.path).sort();
  assert.ok(all.length >= files.length);
  for (const f of all) await cliOk(b, ["ingest", f], { env });
  await cliOk(b, ["ingest"], { env });

  const streams = await archivedStreams(a.store);
  for (const f of files) assertSameBytes(streams.get(keyOf(root, f)), await Deno.readFile(f), f);
  const da = dump(a.store);
  const db = dump(b.store);
  assert.ok((da.turns as unknown[]).length > 1000, "turns were derived");
  assert.ok((da.observations as unknown[]).length > 10, "closed sessions were observed");
  const hugeObs = (da.observations as { k: string; mechanical: string }[])
    .find((o) => o.k === `${hid}.jsonl`);
  assert.ok(hugeObs?.mechanical.includes("quokka-overflow"), "the long line's error is observed");
  for (const k of Object.keys(da)) assert.deepEqual(da[k], db[k], `${k} differ`);
});
