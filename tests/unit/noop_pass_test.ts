/**
 * A pass that has nothing new to do costs what its work is: a stat per transcript and a compare
 * against the stored watermark. In process, against a real temp store whose connection is
 * wrapped to count the statements the pass runs (nothing is mocked): the count must not grow
 * with the number of sessions. And the backfill's worker leaves no closed session unobserved,
 * however many there are past the per-pass cap.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { defaultConfig } from "../../core/config.ts";
import { OBSERVE_PER_PASS } from "../../core/constants.ts";
import { runBackfillPasses, runWholePass } from "../../core/ingest/whole.ts";
import type { Db } from "../../core/store/db.ts";
import { LISTING_SETTLED_MS } from "../../core/transcript/listing.ts";
import { appendTo, prng, syntheticSession, uuidFrom, writeTranscript } from "../helpers.ts";
import { watched } from "./world.ts";

const CWD = "/home/you/code/project-noop";

interface Counter {
  statements: number;
  sql: Map<string, number>;
}

/** The connection, with every statement it runs counted (exec, and run/get/all/iterate). */
function counting(db: Db, c: Counter): Db {
  return watched(db, (sql) => {
    c.statements++;
    c.sql.set(sql, (c.sql.get(sql) ?? 0) + 1);
  });
}

/** A session in CWD whose turns are months old (closed), starting `minute` minutes into a June day. */
function closedSession(id: string, rand: ReturnType<typeof prng>, minute: number): string {
  return syntheticSession({
    sessionId: id,
    cwd: CWD,
    bytes: 2_000,
    rand,
    start: new Date(Date.UTC(2026, 5, 1, 0, minute)),
  });
}

/**
 * `n` closed sessions (their turns are months old); every third one's first record names a
 * parent turn no session holds, so its continuation stays unresolved pass after pass.
 */
async function writeSessions(root: string, from: number, n: number): Promise<string[]> {
  const paths: string[] = [];
  const rand = prng(1000 + from);
  for (let i = from; i < from + n; i++) {
    const id = uuidFrom(rand);
    let text = closedSession(id, rand, i);
    if (i % 3 === 0) {
      const lines = text.split("\n");
      const first = JSON.parse(lines[0]);
      first.parentUuid = uuidFrom(rand);
      lines[0] = JSON.stringify(first);
      text = lines.join("\n");
    }
    paths.push(await writeTranscript(root, CWD, `${id}.jsonl`, text));
  }
  return paths;
}

/**
 * Rewrites a byte of each file in place (same length, new mtime): the next pass flags its
 * session diverged and archives the file again as a new lineage. A diverged session's file is
 * then passed over on every pass after, which must cost no statement of its own either.
 */
async function rewriteInPlace(paths: string[]): Promise<void> {
  for (const p of paths) {
    const bytes = await Deno.readFile(p);
    const at = bytes.indexOf(0x61); // an "a", well inside the first record
    bytes[at] = 0x62;
    await Deno.writeFile(p, bytes);
  }
}

/** The statements a pass runs to read one session's full state or its tail. */
const PER_SESSION_READS = [/WHERE s\.session_key = \?/, /FROM file_tails WHERE session_no = \?/];

