/**
 * terminus backfill: the counts it prints before it starts, the detached pass it starts and
 * leaves running, and what it does with nothing to do, an excluded project, a folder it
 * cannot list and a store it cannot size.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  appendTo,
  archivedStreams,
  assertArchiveEqualsFiles,
  bigTree,
  cliArgs,
  cliOk,
  type CliResult,
  exists,
  fixture,
  keyOf,
  projectDir,
  query,
  runCli,
  type Sandbox,
  sandbox,
  writeConfig,
  writeTranscript,
} from "./helpers.ts";
import { tryIngestLock } from "../core/store/lock.ts";
import { BACKFILL_RATE_MB_S } from "../core/constants.ts";

const ALPHA = "/nonexistent/terminus-backfill/alpha";
const BETA = "/nonexistent/terminus-backfill/beta";
const SECRET = "/nonexistent/terminus-backfill/secret";
const ID1 = "11111111-1111-4111-8111-111111111111";
const ID2 = "22222222-2222-4222-8222-222222222222";
const ID3 = "33333333-3333-4333-8333-333333333333";

const decoder = new TextDecoder();

function runCount(sb: Sandbox): number {
  try {
    return query<{ n: number }>(sb.store, "SELECT count(*) AS n FROM runs")[0].n;
  } catch {
    return 0; // no store yet
  }
}

/** Waits until the detached pass has recorded its run and let go of the ingest lock. */
async function passFinished(sb: Sandbox, runsBefore: number): Promise<void> {
  const deadline = Date.now() + 300_000; // a net against hanging, not a speed limit
  while (Date.now() < deadline) {
    if (runCount(sb) > runsBefore) {
      const lock = tryIngestLock(sb.data);
      if (lock) {
        lock.release();
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the detached backfill did not finish within 5 min");
}

/** The number on a `label   value` line of the table backfill prints. */
function field(out: string, label: string): string {
  const line = out.split("\n").find((l) => l.startsWith(label + " "));
  assert.ok(line, `a '${label}' line in:\n${out}`);
  return line.slice(label.length).trim();
}

function bytesField(out: string): number {
  return Number(field(out, "not archived").split(" ")[0]);
}

/**
 * Runs the CLI with the permission checks root would skip: as root, CAP_DAC_OVERRIDE and
 * CAP_DAC_READ_SEARCH are dropped from the bounding set, so a mode-000 folder cannot be listed.
 */
async function runAsUser(sb: Sandbox, args: string[]): Promise<CliResult> {
  const argv = [Deno.execPath(), ...cliArgs(args)];
  const [cmd, ...rest] = Deno.uid() === 0
    ? ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--", ...argv]
    : argv;
  const o = await new Deno.Command(cmd, {
    args: rest,
    cwd: sb.dir,
    env: sb.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: o.code,
    signal: o.signal,
    stdout: o.stdout,
    out: decoder.decode(o.stdout),
    err: decoder.decode(o.stderr),
  };
}

Deno.test("backfill counts the transcripts and the unarchived bytes, starts the pass detached, and returns", async () => {
  await using sb = await sandbox();
  const every = await fixture("every_record.jsonl");
  const a = await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, every);
  const b = await writeTranscript(sb.claude, BETA, `${ID2}.jsonl`, every);
  const sidecar = await writeTranscript(
    sb.claude,
    BETA,
    `${ID2}/subagents/agent-a1.jsonl`,
    every,
  );
  const r = await cliOk(sb, ["backfill"]);
  assert.equal(field(r.out, "transcripts"), "3");
  assert.equal(bytesField(r.out), every.length * 3);
  assert.match(field(r.out, "estimate"), new RegExp(`at ${BACKFILL_RATE_MB_S} MB/s`));
  assert.match(r.err, /archiving in a detached process; terminus status shows it/);
  await passFinished(sb, 0);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [a, b, sidecar]);
  const status = await cliOk(sb, ["status"]);
  assert.match(status.out, /files +3 walked, 3 committed, 0 failed/);
});

Deno.test("bytes not yet archived are each file's size past its watermark, the whole file when unknown", async () => {
  await using sb = await sandbox();
  const every = await fixture("every_record.jsonl");
  const a = await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, every);
  const b = await writeTranscript(sb.claude, BETA, `${ID2}.jsonl`, every);
  await cliOk(sb, ["ingest"]);
  const extra = '{"type":"user","message":{"role":"user","content":"more"},"uuid":"u-more"}\n';
  await appendTo(a, extra);
  const c = await writeTranscript(sb.claude, BETA, `${ID3}.jsonl`, every);
  const r = await cliOk(sb, ["backfill"]);
  assert.equal(field(r.out, "transcripts"), "3", "every transcript is counted");
  assert.equal(bytesField(r.out), extra.length + every.length);
  await passFinished(sb, 1);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [a, b, c]);
  // everything archived: the counts stay, the bytes are zero
  const again = await cliOk(sb, ["backfill"]);
  assert.equal(field(again.out, "transcripts"), "3");
  assert.equal(bytesField(again.out), 0);
  assert.equal(
    field(again.out, "estimate"),
    `nothing to read at ${BACKFILL_RATE_MB_S} MB/s, the rate the bench measured`,
  );
  // and nothing is started for it (issue 14): it says so
  assert.match(again.err, /nothing to archive: .*nothing was started/);
  assert.doesNotMatch(again.err, /detached process/);
  assert.equal(runCount(sb), 2);
});

