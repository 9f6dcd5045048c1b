/**
 * `status` while a pass runs shows that pass's progress, read from its run row, which the
 * pass writes as it goes: files and bytes done of the total, the rate and an ETA.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../core/config.ts";
import { runPass } from "../core/ingest/pass.ts";
import { lastRun } from "../core/store/runs.ts";
import { transcriptRoots } from "../core/paths.ts";
import { parseEnvelope, runCli, sandbox, writeTranscript } from "./helpers.ts";

Deno.test("status during a running pass: files and bytes done of total, rate and ETA, from the run row", async () => {
  await using sb = await sandbox();
  const cwd = `${sb.dir}/alpha`;
  let total = 0;
  for (let i = 0; i < 3; i++) {
    const id = `7676767${i}-0000-4000-8000-000000000001`;
    const text = JSON.stringify({
      type: "user",
      uuid: `7676767${i}-0000-4000-8000-00000000000a`,
      sessionId: id,
      cwd,
      timestamp: `2026-05-0${i + 1}T10:00:00.000Z`,
      message: { role: "user", content: `hello ${i}` },
    }) + "\n";
    total += new TextEncoder().encode(text).length;
    await writeTranscript(sb.claude, cwd, `${id}.jsonl`, text);
  }
  const env = (n: string) => sb.env[n];
  let added = 0;
  let seen: { human: string; json: Record<string, unknown>; row: unknown } | null = null;
  const r = await runPass({
    cfg: loadConfig(env),
    dataDir: sb.data,
    roots: transcriptRoots([], env),
    // the pass is still running here: its files are archived, its row not yet finished
    afterClose: async (db) => {
      const row = lastRun(db);
      // bytes written since the pass walked them are still to do: the total grows by them
      const more = JSON.stringify({
        type: "user",
        uuid: "76767670-0000-4000-8000-00000000000b",
        sessionId: "76767670-0000-4000-8000-000000000001",
        cwd,
        timestamp: "2026-05-01T10:00:01.000Z",
        message: { role: "user", content: "x".repeat(3_000_000) },
      }) + "\n";
      added = new TextEncoder().encode(more).length;
      await Deno.writeTextFile(
        `${sb.claude}/projects/${
          cwd.replace(/[^A-Za-z0-9]/g, "-")
        }/76767670-0000-4000-8000-000000000001.jsonl`,
        more,
        { append: true },
      );
      const human = await runCli(sb, ["status"]);
      const json = await runCli(sb, ["status", "--json"]);
      seen = {
        human: human.out,
        json: parseEnvelope(json.out).data as Record<string, unknown>,
        row,
      };
    },
  });
  assert.equal(r.ran, true);
  assert.ok(seen, "afterClose ran");
  const s = seen as { human: string; json: Record<string, unknown>; row: { inFlight: boolean } };
  assert.equal(s.row.inFlight, true);
  assert.match(s.human, /duration +not finished/);
  const line = s.human.split("\n").find((l) => l.trim().startsWith("progress"));
  assert.ok(line, s.human);
  assert.match(line, /3 of 3 files/);
  const mb = (n: number) => (n / 1e6).toFixed(1);
  assert.match(line, new RegExp(`  ${mb(total)} of ${mb(total + added)} MB  `));
  assert.match(line, /ETA \d+:\d\d/);
  assert.match(line, /MB\/s/);
  const last = s.json.last_run as Record<string, unknown>;
  assert.equal(last.files_seen, 3);
  assert.equal(last.files_committed, 3);
  assert.equal(last.bytes_read, total);
  assert.equal(last.duration_ms, null);
  // finished, the row is an ordinary last run again, with no progress line
  const after = await runCli(sb, ["status"]);
  assert.doesNotMatch(after.out, /progress/);
});