async function setup() {
  const dir = await Deno.makeTempDir({ prefix: "terminus-noop-" });
  const root = join(dir, "claude");
  const dataDir = join(dir, "data");
  await Deno.mkdir(join(root, "projects"), { recursive: true });
  const cfg = defaultConfig(join(dir, "config", "terminus.toml"));
  // a snapshot hands the connection to SQLite's backup, which wants the unwrapped one
  cfg.snapshot.enabled = false;
  return {
    dir,
    root,
    dataDir,
    input: { cfg, dataDir, roots: [root] },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

async function noopStatements(s: Awaited<ReturnType<typeof setup>>): Promise<Counter> {
  // the folders settle and a pass keeps their listings, as between two hooks' passes: the
  // pass counted then lists no folder again (a pass that keeps one writes it once per folder)
  await new Promise((r) => setTimeout(r, LISTING_SETTLED_MS + 1_100));
  await runWholePass(s.input);
  const c: Counter = { statements: 0, sql: new Map() };
  const r = await runWholePass({ ...s.input, instrument: (db) => counting(db, c) });
  assert(r.ran);
  assert.deepEqual(r.run!.filesCommitted, 0, "a pass with nothing new commits nothing");
  assert(![...c.sql.keys()].some((q) => /INTO folder_listings/.test(q)), "no folder listed again");
  return c;
}

function diverged(dataDir: string): number {
  const db = new DatabaseSync(join(dataDir, "terminus.db"), { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM session_meta WHERE transcript_diverged = 1")
      .get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function unobserved(dataDir: string): number {
  const db = new DatabaseSync(join(dataDir, "terminus.db"), { readOnly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM session_meta WHERE observed = 0").get() as {
      n: number;
    }).n;
  } finally {
    db.close();
  }
}

Deno.test("a pass with nothing new runs as many statements over 150 sessions as over 30", async () => {
  await using s = await setup();
  const first = await writeSessions(s.root, 0, 30);
  await runBackfillPasses(s.input);
  await rewriteInPlace(first.slice(0, 1));
  await runBackfillPasses(s.input);
  const small = await noopStatements(s);

  const more = await writeSessions(s.root, 30, 120);
  await runBackfillPasses(s.input);
  await rewriteInPlace(more.slice(0, 6));
  await runBackfillPasses(s.input);
  const large = await noopStatements(s);
  assert.deepEqual(diverged(s.dataDir), 7, "the rewritten files' sessions are flagged diverged");

  // nothing new: no session's state or tail is read one at a time, however many there are
  const perSession = [...large.sql.keys()].filter((sql) =>
    PER_SESSION_READS.some((r) => r.test(sql))
  );
  assert.deepEqual(perSession, [], "a pass with nothing new reads no session on its own");

  const grew = [...large.sql].filter(([sql, n]) => n > (small.sql.get(sql) ?? 0))
    .map(([sql, n]) => `${n - (small.sql.get(sql) ?? 0)} more: ${sql.replace(/\s+/g, " ")}`);
  assert.deepEqual(grew, [], "no statement runs once per session or per file");
  assert.deepEqual(large.statements, small.statements);
});

Deno.test("the backfill's worker observes every closed session, 100 a pass", async () => {
  await using s = await setup();
  const n = OBSERVE_PER_PASS * 2 + 30;
  await writeSessions(s.root, 0, n);
  const r = await runBackfillPasses(s.input);
  assert(r.ran);
  assert.deepEqual(r.run!.filesCommitted, n);
  assert.deepEqual(r.backlog, 0);
  assert.deepEqual(unobserved(s.dataDir), 0, "no closed session is left for the hooks' passes");
  // each pass kept the cap: the first observed 100 and left the rest
  const db = new DatabaseSync(join(s.dataDir, "terminus.db"), { readOnly: true });
  try {
    const notes = (db.prepare("SELECT notes FROM runs ORDER BY id").all() as { notes: string }[])
      .map((x) => x.notes ?? "");
    assert.deepEqual(notes.length, 3);
    assert(notes[0].includes(`${OBSERVE_PER_PASS} closed session(s) observed`), notes[0]);
    assert(notes[0].includes(`${n - OBSERVE_PER_PASS} finalized session(s) left`), notes[0]);
    assert(notes[2].includes("30 closed session(s) observed"), notes[2]);
  } finally {
    db.close();
  }
});

Deno.test("a settled session in a project excluded since is passed over and counted as excluded", async () => {
  await using s = await setup();
  const rand = prng(7);
  const id = uuidFrom(rand);
  // its folder does not name the project (as a worktree's would not), so discovery keeps it
  // and only the project the store recorded says it is excluded
  await writeTranscript(s.root, "/home/you/elsewhere", `${id}.jsonl`, closedSession(id, rand, 0));
  await runBackfillPasses(s.input);
  const cfg = { ...s.input.cfg, exclude: [CWD] };
  const r = await runWholePass({ ...s.input, cfg });
  assert.deepEqual(r.run!.filesCommitted, 0);
  assert.match(
    r.run!.notes ?? "",
    /1 transcript folder\(s\) or file\(s\) in excluded projects skipped/,
  );
});

Deno.test("a transcript copied to a second project folder is judged as before when one copy grows", async () => {
  await using s = await setup();
  const rand = prng(21);
  const id = uuidFrom(rand);
  const text = closedSession(id, rand, 0);
  // one session key, two files: the first in discovery order grows, the second does not
  const grown = await writeTranscript(s.root, "/home/you/a", `${id}.jsonl`, text);
  await writeTranscript(s.root, "/home/you/b", `${id}.jsonl`, text);
  await runWholePass(s.input);
  await appendTo(grown, closedSession(uuidFrom(rand), rand, 1).split("\n")[0] + "\n");
  const r = await runWholePass(s.input);
  // the unchanged copy is not passed over on the strength of the session's last look: once
  // the grown one moved the watermark, it is shorter than what is archived
  assert.match(r.run!.notes ?? "", /shorter than the \d+ archived/);
  assert.deepEqual(diverged(s.dataDir), 1);
});

Deno.test("a watermark whose session is gone is found by a pass with nothing else to do", async () => {
  await using s = await setup();
  await writeSessions(s.root, 0, 3);
  await runBackfillPasses(s.input);
  const path = join(s.dataDir, "terminus.db");
  const db = new DatabaseSync(path);
  try {
    db.prepare(
      "INSERT INTO watermarks (session_no, transcript_path, offset, stream_len) VALUES (?, ?, ?, ?)",
    ).run(99_999, "/gone.jsonl", 10, 10);
  } finally {
    db.close();
  }
  await runWholePass(s.input);
  const after = new DatabaseSync(path, { readOnly: true });
  try {
    const n = (after.prepare("SELECT count(*) AS n FROM watermarks WHERE session_no = 99999")
      .get() as { n: number }).n;
    assert.deepEqual(n, 0, "recovery removed the watermark with no session");
  } finally {
    after.close();
  }
});
