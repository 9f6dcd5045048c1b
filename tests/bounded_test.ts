/**
 * Inputs no transcript or slip of the keyboard should be able to break: numbers past what a
 * double names exactly, an empty path, a stray file, and a line no memory should hold whole.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { DatabaseSync } from "node:sqlite";
import { decompress, initCodec } from "../core/store/codec.ts";
import { keepTerms, parseQuery } from "../core/recall/query.ts";
import { MAX_QUERY_TOKENS } from "../core/constants.ts";
import {
  appendTo,
  cliArgs,
  cliOk,
  exists,
  keyOf,
  parseEnvelope,
  query,
  type Sandbox,
  sandbox,
  writeTranscript,
} from "./helpers.ts";

const HUGE = "99999999999999999999999";
const UUID = "b0b0b0b0-0000-4000-8000-000000000001";

Deno.test("every numeric option refuses a number past 2^53, exits 2 and names the flag", async () => {
  await using sb = await sandbox();
  // search's --limit is the exception: any number above 50 is taken as 50, as the guide says
  // (tests/edges_test.ts)
  const cases: string[][] = [
    ["sessions", "--limit", HUGE],
    ["show", "1", "--before", HUGE],
    ["show", "1", "--after", HUGE],
    ...["ranked", "compacted-ranked", "entity-rank", "co-occurring", "max-turns", "max-candidates"]
      .map((f) => ["replay", `--${f}`, HUGE]),
  ];
  for (const args of cases) {
    const r = await cliOk(sb, args, { code: 2 });
    const flag = args[args.length - 2];
    assert.match(r.err, new RegExp(`${flag} takes a whole number up to 9007199254740991`), r.err);
    assert.equal(r.out, "", args.join(" "));
  }
  // the largest safe number itself is a number like any other
  await cliOk(sb, ["search", "hello", "--limit", String(Number.MAX_SAFE_INTEGER)]);
});

Deno.test("export with an empty destination is misuse: exit 2, nothing written", async () => {
  await using sb = await sandbox();
  const before = [...Deno.readDirSync(sb.dir)].map((e) => e.name).sort();
  const r = await cliOk(sb, ["export", ""], { code: 2 });
  assert.match(r.err, /export: the destination <dir> is empty/);
  assert.deepEqual([...Deno.readDirSync(sb.dir)].map((e) => e.name).sort(), before);
});

Deno.test("ingest <path> refuses a file that is not a transcript under a root: exit 1, one clear line, nothing archived", async () => {
  await using sb = await sandbox();
  const stray = join(sb.dir, "garbage.jsonl");
  await Deno.writeTextFile(stray, '{"type":"user","cwd":null}\n');
  // shaped like a transcript, but under no configured root
  const elsewhere = join(sb.dir, "other", "projects", "-x", `${UUID}.jsonl`);
  await Deno.mkdir(join(elsewhere, ".."), { recursive: true });
  await Deno.writeTextFile(elsewhere, '{"type":"user"}\n');
  for (
    const [path, why] of [[stray, /is not a transcript: ingest takes/], [
      elsewhere,
      /is not under a configured root/,
    ], ["/etc/passwd", /is not a transcript/]] as const
  ) {
    const r = await cliOk(sb, ["ingest", path], { code: 1 });
    assert.match(r.err, why, r.err);
    assert.match(r.err, new RegExp(path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")));
    assert.equal(r.out, "");
  }
  assert.equal(await exists(sb.store), false, "a refused file must not make a store");
  // a real transcript under the root is still archived alone
  const good = await writeTranscript(
    sb.claude,
    "/nonexistent/bounded",
    `${UUID}.jsonl`,
    JSON.stringify({
      type: "user",
      uuid: UUID,
      sessionId: UUID,
      cwd: "/nonexistent/bounded",
      timestamp: "2026-05-01T10:00:00Z",
      message: { role: "user", content: "hi" },
    }) + "\n",
  );
  await cliOk(sb, ["ingest", good]);
  assert.equal(query<{ n: number }>(sb.store, "SELECT count(*) AS n FROM sessions")[0].n, 1);
});

/* ---------- a pass's memory, whatever the transcript ---------- */

