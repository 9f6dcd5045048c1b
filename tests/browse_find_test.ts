/**
 * The browser's incremental search, over a real store: the word still being typed matches as a
 * prefix once it has three characters, a finished word (a space after it) matches whole.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { defaultConfig } from "../core/config.ts";
import { openRead } from "../core/store/db.ts";
import { storeSource } from "../core/browse/source.ts";
import { cliOk, jsonl, sandbox, writeTranscript } from "./helpers.ts";

Deno.test("browse: the word being typed matches as a prefix from three characters; a finished word matches whole", async () => {
  await using sb = await sandbox();
  const cwd = "/nonexistent/browse-prefix";
  const rec = (n: number, text: string) => ({
    type: "user",
    uuid: `00000000-0000-4000-8000-00000000000${n}`,
    parentUuid: null,
    timestamp: `2026-03-0${n}T10:00:00.000Z`,
    sessionId: `1111111${n}-1111-4111-8111-111111111111`,
    cwd,
    message: { role: "user", content: text },
  });
  await writeTranscript(
    sb.claude,
    cwd,
    "11111111-1111-4111-8111-111111111111.jsonl",
    jsonl([rec(1, "the QuokkaLedger reconciles")]),
  );
  await writeTranscript(
    sb.claude,
    cwd,
    "11111112-1111-4111-8111-111111111111.jsonl",
    jsonl([rec(2, "a quorum of replicas")]),
  );
  await cliOk(sb, ["ingest"]);
  const opened = openRead(sb.store)!;
  try {
    const src = storeSource({
      db: opened.db,
      store: sb.store,
      cfg: defaultConfig(join(sb.config, "terminus.toml")),
      cwd,
      roots: [sb.claude],
      current: null,
    });
    const keys = (typed: string) => src.find(typed, true).sessions.map((s) => s.session_key).sort();
    const ledger = ["11111111-1111-4111-8111-111111111111.jsonl"];
    const quorum = ["11111112-1111-4111-8111-111111111111.jsonl"];
    assert.deepEqual(keys("quok"), ledger, "a prefix of quokka finds the ledger session");
    assert.deepEqual(keys("quo"), [...ledger, ...quorum].sort(), "three letters: both");
    assert.deepEqual(keys("qu"), [], "two letters are matched whole, and no word is 'qu'");
    assert.deepEqual(keys("quok "), [], "a finished word matches whole");
    assert.deepEqual(keys("quorum"), quorum);
    assert.deepEqual(keys("ledg"), ledger, "a case part of QuokkaLedger, as a prefix");
  } finally {
    opened.db.close();
  }
});
