/**
 * When archiving stops, someone hears: a config that does not load or a day of hook-started
 * passes with none finished gives SessionStart one systemMessage line (for the person, not the
 * model) and doctor a problem; a misspelt config key gets a doctor note.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { nearMissKeys } from "../core/config.ts";
import { notePassFinished, notePassWanted, stalledArchiving } from "../core/ingest/stall.ts";
import { PASS_WANTED_FILE } from "../core/paths.ts";
import { STALL_AFTER_MS } from "../core/constants.ts";
import { cliOk, parseEnvelope, runCli, sandbox, writeConfig } from "./helpers.ts";
import { ALPHA, holdLock, hook, hookSandbox, sid, startPayload } from "./inject_helpers.ts";

const DAY = STALL_AFTER_MS;

Deno.test("the marker: kept from the first wanted pass, gone once one finishes, stale after a day", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const now = Date.parse("2026-06-01T12:00:00.000Z");
    assert.equal(stalledArchiving(dir, now), null, "no marker, nothing to say");
    notePassWanted(dir);
    const at = new Date(now - DAY - 60_000);
    Deno.utimeSync(join(dir, PASS_WANTED_FILE), at, at);
    notePassWanted(dir); // a later hook keeps the first time
    const line = stalledArchiving(dir, now);
    assert.ok(line, "a day of wanted passes");
    assert.match(line, /no archive pass has finished in 24 hours/);
    assert.match(line, /terminus ingest/);
    assert.equal(stalledArchiving(dir, now - 120_000), null, "under a day is not a stall");
    notePassFinished(dir);
    assert.equal(stalledArchiving(dir, now), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("near-miss config keys are named; real keys and far-off ones are not", () => {
  const text = [
    "roots = []",
    "unrelated_thing = 1",
    "[injection]",
    "brief_char = 100",
    "prompt_chars = 10",
    "[snapshots]",
    "keep = 2",
    "[privacy]",
    "redact_recal = true",
  ].join("\n");
  assert.deepEqual(nearMissKeys(text).sort(), [
    "injection.brief_char is not a setting Terminus reads; did you mean injection.brief_chars?",
    "privacy.redact_recal is not a setting Terminus reads; did you mean privacy.redact_recall?",
    "snapshots is not a setting Terminus reads; did you mean snapshot?",
  ]);
  assert.deepEqual(nearMissKeys("[injection]\nbrief_chars = 5\n"), []);
  assert.deepEqual(nearMissKeys("not = [toml"), []);
});

Deno.test("SessionStart: a day of passes that never finish gives the person one systemMessage line", async () => {
  await using sb = await hookSandbox();
  await Deno.mkdir(sb.data, { recursive: true });
  const marker = join(sb.data, PASS_WANTED_FILE);
  await Deno.writeFile(marker, new Uint8Array());
  const old = new Date(Date.now() - DAY - 3_600_000);
  await Deno.utime(marker, old, old);
  // the pass the hook starts finds the lock held, so it cannot finish and clear the marker
  const lock = await holdLock(sb);
  try {
    const r = await hook(sb, ["SessionStart"], { stdin: startPayload(sid(0xd1), ALPHA) });
    assert.equal(r.code, 0, r.err);
    const doc = JSON.parse(r.out);
    assert.match(doc.systemMessage, /^Terminus is not archiving: no archive pass has finished/);
    assert.equal(doc.systemMessage.split("\n").length, 1);
    const p = await hook(sb, ["UserPromptSubmit"], {
      stdin: {
        session_id: sid(0xd1),
        cwd: ALPHA,
        hook_event_name: "UserPromptSubmit",
        prompt: "hello",
      },
    });
    assert.ok(!p.out.includes("systemMessage"), "only SessionStart speaks to the person");
  } finally {
    lock.release();
  }
});

Deno.test("doctor: a stalled archive is a last_run problem; a near-miss key is a config note; a finished pass clears it", async () => {
  await using sb = await sandbox();
  await writeConfig(sb, "[injection]\nbrief_char = 100\n");
  await cliOk(sb, ["ingest"]);
  const marker = join(sb.data, PASS_WANTED_FILE);
  await Deno.writeFile(marker, new Uint8Array());
  const old = new Date(Date.now() - 2 * DAY);
  await Deno.utime(marker, old, old);
  const doctor = async () => {
    const r = await runCli(sb, ["doctor", "--json"]);
    return parseEnvelope(r.out).data as Record<string, { state: string; finding: string }>;
  };
  const d = await doctor();
  assert.equal(d.last_run.state, "problem");
  assert.match(d.last_run.finding, /no archive pass has finished in 48 hours/);
  assert.match(d.config_roots.finding, /did you mean injection\.brief_chars\?/);
  assert.notEqual(d.config_roots.state, "ok");
  await cliOk(sb, ["ingest"]);
  await assert.rejects(Deno.stat(marker), Deno.errors.NotFound, "a finished pass removes it");
  assert.notEqual((await doctor()).last_run.state, "problem");
});
