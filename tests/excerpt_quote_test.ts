/**
 * A search cuts a prompt's or a reply's excerpt from its quote (turn_text) when ingest kept the
 * whole folded text there, instead of reading the blocks. The two must give the same excerpt:
 * checked on every such turn of a real fixture and of a session made to be awkward (long texts,
 * whitespace runs, JSON escapes, a slash command), for words from its start, middle and end.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliOk, REPO_DIR, writeTranscript } from "./helpers.ts";
import { ingest, put, Transcript, world } from "./read_helpers.ts";
import { openRead } from "../core/store/db.ts";
import { initReader } from "../core/store/codec.ts";
import { excerptFor, excerptFromQuote } from "../core/recall/excerpt.ts";
import { parseQuery } from "../core/recall/query.ts";
import { quotesFor } from "../core/store/inject_sql.ts";
import { INJECTION_CHARS_CAP, QUOTE_FOLD_CHARS } from "../core/constants.ts";

const FIXTURE_ID = "5e5e5e5e-0000-4000-8000-000000000001";

Deno.test("an excerpt cut from a turn's whole quote is the one its blocks give", async () => {
  const w = await world();
  await using _ = w;
  const t = new Transcript({
    sessionId: "5e5e5e5e-0000-4000-8000-000000000002",
    cwd: w.dir("awkward"),
    start: "2026-04-01T09:00:00.000Z",
  });
  const filler = (n: number) =>
    Array.from({ length: n }, (_, i) => `word${i} ${i % 7 === 0 ? "\n\n\t  " : ""}`).join("");
  t.user("/erk:plan-save the current plan");
  t.user(`start marker ${filler(700)}${" ".repeat(900)}middle marker ${filler(500)}end marker`);
  t.assistant(`rocket \\ud83d\\ude80 and a gear \\u2699 then plain ${filler(40)} closing words`);
  t.assistant(`${"   \n".repeat(400)}spaced out answer ${filler(30)}`);
  t.assistant(`tiny reply`);
  t.assistant(`launch 🚀 now ${filler(60)} 🚀 ending with émigré words ${filler(60)} done`);
  // a word whose raw neighbourhood is mostly whitespace, deep in a long text
  t.assistant(`${filler(600)} needleword${" ".repeat(2_000)}tail of the text ${filler(20)}`);
  t.user(`${filler(300)}${"\n".repeat(3_000)}lonely needle here, then ${filler(300)}`);
  await put(w, t);
  await writeTranscript(
    w.sb.claude,
    w.dir("fixture"),
    `${FIXTURE_ID}.jsonl`,
    await Deno.readFile(join(REPO_DIR, "tests", "fixtures", "every_record.jsonl")),
  );
  await ingest(w);
  await cliOk(w.sb, ["ingest"]);
  await initReader();
  const o = openRead(w.sb.store)!;
  try {
    const turns = o.db.prepare(
      `SELECT t.id, t.session_no, t.stream_offset, t.byte_len FROM turns t
       JOIN turn_text q ON q.turn_id = t.id WHERE t.byte_len <= ? ORDER BY t.id`,
    ).all(QUOTE_FOLD_CHARS) as {
      id: number;
      session_no: number;
      stream_offset: number;
      byte_len: number;
    }[];
    const quotes = quotesFor(o.db, turns.map((r) => r.id), undefined, INJECTION_CHARS_CAP);
    let compared = 0;
    let longest = 0;
    for (const r of turns) {
      const quote = quotes.get(r.id);
      if (quote === undefined) continue;
      const words: string[] = quote.toLowerCase().match(/[a-z][a-z0-9]{2,}/g) ?? [];
      if (!words.length) continue;
      longest = Math.max(longest, quote.length);
      const picks: string[] = [
        words[0],
        words[Math.floor(words.length / 2)],
        words[words.length - 1],
        words.slice(Math.floor(words.length / 2), Math.floor(words.length / 2) + 2).join(" "),
        ...["needleword", "lonely needle"].filter((n) => quote.includes(n)),
      ];
      for (const text of picks) {
        const q = parseQuery(text);
        const t = {
          sessionNo: r.session_no,
          streamOffset: r.stream_offset,
          byteLen: r.byte_len,
          evicted: false,
        };
        const fromBlocks = excerptFor(o.db, t, q.folded, (s) => s, undefined, q.inOrder);
        const fromQuote = excerptFromQuote(quote, q.folded, q.inOrder);
        assert.deepEqual(fromQuote, fromBlocks, `turn ${r.id}, words ${JSON.stringify(text)}`);
        compared++;
      }
    }
    assert.ok(compared >= 40, `${compared} excerpts compared`);
    assert.ok(longest > 4_000, `the longest text compared has ${longest} characters`);
  } finally {
    o.db.close();
  }
});
