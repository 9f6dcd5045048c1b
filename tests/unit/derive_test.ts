/**
 * The pure steps of archiving: a chunk of transcript bytes to its stream and derived rows
 * (core/ingest/chunk.ts), one record to its turn row (core/index/derive.ts), and the order
 * hits are ranked in (core/recall/rank.ts compareHits). No store, no file system.
 */
import assert from "node:assert/strict";
import { deriveChunk } from "../../core/ingest/chunk.ts";
import { deriveTurn } from "../../core/index/derive.ts";
import { compareHits } from "../../core/recall/rank.ts";
import { jsonl } from "../helpers.ts";

const enc = new TextEncoder();
const CWD = "/nonexistent/terminus-unit/alpha";

function chunkOf(text: string, end = enc.encode(text).length) {
  return deriveChunk({
    chunk: enc.encode(text),
    end,
    mode: "full",
    streamOffset: 100,
    turnSeq: 7,
    sidecar: false,
    sessionId: null,
    cwd: null,
  });
}

const user = (uuid: string, ts: string, content: string) => ({
  type: "user",
  uuid,
  sessionId: "s-1",
  cwd: CWD,
  gitBranch: "main",
  timestamp: ts,
  message: { role: "user", content },
});

Deno.test("chunk: complete lines become the stream verbatim, turns numbered on from where the session stood", () => {
  const text = jsonl([
    user("u1", "2026-11-30T10:00:02Z", "second"),
    { type: "summary", summary: "not a turn" },
    user("u2", "2026-11-30T10:00:01Z", "first by time"),
  ]);
  const out = chunkOf(text);
  assert.equal(new TextDecoder().decode(out.stream), text);
  assert.deepEqual(out.derived.map((d) => [d.turn.uuid, d.turn.turnSeq]), [["u1", 7], ["u2", 8]]);
  assert.equal(out.derived[0].turn.streamOffset, 100);
  assert.equal(out.streamOffset, 100 + enc.encode(text).length);
  assert.deepEqual([out.sessionId, out.cwd, out.branch], ["s-1", CWD, "main"]);
  // the first turn as written; the last by time (a record written late is not the newest)
  assert.deepEqual([out.firstTurnAt, out.lastTurnAt], [
    "2026-11-30T10:00:02Z",
    "2026-11-30T10:00:02Z",
  ]);
});

Deno.test("chunk: only [0, end) is used; a line that is not JSON is kept as bytes but is no turn", () => {
  const good = jsonl([user("u1", "2026-11-30T10:00:00Z", "kept")]);
  const text = good + "not json\n" + '{"type":"user","uuid":"u-cut"';
  const out = chunkOf(text, enc.encode(good + "not json\n").length);
  assert.equal(new TextDecoder().decode(out.stream), good + "not json\n");
  assert.deepEqual(out.derived.map((d) => d.turn.uuid), ["u1"]);
});

Deno.test("derive: a Read call's turn carries its path as an entity and a quote; its result is a tool result", () => {
  const call = deriveTurn({
    rec: {
      type: "assistant",
      uuid: "a1",
      timestamp: "2026-11-30T10:00:00Z",
      message: {
        role: "assistant",
        content: [{
          type: "tool_use",
          id: "t1",
          name: "Read",
          input: { file_path: `${CWD}/src/S.ts` },
        }],
      },
    },
    streamOffset: 0,
    byteLen: 10,
    turnSeq: 0,
    sidecar: false,
  });
  assert.equal(call.turn.toolName, "Read");
  assert.equal(call.turn.isToolResult, false);
  assert.ok(call.paths?.includes(`${CWD}/src/S.ts`), JSON.stringify(call.paths));
  const result = deriveTurn({
    rec: {
      type: "user",
      uuid: "r1",
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }],
      },
    },
    streamOffset: 10,
    byteLen: 10,
    turnSeq: 1,
    sidecar: false,
  });
  assert.deepEqual([result.turn.isToolResult, result.turn.isTyped, result.quote], [
    true,
    false,
    undefined,
  ]);
});

Deno.test("derive: a typed prompt is typed in its own session and never in a subagent's sidecar", () => {
  const rec = user("u1", "2026-11-30T10:00:00Z", "hello there");
  const at = { rec, streamOffset: 0, byteLen: 1, turnSeq: 0 };
  const own = deriveTurn({ ...at, sidecar: false });
  const side = deriveTurn({ ...at, sidecar: true });
  assert.deepEqual([own.turn.isTyped, own.turn.isSidechain], [true, false]);
  assert.deepEqual([side.turn.isTyped, side.turn.isSidechain], [false, true]);
  assert.equal(own.quote, "hello there");
});

Deno.test("rank: higher relevance first, then the main chain before subagents, then newer, then by id", () => {
  const h = (turn_id: number, relevance: number, ts: string | null, sidechain = false) => ({
    turn_id,
    relevance,
    ts,
    sidechain,
  });
  const hits = [
    h(1, 1, "2026-01-01"),
    h(2, 2, "2025-01-01"),
    h(3, 1, "2026-06-01", true),
    h(4, 1, "2026-06-01"),
    h(5, 1, null),
    h(6, 1, "2026-06-01"),
  ];
  assert.deepEqual(hits.sort(compareHits).map((x) => x.turn_id), [2, 4, 6, 1, 5, 3]);
});
