/**
 * One pass at a time: four ingest processes started together on a large tree all exit 0,
 * exactly one of them archives (one runs row with files committed), and the archive equals
 * the files. Readers work while the pass runs.
 */
import assert from "node:assert/strict";
import {
  assertArchiveEqualsFiles,
  bigTree,
  cliCommand,
  cliOk,
  parseEnvelope,
  query,
  runCli,
  sandbox,
} from "./helpers.ts";
import { DatabaseSync } from "node:sqlite";
import { join } from "../core/posix.ts";
import { tryIngestLock } from "../core/store/lock.ts";

Deno.test("four ingest processes at once: all exit 0, one pass archives, the archive equals the files", async () => {
  await using sb = await sandbox();
  const tree = await bigTree(sb.claude, { files: 40, totalBytes: 20_000_000, seed: 4 });

  const children = Array.from({ length: 4 }, () => cliCommand(sb, ["ingest"]).spawn());
  // status takes no lock, so it answers while the pass runs (or before it made a store)
  const during = await runCli(sb, ["status", "--json"]);
  assert.equal(during.code, 0, during.out + during.err);
  assert.equal(parseEnvelope(during.out).ok, true);

  const results = await Promise.all(children.map((c) => c.output()));
  const decoder = new TextDecoder();
  for (const r of results) {
    assert.equal(r.code, 0, decoder.decode(r.stderr));
    assert.equal(r.stdout.length, 0);
  }
  const held = results.filter((r) =>
    /another pass holds the ingest lock/.test(decoder.decode(r.stderr))
  );
  const ran = results.filter((r) => /file\(s\) walked/.test(decoder.decode(r.stderr)));
  assert.equal(
    held.length + ran.length,
    4,
    "each process either ran a pass or found the lock held",
  );
  assert.ok(ran.length >= 1);

  const runs = query<{ files_committed: number; files_failed: number }>(
    sb.store,
    "SELECT files_committed, files_failed FROM runs ORDER BY id",
  );
  assert.equal(
    runs.length,
    ran.length,
    "one runs row per pass that held the lock, none for the others",
  );
  assert.equal(runs.filter((r) => r.files_committed > 0).length, 1, "exactly one pass archived");
  assert.equal(runs[0].files_committed, tree.files.length, "and it archived every file");
  assert.ok(runs.every((r) => r.files_failed === 0));
  await assertArchiveEqualsFiles(sb.store, sb.claude, tree.files);

  const v = await runCli(sb, ["verify", "--json"]);
  assert.equal(v.code, 0);
  assert.deepEqual(parseEnvelope(v.out).data, { checked: tree.files.length, failures: [] });
});

Deno.test("while another process holds the ingest lock: ingest does nothing and exits 0, readers answer", async () => {
  await using sb = await sandbox();
  const tree = await bigTree(sb.claude, { files: 3, totalBytes: 200_000, seed: 5 });
  const first = await runCli(sb, ["ingest", tree.files[0]]);
  assert.equal(first.code, 0, first.err);
  const before = await Deno.readFile(sb.store);
  const lock = tryIngestLock(sb.data);
  assert.ok(lock, "the test holds the lock itself");
  try {
    for (const args of [["ingest"], ["ingest", tree.files[1]]]) {
      const r = await runCli(sb, args);
      assert.equal(r.code, 0, `${args.join(" ")}: exit 0`);
      assert.equal(r.out, "");
      assert.match(r.err, /another pass holds the ingest lock/);
    }
    for (const cmd of ["status", "verify"]) {
      const r = await runCli(sb, [cmd, "--json"]);
      assert.equal(r.code, 0, `${cmd} takes no lock`);
      assert.equal(parseEnvelope(r.out).ok, true);
    }
  } finally {
    lock.release();
  }
  assert.equal(
    query(sb.store, "SELECT id FROM runs").length,
    1,
    "no runs row for a pass that never ran",
  );
  assert.deepEqual(await Deno.readFile(sb.store), before, "the store is untouched");
  await cliOk(sb, ["ingest"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, tree.files);
});

Deno.test("a pass folds what it wrote into the store's file before it closes, not under the close's lock", async () => {
  await using sb = await sandbox();
  await bigTree(sb.claude, { files: 3, totalBytes: 200_000, seed: 6 });
  await cliOk(sb, ["ingest"]);
  // A reader open through the next pass: the last connection's close folds the WAL only with
  // the store to itself, so whatever is in the file after this pass, the pass put it there
  // before closing, where no reader waits on it.
  const reader = new DatabaseSync(sb.store, { readOnly: true });
  try {
    assert.equal((reader.prepare("SELECT count(*) AS n FROM runs").get() as { n: number }).n, 1);
    await cliOk(sb, ["ingest"]); // nothing new: it writes its run row alone
    const fileAlone = join(sb.home, "file-alone.db");
    Deno.copyFileSync(sb.store, fileAlone);
    assert.deepEqual(
      query(fileAlone, "SELECT count(*) AS n FROM runs"),
      [{ n: 2 }],
      "the second pass's run row is in the store's file, not only in its WAL",
    );
  } finally {
    reader.close();
  }
});