const MIB = 1024 * 1024;
/** What a pass may hold at its peak, with its runtime, whatever the file. */
const PASS_PEAK_MIB = 400;

// Deno will not read another process's /proc entry without --allow-all, so a shell polls it.
const PEAK_WRAPPER = `"$@" & pid=$!; peak=0
while [ -r /proc/$pid/status ]; do
  state=; hwm=
  while read -r k v _; do
    case $k in State:) state=$v ;; VmHWM:) hwm=$v ;; esac
  done < /proc/$pid/status
  [ "$state" = Z ] && break
  [ -n "$hwm" ] && [ "$hwm" -gt "$peak" ] && peak=$hwm
  sleep 0.02
done
wait $pid; rc=$?; echo "peak_kib=$peak" >&2; exit $rc`;

/**
 * Runs the CLI and returns its peak resident memory: VmHWM, a high-water mark, so polling it
 * misses only growth in the last few milliseconds before the child exits.
 */
async function runWithPeak(sb: Sandbox, args: string[]) {
  const out = await new Deno.Command("bash", {
    args: ["-c", PEAK_WRAPPER, "peak", Deno.execPath(), ...cliArgs(args)],
    cwd: sb.dir,
    env: sb.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  const peakKiB = Number(/peak_kib=(\d+)/.exec(err)?.[1] ?? 0);
  assert.ok(peakKiB > 0, `the child's memory was read at least once: ${err}`);
  return { code: out.code, err, peakMiB: peakKiB / 1024 };
}

/** The archived stream equals the file, compared a block at a time (never either one whole). */
async function assertArchivedAsFile(store: string, key: string, path: string) {
  await initCodec();
  const db = new DatabaseSync(store, { readOnly: true });
  const f = await Deno.open(path);
  try {
    const rows = db.prepare(
      `SELECT b.block_no AS no, b.bytes AS bytes FROM blocks b JOIN sessions s USING (session_no)
       WHERE s.session_key = ? ORDER BY b.block_no`,
    ).iterate(key) as Iterable<{ no: number; bytes: Uint8Array }>;
    let at = 0;
    for (const r of rows) {
      const raw = Buffer.from(decompress(r.bytes));
      const file = Buffer.alloc(raw.length);
      let got = 0;
      while (got < file.length) {
        const n = await f.read(file.subarray(got));
        if (n === null) break;
        got += n;
      }
      if (got !== raw.length || !raw.equals(file)) {
        assert.fail(`${key}: block ${r.no} (byte ${at}) differs from the file`);
      }
      at += raw.length;
    }
    assert.equal(at, (await Deno.stat(path)).size, `${key}: the archive holds the whole file`);
  } finally {
    f.close();
    db.close();
  }
}

Deno.test({
  name:
    "a multi-GB line with no newline is archived byte for byte in bounded memory, noted in status, and ends when its newline comes",
  // the peak is read from /proc, which only Linux has
  ignore: Deno.build.os !== "linux",
}, async () => {
  await using sb = await sandbox();
  const cwd = "/nonexistent/bounded-memory";
  const rec = (uuid: string, type: string, content: string) =>
    JSON.stringify({
      type,
      uuid,
      sessionId: UUID,
      cwd,
      timestamp: "2026-01-01T10:00:00Z", // long closed: the pass observes it too
      message: { role: type, content },
    }) + "\n";
  const path = await writeTranscript(sb.claude, cwd, `${UUID}.jsonl`, rec(UUID, "user", "hi"));
  // a sparse file: 2 GiB of NUL bytes after the first line, and no newline among them (the
  // pass's memory grew with the file before: past 2 GiB at this size)
  const size = 2 * 1024 * MIB;
  await Deno.truncate(path, size);
  const key = keyOf(sb.claude, path);

  const a = await runWithPeak(sb, ["ingest"]);
  assert.equal(a.code, 0, a.err);
  assert.ok(a.peakMiB < PASS_PEAK_MIB, `peak RSS ${a.peakMiB.toFixed(0)} MiB over a 2 GiB line`);
  // the partial line is archived whole: watermark and stream at the file's end (the bytes are
  // compared once, below, after the line ends: a stream only grows at its end)
  assert.deepEqual(
    query(
      sb.store,
      "SELECT w.offset AS offset, m.uncompressed_len AS len FROM watermarks w JOIN session_meta m USING (session_no)",
    ),
    [{ offset: size, len: size }],
  );
  const status = parseEnvelope((await cliOk(sb, ["status", "--json"])).out).data as {
    last_run: { notes: string[] | null; error: string[] | null };
  };
  assert.equal(status.last_run.error, null);
  assert.ok(
    status.last_run.notes?.some((n) =>
      n.includes(key) && /no newline in its first \d+ bytes .* archived as bytes/.test(n)
    ),
    JSON.stringify(status.last_run.notes),
  );

  // the line gets its newline: it ends there, unparsed, and the lines after it are read again
  await appendTo(path, "\n" + rec("c0c0c0c0-0000-4000-8000-000000000002", "assistant", "done"));
  const b = await runWithPeak(sb, ["ingest"]);
  assert.equal(b.code, 0, b.err);
  assert.ok(b.peakMiB < PASS_PEAK_MIB, `peak RSS ${b.peakMiB.toFixed(0)} MiB after the line ended`);
  await assertArchivedAsFile(sb.store, key, path);
  const [m] = query<{ turns: number; offset: number; observed: number }>(
    sb.store,
    `SELECT m.turn_count AS turns, w.offset AS offset, m.observed AS observed
     FROM session_meta m JOIN watermarks w USING (session_no)`,
  );
  assert.deepEqual(m, { turns: 2, offset: (await Deno.stat(path)).size, observed: 1 });
  const [o] = query<{ mechanical: string }>(sb.store, "SELECT mechanical FROM observations");
  assert.equal(JSON.parse(o.mechanical).turns, 2, "observed from the two parsed records");
});

/* ---------- a query of megabytes ---------- */

Deno.test("query terms are read lazily: nothing past the distinct term that ends the 32", () => {
  function* words() {
    for (let i = 0; i < MAX_QUERY_TOKENS; i++) yield i % 2 ? `W${i}` : `w${i}`;
    yield "w0"; // a repeat is skipped, not counted
    yield "one-more";
    throw new Error("read past the term that decides truncated");
  }
  const r = keepTerms(words());
  assert.equal(r.truncated, true);
  assert.deepEqual(r.terms, Array.from({ length: 32 }, (_, i) => i % 2 ? `W${i}` : `w${i}`));
});

Deno.test("a 9 MB query keeps its first 32 distinct terms, and truncated says exactly whether there was another", () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `term${i}`);
  const repeat = (ws: string[], bytes: number) => {
    const out: string[] = [];
    for (let n = 0; n < bytes; n += ws[out.length % ws.length].length + 1) {
      out.push(ws[out.length % ws.length]);
    }
    return out.join(" ");
  };
  const nine = 9_000_000;
  const many = parseQuery(repeat(words(40), nine));
  assert.deepEqual([many.terms, many.truncated], [words(32), true]);
  // exactly 32 distinct words, however often repeated: nothing was left out
  const exact = parseQuery(repeat(words(32), nine).toUpperCase());
  assert.deepEqual([exact.terms.length, exact.truncated], [32, false]);
  assert.deepEqual(exact.folded, words(32));
  // a 33rd distinct word at the very end still counts
  const late = parseQuery(repeat(words(32), nine) + " straggler");
  assert.deepEqual([late.terms, late.truncated], [words(32), true]);
  assert.equal(late.match, words(32).map((w) => `"${w}"`).join(" AND "));
});
