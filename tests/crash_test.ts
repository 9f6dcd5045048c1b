/**
 * Crash safety: a pass SIGKILLed at any point leaves every transcript as its last commit left
 * it (a clean prefix that verifies), and the next pass completes the archive byte for byte.
 * The kill points spread over a measured full pass; nothing asserts on time.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  appendTo,
  archivedStreams,
  assertArchiveEqualsFiles,
  type BigTree,
  bigTree,
  cliCommand,
  keyOf,
  parseEnvelope,
  query,
  runCli,
  type Sandbox,
  sandbox,
} from "./helpers.ts";
import { installBundled, linkOf } from "./setup_helpers.ts";

interface KillResult {
  /** The child was killed before it finished. */
  killed: boolean;
  /** Stream bytes archived when it died. */
  archived: number;
}

async function spawnAndKill(
  sb: Sandbox,
  data: string,
  delayMs: number,
  program?: string,
): Promise<KillResult> {
  const child = cliCommand(sb, ["ingest"], {
    env: { TERMINUS_DATA_DIR: data },
    stdout: "null",
    stderr: "null",
    program,
  }).spawn();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let done = false;
  const kill = () => {
    try {
      child.kill("SIGKILL");
    } catch {
      // it finished first
    }
  };
  const killedAt = delayMs >= 0
    ? new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        kill();
        resolve();
      }, delayMs);
    })
    // a negative delay: kill as soon as the first commit shows in the store, whatever the
    // machine's speed, so the kill lands between two commits of the same pass
    : (async () => {
      const store = join(data, "terminus.db");
      while (!done && archivedBytes(store) === 0) {
        await new Promise((r) => setTimeout(r, 2));
      }
      kill();
    })();
  const status = await child.status;
  done = true;
  clearTimeout(timer);
  if (status.signal === null) {
    assert.equal(status.code, 0, "a pass that was not killed completes cleanly");
  } else {
    await killedAt;
  }
  return {
    killed: status.signal === "SIGKILL",
    archived: archivedBytes(join(data, "terminus.db")),
  };
}

function archivedBytes(store: string): number {
  try {
    return query<{ n: number | null }>(
      store,
      "SELECT sum(uncompressed_len) AS n FROM session_meta",
    )[0]
      .n ?? 0;
  } catch {
    return 0; // no store yet, or an empty file the pass had only just created
  }
}

/**
 * What a killed pass must leave: every archived stream a prefix of its file ending at a line
 * boundary, its watermark at the prefix's end, and a store that verifies clean.
 */
async function assertCleanPrefixes(sb: Sandbox, data: string, tree: BigTree) {
  const store = join(data, "terminus.db");
  const streams = await archivedStreams(store);
  const byKey = new Map(tree.files.map((f) => [keyOf(sb.claude, f), f]));
  for (const [key, stream] of streams) {
    const path = byKey.get(key);
    assert.ok(path, `archived ${key} is one of the files`);
    const file = await Deno.readFile(path);
    assert.ok(stream.length <= file.length, `${key}: no more than the file`);
    for (let i = 0; i < stream.length; i++) {
      if (stream[i] !== file[i]) assert.fail(`${key}: differs from the file at byte ${i}`);
    }
    assert.ok(stream.length === 0 || stream[stream.length - 1] === 0x0a, `${key}: ends a line`);
  }
  if (streams.size > 0) {
    const marks = query<{ key: string; offset: number; len: number }>(
      store,
      `SELECT s.session_key AS key, w.offset AS offset, m.uncompressed_len AS len
       FROM sessions s JOIN watermarks w USING (session_no) JOIN session_meta m USING (session_no)`,
    );
    assert.equal(marks.length, streams.size, "every archived session has its watermark");
    for (const m of marks) {
      assert.equal(m.offset, streams.get(m.key)!.length, `${m.key}: watermark at the prefix's end`);
      assert.equal(m.len, m.offset);
    }
  }
  const v = await runCli(sb, ["verify", "--json"], { env: { TERMINUS_DATA_DIR: data } });
  assert.equal(v.code, 0, `verify after the kill: ${v.out} ${v.err}`);
  assert.deepEqual((parseEnvelope(v.out).data as { failures: unknown[] }).failures, []);
}

async function complete(sb: Sandbox, data: string, tree: BigTree, program?: string) {
  const r = await runCli(sb, ["ingest"], { env: { TERMINUS_DATA_DIR: data }, program });
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.err, /holds the ingest lock/, "a killed pass leaves no lock behind");
  await assertArchiveEqualsFiles(join(data, "terminus.db"), sb.claude, tree.files);
  const v = await runCli(sb, ["verify", "--json"], { env: { TERMINUS_DATA_DIR: data } });
  assert.equal(v.code, 0, v.out);
  assert.deepEqual(parseEnvelope(v.out).data, { checked: tree.files.length, failures: [] });
}