Deno.test("with no transcripts backfill prints zero counts and starts nothing", async () => {
  await using sb = await sandbox();
  const r = await cliOk(sb, ["backfill"]);
  assert.equal(field(r.out, "transcripts"), "0");
  assert.equal(bytesField(r.out), 0);
  assert.match(r.err, /no transcripts under .*; nothing was started/);
  // a started pass would create the data directory for its lock within moments
  await new Promise((res) => setTimeout(res, 1500));
  assert.ok(!(await exists(sb.data)), "no pass ran");
});

Deno.test("an excluded project is neither counted nor archived", async () => {
  await using sb = await sandbox();
  await writeConfig(sb, `exclude = ["${SECRET}"]\n`);
  const every = await fixture("every_record.jsonl");
  const a = await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, every);
  await writeTranscript(sb.claude, SECRET, `${ID2}.jsonl`, every);
  const r = await cliOk(sb, ["backfill"]);
  assert.equal(field(r.out, "transcripts"), "1");
  assert.equal(bytesField(r.out), every.length);
  await passFinished(sb, 0);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [a]);
});

Deno.test("a folder under a root that cannot be listed is a problem, and nothing under it is counted or archived", async () => {
  await using sb = await sandbox();
  const every = await fixture("every_record.jsonl");
  const a = await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, every);
  const hidden = await writeTranscript(sb.claude, BETA, `${ID2}.jsonl`, every);
  const folder = projectDir(sb.claude, BETA);
  await Deno.chmod(folder, 0o000);
  try {
    const r = await runAsUser(sb, ["backfill"]);
    assert.equal(r.code, 0, r.err);
    assert.equal(field(r.out, "transcripts"), "1");
    assert.equal(bytesField(r.out), every.length);
    assert.ok(
      r.err.split("\n").some((l) =>
        l.startsWith(`problem: ${folder} cannot be listed`) &&
        l.endsWith("nothing under it is counted or archived")
      ),
      r.err,
    );
    await passFinished(sb, 0);
    const streams = await archivedStreams(sb.store);
    assert.ok(streams.has(keyOf(sb.claude, a)));
    assert.ok(!streams.has(keyOf(sb.claude, hidden)), "nothing under the folder archived");
  } finally {
    await Deno.chmod(folder, 0o700);
  }
});

Deno.test("a store in a newer archive format cannot be sized: exit 1 and nothing starts", async () => {
  await using sb = await sandbox();
  await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, await fixture("every_record.jsonl"));
  await cliOk(sb, ["ingest"]);
  const db = new DatabaseSync(sb.store);
  db.exec(`UPDATE meta SET value = '99' WHERE key = 'archive_format'`);
  db.close();
  const r = await runCli(sb, ["backfill"]);
  assert.equal(r.code, 1);
  assert.match(r.err, /the backfill could not be sized \(.*newer.*\); nothing was started/);
  await new Promise((res) => setTimeout(res, 1000));
  assert.equal(runCount(sb), 1, "no pass ran");
});

Deno.test("backfill takes no options and no arguments: --json, --yes and a path exit 2", async () => {
  await using sb = await sandbox();
  for (const args of [["backfill", "--json"], ["backfill", "--yes"], ["backfill", "x"]]) {
    const r = await runCli(sb, args);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.out, "");
    assert.match(r.err, /^terminus: /);
  }
  assert.ok(!(await exists(sb.data)));
});

Deno.test("backfill --work runs the whole-tree pass in the foreground", async () => {
  await using sb = await sandbox();
  const a = await writeTranscript(
    sb.claude,
    ALPHA,
    `${ID1}.jsonl`,
    await fixture("every_record.jsonl"),
  );
  const r = await cliOk(sb, ["backfill", "--work"]);
  assert.equal(r.out, "");
  await assertArchiveEqualsFiles(sb.store, sb.claude, [a]);
  assert.equal(runCount(sb), 1);
});

Deno.test("the estimate uses the rate the last sizeable pass measured, once there is one", async () => {
  await using sb = await sandbox();
  const t = await bigTree(sb.claude, { files: 6, totalBytes: 12_000_000, seed: 7 });
  await cliOk(sb, ["ingest"]);
  const run = query<{ bytes: number }>(
    sb.store,
    "SELECT bytes_read AS bytes FROM runs ORDER BY id DESC LIMIT 1",
  )[0];
  assert.ok(run.bytes >= 8_000_000, `the pass read ${run.bytes} bytes`);
  await appendTo(t.files[0], '{"type":"user","uuid":"u-late","message":{"content":"late"}}\n');
  const r = await cliOk(sb, ["backfill"]);
  // the figure itself is this machine's speed, so only its source is asserted here; the
  // arithmetic is tested in process against a recorded run (tests/unit/backfill_test.ts)
  assert.match(
    field(r.out, "estimate"),
    /^(under a second|about .+) at \d+(\.\d)? MB\/s, the rate the last pass measured$/,
  );
  await passFinished(sb, 1);
});
