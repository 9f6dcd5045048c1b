/** terminus show, end to end: the archived record byte for byte, its window, its scope. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bytes, parseEnvelope, writeTranscript } from "./helpers.ts";
import {
  equalBytes,
  hasRawControl,
  ingest,
  put,
  splitLines,
  Transcript,
  world,
} from "./read_helpers.ts";

interface RecordDoc {
  turn_id: number;
  session_key: string;
  turn_seq: number;
  record_type: string;
  tool_name: string | null;
  ts: string | null;
  project: string | null;
  body: string | null;
  body_evicted: boolean;
  context: ContextDoc | null;
}
interface ContextDoc {
  turns: {
    turn_id: number;
    turn_seq: number;
    record_type: string;
    tool_name: string | null;
    ts: string | null;
    text: string;
    is_anchor: boolean;
  }[];
  at_session_start: boolean;
  at_session_end: boolean;
  continues_from: string | null;
  reason: string | null;
}
interface ShowDoc {
  records: RecordDoc[];
  absent: { turn_id: number; reason: string }[];
}

Deno.test("show: the archived record, its window and its scope", async (t) => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const beta = w.dir("beta");

  // session one: ten turns with state records between them and one line that is not UTF-8
  const sidA = "aaaaaaaa-0000-4000-8000-000000000001";
  const a = new Transcript({ sessionId: sidA, cwd: alpha, start: "2026-01-05T10:00:00.000Z" });
  a.state({ type: "queue-operation", operation: "enqueue", sessionId: sidA });
  a.user("turn zero: open the worker");
  a.toolUse("Read", { file_path: join(alpha, "src/worker/S.ts") });
  a.toolResult("export const retryBudget = 3;");
  a.state({ type: "last-prompt", lastPrompt: "x", sessionId: sidA, session_id: sidA });
  a.assistant("turn three says bell\u0007 and esc\u001b[0m in its text");
  a.user("turn four @@BAD@@ bytes");
  a.assistant("turn five");
  a.state({ type: "progress", data: { n: 1 } });
  a.user("turn six");
  a.assistant("turn seven");
  a.user("turn eight");
  a.assistant("turn nine, the last");
  const textA = a.text();
  const [pre, post] = textA.split("@@BAD@@");
  const fileA = await writeTranscript(
    w.sb.claude,
    alpha,
    `${sidA}.jsonl`,
    bytes(pre, [0xff, 0xfe, 0x20, 0xc3, 0x28], post),
  );

  // session two: forty turns, for the 25-turn cap
  const sidB = "bbbbbbbb-0000-4000-8000-000000000002";
  const b = new Transcript({ sessionId: sidB, cwd: alpha, start: "2026-01-06T10:00:00.000Z" });
  for (let i = 0; i < 40; i++) b.user(`long session turn ${i}`);
  await put(w, b);

  // session three, in another project, continues from another session by a foreign session_id
  const sidC = "cccccccc-0000-4000-8000-000000000003";
  const foreign = "dddddddd-0000-4000-8000-000000000004";
  const c = new Transcript({ sessionId: sidC, cwd: beta, start: "2026-01-07T10:00:00.000Z" });
  c.state({ type: "summary", summary: "earlier work", leafUuid: "x", session_id: foreign });
  c.user("beta one");
  c.assistant("beta two");
  c.user("beta three");
  await put(w, c);
  await ingest(w);

  const id = w.ids();
  const idsA = a.turns.map((u) => id.get(u)!);
  const idsB = b.turns.map((u) => id.get(u)!);
  const idsC = c.turns.map((u) => id.get(u)!);
  assert.equal(idsA.length, 10);
  assert.ok(idsA.every((x) => typeof x === "number"));
  const fileLines = splitLines(await Deno.readFile(fileA));
  // the turn lines of the file, in byte order (state records are not turns)
  const turnLines = fileLines.filter((l) => {
    const s = new TextDecoder().decode(l);
    return !s.includes('"type":"queue-operation"') && !s.includes('"type":"last-prompt"') &&
      !s.includes('"type":"progress"');
  });
  assert.equal(turnLines.length, 10);
  const at = { cwd: alpha };

  await t.step("human mode prints the header and the record byte for byte", async () => {
    for (const i of [0, 3, 4, 9]) {
      const r = await w.run(["show", String(idsA[i])], at);
      assert.equal(r.code, 0, r.err);
      const ts = JSON.parse(new TextDecoder().decode(turnLines[i])).timestamp;
      const want = bytes(`${idsA[i]}  ${ts}  ${sidA}.jsonl  ${alpha}\n`, turnLines[i], "\n");
      assert.ok(
        equalBytes(r.stdout, want),
        `turn ${i}:\n${new TextDecoder().decode(r.stdout)}\n---\n${new TextDecoder().decode(want)}`,
      );
    }
    // the invalid bytes went out as themselves
    const bad = await w.run(["show", String(idsA[4])], at);
    const line = splitLines(bad.stdout)[1];
    assert.ok(line.includes(0xff) && line.includes(0xfe));
  });

  await t.step("--json: body is the lossy decoding, keys as the spec lists", async () => {
    const r = await w.run(["show", String(idsA[4]), String(idsA[1]), "--json"], at);
    assert.equal(r.code, 0);
    assert.equal(r.err, "");
    const env = parseEnvelope(r.out);
    const d = env.data as unknown as ShowDoc;
    assert.deepEqual(d.absent, []);
    assert.equal(d.records.length, 2);
    assert.deepEqual(d.records.map((x) => x.turn_id), [idsA[4], idsA[1]], "in the order asked");
    const [four, one] = d.records;
    assert.deepEqual(Object.keys(four).sort(), [
      "body",
      "body_evicted",
      "context",
      "project",
      "record_type",
      "session_key",
      "tool_name",
      "ts",
      "turn_id",
      "turn_seq",
    ]);
    assert.equal(four.body, new TextDecoder().decode(turnLines[4]));
    assert.ok(four.body!.includes("\ufffd"));
    assert.equal(four.body_evicted, false);
    assert.equal(four.context, null);
    assert.equal(four.turn_seq, 4);
    assert.equal(four.record_type, "user");
    assert.equal(four.tool_name, null);
    assert.equal(four.project, alpha);
    assert.equal(four.session_key, `${sidA}.jsonl`);
    assert.equal(one.tool_name, "Read");
    assert.equal(one.record_type, "assistant");
    assert.equal(one.body, new TextDecoder().decode(turnLines[1]));
    assert.equal(one.ts, JSON.parse(one.body!).timestamp);
  });

  await t.step("a word that is not a number is misuse", async () => {
    for (const args of [["show", "abc"], ["show", String(idsA[0]), "12x"], ["show", "1.5"]]) {
      for (const extra of [[], ["--json"]]) {
        const r = await w.run([...args, ...extra], at);
        assert.equal(r.code, 2, args.join(" "));
        assert.equal(r.stdout.length, 0);
      }
    }
    const none = await w.run(["show"], at);
    assert.equal(none.code, 2);
  });

  await t.step("an unknown id is named on stderr and in absent", async () => {
    const unknown = 987654321;
    const r = await w.run(["show", String(idsA[0]), String(unknown)], at);
    assert.equal(r.code, 0);
    assert.match(r.err, new RegExp(`\\b${unknown}\\b`));
    assert.ok(r.out.startsWith(`${idsA[0]}  `));
    assert.ok(!r.out.includes(String(unknown)));
    const j = await w.run(["show", String(unknown), "--json"], at);
    assert.equal(j.code, 0);
    const d = parseEnvelope(j.out).data as unknown as ShowDoc;
    assert.deepEqual(d.records, []);
    assert.equal(d.absent.length, 1);
    assert.equal(d.absent[0].turn_id, unknown);
    assert.match(d.absent[0].reason, new RegExp(String(unknown)));
    assert.equal(j.err, "", "with --json the absent id is in absent only");
  });

  await t.step("an id from another project needs that project or '*'", async () => {
    const other = idsC[0];
    const r = await w.run(["show", String(other), "--json"], at);
    assert.equal(r.code, 0);
    const d = parseEnvelope(r.out).data as unknown as ShowDoc;
    assert.deepEqual(d.records, []);
    assert.deepEqual(d.absent.map((x) => x.turn_id), [other]);
    const human = await w.run(["show", String(other)], at);
    assert.equal(human.out, "");
    assert.match(human.err, new RegExp(String(other)));

    for (const project of ["*", beta]) {
      const ok = parseEnvelope(
        (await w.run(["show", String(other), "--project", project, "--json"], at)).out,
      ).data as unknown as ShowDoc;
      assert.deepEqual(ok.absent, []);
      assert.equal(ok.records[0].turn_id, other);
      assert.equal(ok.records[0].project, beta);
    }
    // from inside the other project it is the project you're in
    const inside = parseEnvelope(
      (await w.run(["show", String(other), "--json"], { cwd: beta })).out,
    )
      .data as unknown as ShowDoc;
    assert.equal(inside.records.length, 1);
  });

  await t.step("--before/--after: a window that stops at the session's ends", async () => {
    const mid = parseEnvelope(
      (await w.run(["show", String(idsA[5]), "--before", "3", "--after", "3", "--json"], at)).out,
    ).data as unknown as ShowDoc;
    const ctx = mid.records[0].context!;
    assert.deepEqual(ctx.turns.map((x) => x.turn_id), idsA.slice(2, 9));
    assert.deepEqual(ctx.turns.map((x) => x.is_anchor), [
      false,
      false,
      false,
      true,
      false,
      false,
      false,
    ]);
    assert.deepEqual(ctx.turns.map((x) => x.turn_seq), [2, 3, 4, 5, 6, 7, 8]);
    assert.equal(ctx.at_session_start, false);
    assert.equal(ctx.at_session_end, false);
    assert.equal(ctx.continues_from, null, "the file's own id in session_id is no continuation");
    assert.equal(ctx.reason, null);
    assert.equal(ctx.turns[1].text, "turn three says bell\u0007 and esc\u001b[0m in its text");
    assert.equal(ctx.turns[0].text, "export const retryBudget = 3;");

    const start = parseEnvelope(
      (await w.run(["show", String(idsA[1]), "--before", "3", "--after", "3", "--json"], at)).out,
    ).data as unknown as ShowDoc;
    assert.deepEqual(start.records[0].context!.turns.map((x) => x.turn_id), idsA.slice(0, 5));
    assert.equal(start.records[0].context!.at_session_start, true);
    assert.equal(start.records[0].context!.at_session_end, false);

    const end = parseEnvelope(
      (await w.run(["show", String(idsA[8]), "--before", "3", "--after", "3", "--json"], at)).out,
    ).data as unknown as ShowDoc;
    assert.deepEqual(end.records[0].context!.turns.map((x) => x.turn_id), idsA.slice(5, 10));
    assert.equal(end.records[0].context!.at_session_start, false);
    assert.equal(end.records[0].context!.at_session_end, true);

    const onlyAfter = parseEnvelope(
      (await w.run(["show", String(idsA[0]), "--after", "2", "--json"], at)).out,
    ).data as unknown as ShowDoc;
    assert.deepEqual(onlyAfter.records[0].context!.turns.map((x) => x.turn_id), idsA.slice(0, 3));
    assert.equal(onlyAfter.records[0].context!.at_session_start, true);
  });

  await t.step("human window: markers, escaped text, record still byte for byte", async () => {
    const r = await w.run(["show", String(idsA[3]), "--before", "3", "--after", "3"], at);
    assert.equal(r.code, 0);
    const lines = splitLines(r.stdout);
    assert.ok(equalBytes(lines[1], turnLines[3]), "the record line is the file's line");
    const rest = new TextDecoder().decode(bytes(...lines.slice(2).map((l) => bytes(l, "\n"))));
    assert.ok(!hasRawControl(rest), "a raw control byte in the window");
    assert.ok(rest.includes("bell\\u0007 and esc\\u001b[0m"), rest);
    const text = rest.split("\n");
    assert.equal(text[0], "  -- session start --");
    assert.ok(text.some((l) => l.startsWith(`  > ${idsA[3]}  assistant  `)), rest);
    assert.equal(text[text.length - 2], "  ...");
    const tail = await w.run(["show", String(idsA[9]), "--before", "1"], at);
    const tailText = new TextDecoder().decode(tail.stdout).split("\n");
    assert.equal(tailText[tailText.length - 2], "  -- session end --");
    assert.ok(!tailText.some((l) => l.startsWith("  continues from")));
  });

  await t.step("a number above 25 is treated as 25", async () => {
    const d = parseEnvelope(
      (await w.run(["show", String(idsB[35]), "--before", "99", "--after", "99", "--json"], at))
        .out,
    ).data as unknown as ShowDoc;
    const ctx = d.records[0].context!;
    assert.deepEqual(ctx.turns.map((x) => x.turn_id), idsB.slice(10, 40));
    assert.equal(ctx.at_session_start, false);
    assert.equal(ctx.at_session_end, true);
    const e = parseEnvelope(
      (await w.run(["show", String(idsB[2]), "--after", "99", "--json"], at)).out,
    ).data as unknown as ShowDoc;
    assert.deepEqual(e.records[0].context!.turns.map((x) => x.turn_id), idsB.slice(2, 28));
    assert.equal(e.records[0].context!.at_session_end, false);
  });

  await t.step("a session that continues from another names it after the window", async () => {
    const d = parseEnvelope(
      (await w.run(["show", String(idsC[1]), "--before", "1", "--json"], { cwd: beta })).out,
    ).data as unknown as ShowDoc;
    assert.equal(d.records[0].context!.continues_from, foreign);
    const r = await w.run(["show", String(idsC[1]), "--before", "1", "--after", "1"], {
      cwd: beta,
    });
    const lines = new TextDecoder().decode(r.stdout).split("\n");
    const end = lines.indexOf("  -- session end --");
    assert.ok(end > 0, lines.join("\n"));
    assert.equal(lines[end + 1], `  continues from session ${foreign}`);
  });

  await t.step("the window never crosses into another session", async () => {
    // session B follows session A in ingest order, so their ids are adjacent blocks
    const d = parseEnvelope(
      (await w.run(["show", String(idsB[0]), "--before", "5", "--json"], at)).out,
    ).data as unknown as ShowDoc;
    assert.deepEqual(d.records[0].context!.turns.map((x) => x.turn_id), [idsB[0]]);
    assert.equal(d.records[0].context!.at_session_start, true);
  });
});