Deno.test("crash safety: SIGKILL at any point of a pass loses nothing, and the next pass completes", async () => {
  await using sb = await sandbox();
  const tree = await bigTree(sb.claude, { files: 60, totalBytes: 25_000_000, seed: 20261130 });

  // one full pass, to know how long a pass runs here
  const base = join(sb.dir, "data-base");
  const t0 = performance.now();
  const r = await runCli(sb, ["ingest"], { env: { TERMINUS_DATA_DIR: base } });
  const full = performance.now() - t0;
  assert.equal(r.code, 0, r.err);
  await assertArchiveEqualsFiles(join(base, "terminus.db"), sb.claude, tree.files);

  const delays = Array.from({ length: 10 }, (_, i) => Math.round(20 + ((full - 20) * i) / 9));
  const outcomes: (KillResult & { delay: number })[] = [];
  const midPass = () =>
    outcomes.filter((o) => o.killed && o.archived > 0 && o.archived < tree.totalBytes).length;
  let point = 0;
  const runPoint = async (delay: number) => {
    const data = join(sb.dir, `data-${point++}`);
    const k = await spawnAndKill(sb, data, delay);
    outcomes.push({ ...k, delay });
    await assertCleanPrefixes(sb, data, tree);
    await complete(sb, data, tree);
    return data;
  };
  let last = "";
  for (const d of delays) last = await runPoint(d);
  // a crash test whose kills all missed the pass proves nothing: aim at the middle again
  // (then by the store's first commit, which no machine's speed can put outside the pass)
  for (let extra = 0; extra < 4 && midPass() === 0; extra++) {
    await runPoint(extra < 2 ? Math.round(full * (0.2 + 0.2 * extra)) : -1);
  }
  console.log(
    `full pass ${Math.round(full)} ms; kills (delay ms: archived bytes of ${tree.totalBytes}): ` +
      outcomes.map((o) => `${o.delay}:${o.killed ? o.archived : "finished"}`).join(", "),
  );
  assert.ok(midPass() > 0, "at least one kill landed in the middle of a pass");

  // kills during an appending pass, one after another on the same store, then completion
  for (const [i, f] of tree.files.entries()) {
    if (i % 2 === 0) continue;
    const extra = `{"type":"user","uuid":"append-${i}","timestamp":"2026-09-01T00:00:00.000Z",` +
      `"message":{"content":"${"appended ".repeat(2000 + ((i * 7919) % 997) * 20)}"}}\n`;
    // every third file is left with a partial last line, which must wait
    await appendTo(f, i % 3 === 0 ? extra + extra.slice(0, 100) : extra);
  }
  for (const frac of [0.05, 0.15, 0.3]) {
    await spawnAndKill(sb, last, Math.round(full * frac));
    await assertCleanPrefixes(sb, last, tree);
  }
  const fin = await runCli(sb, ["ingest"], { env: { TERMINUS_DATA_DIR: last } });
  assert.equal(fin.code, 0, fin.err);
  const streams = await archivedStreams(join(last, "terminus.db"));
  for (const f of tree.files) {
    const file = await Deno.readFile(f);
    const complete = file.subarray(0, file.lastIndexOf(0x0a) + 1);
    const got = streams.get(keyOf(sb.claude, f))!;
    assert.equal(got.length, complete.length, `${f}: everything up to the last newline`);
    for (let i = 0; i < got.length; i++) {
      if (got[i] !== complete[i]) assert.fail(`${f}: differs at byte ${i}`);
    }
  }
  const v = await runCli(sb, ["verify", "--json"], { env: { TERMINUS_DATA_DIR: last } });
  assert.equal(v.code, 0);
  assert.deepEqual(parseEnvelope(v.out).data, { checked: tree.files.length, failures: [] });
});

Deno.test({
  name:
    "crash safety of the installed, bundled copy: SIGKILL mid-pass loses nothing, the next pass completes",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sb = await sandbox();
    await installBundled(sb);
    const link = linkOf(sb);
    // large enough for the pass to hand windows to its derive worker
    const tree = await bigTree(sb.claude, { files: 24, totalBytes: 16_000_000, seed: 20261201 });
    const base = join(sb.dir, "data-base");
    const t0 = performance.now();
    const r = await runCli(sb, ["ingest"], { env: { TERMINUS_DATA_DIR: base }, program: link });
    const full = performance.now() - t0;
    assert.equal(r.code, 0, r.err);
    await assertArchiveEqualsFiles(join(base, "terminus.db"), sb.claude, tree.files);
    const outcomes: string[] = [];
    let mid = 0;
    for (let i = 0; i < 6 || (mid === 0 && i < 10); i++) {
      const data = join(sb.dir, `data-${i}`);
      // six kills by time; past those, by the store's first commit (a loaded or a fast machine
      // can put every timed kill before the first commit or after the last)
      const delay = i < 6 ? Math.round(full * (0.15 + 0.13 * i)) : -1;
      const k = await spawnAndKill(sb, data, delay, link);
      if (k.killed && k.archived > 0 && k.archived < tree.totalBytes) mid++;
      outcomes.push(`${delay}:${k.killed ? k.archived : "finished"}`);
      await assertCleanPrefixes(sb, data, tree);
      await complete(sb, data, tree, link);
    }
    console.log(`bundled: full pass ${Math.round(full)} ms; kills ${outcomes.join(", ")}`);
    assert.ok(mid > 0, "at least one kill landed in the middle of a pass");
  },
});
