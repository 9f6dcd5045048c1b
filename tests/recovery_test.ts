/** Recovery at the top of every pass: a watermark ahead of what the archive holds. */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  assertArchiveEqualsFiles,
  cliOk,
  parseEnvelope,
  prng,
  sandbox,
  syntheticSession,
  writeTranscript,
} from "./helpers.ts";

Deno.test("a watermark ahead of the archive is lowered to what the blocks hold, noted, and nothing is lost", async () => {
  await using sb = await sandbox();
  const rand = prng(7);
  const sid = "77777777-0000-4000-8000-000000000001";
  const cwd = "/nonexistent/terminus-recovery/alpha";
  const text = syntheticSession({ sessionId: sid, cwd, bytes: 200_000, rand });
  const half = text.indexOf("\n", text.length / 2) + 1;
  const file = await writeTranscript(sb.claude, cwd, `${sid}.jsonl`, text.slice(0, half));
  await cliOk(sb, ["ingest"]);

  // Push the watermark past the archive, as a damaged store could leave it.
  const db = new DatabaseSync(sb.store);
  db.exec("UPDATE watermarks SET offset = offset + 5000, stream_len = stream_len + 5000");
  db.close();
  await Deno.writeTextFile(file, text); // and the transcript grows meanwhile

  await cliOk(sb, ["ingest"]);
  const status = parseEnvelope((await cliOk(sb, ["status", "--json"])).out);
  const run = status.data.last_run as { notes: string[] | null; error: string[] | null };
  assert.equal(run.error, null);
  assert.ok(
    run.notes?.some((n) => /lowered the watermark of .* from \d+ to \d+ byte/.test(n)),
    JSON.stringify(run.notes),
  );
  // the bytes past the true end of the archive were read again, none skipped
  await assertArchiveEqualsFiles(sb.store, sb.claude, [file]);
  const verify = parseEnvelope((await cliOk(sb, ["verify", "--json"])).out);
  assert.deepEqual(verify.data.failures, []);
});
