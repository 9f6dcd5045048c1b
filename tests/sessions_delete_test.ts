/**
 * terminus sessions delete: what it removes (and what it leaves byte for byte), the question
 * and its refusals, the tombstone across passes and reindex, --transcript, --snapshots opened
 * and looked into, --compact, the ingest lock, and SIGKILL at ten points of the work.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { appendTo, cliArgs, cliOk, exists, query, runCli, type Sandbox } from "./helpers.ts";
import { holdLock, ingest, put, Transcript, type World, world } from "./read_helpers.ts";
import { data, sha256 } from "./maint_helpers.ts";
import { runWithInput } from "./setup_helpers.ts";

const A = "aaaaaaaa-0000-4000-8000-000000000001";
const B = "bbbbbbbb-0000-4000-8000-000000000002";
const C = "cccccccc-0000-4000-8000-000000000003";
/** A word only session A's prompt holds: its traces are looked for in the files themselves. */
const MARKER = "Quokkasecretmarker";

interface Fixture {
  w: World;
  aFile: string;
  sideFile: string;
}

/** Three closed sessions in one project, A with a subagent, and A's logged prompts. */
async function fixture(): Promise<Fixture> {
  const w = await world();
  const app = w.dir("app");
  const a = new Transcript({ sessionId: A, cwd: app, start: "2025-01-01T10:00:00.000Z" });
  a.user(`I pasted ${MARKER} by mistake into the retry budget question`);
  a.toolUse("Read", { file_path: join(app, "src/a.ts") });
  a.toolResult("1\tconst budget = 3;");
  a.assistant("The retry budget is 3.");
  const aFile = await put(w, a);
  const side = new Transcript({
    sessionId: A,
    cwd: app,
    start: "2025-01-01T10:05:00.000Z",
    sidechain: true,
  });
  side.user("list every caller of the retry budget");
  side.assistant("Two callers.");
  const sideFile = await put(w, side, `${A}/subagents/agent-a1.jsonl`);
  const b = new Transcript({ sessionId: B, cwd: app, start: "2025-01-02T10:00:00.000Z" });
  b.user("the retry budget again, in session B");
  b.assistant("Still 3.");
  await put(w, b);
  const c = new Transcript({ sessionId: C, cwd: app, start: "2025-01-03T10:00:00.000Z" });
  c.user("an unrelated question in session C");
  c.assistant("An answer.");
  await put(w, c);
  await ingest(w);
  // the injection log's prompts and labels, as the hooks would have left them
  const db = new DatabaseSync(w.sb.store);
  try {
    for (const sid of [A, A, B]) {
      const d = db.prepare("INSERT INTO decisions (session_id, labelled, doc) VALUES (?, 1, '{}')")
        .run(sid);
      db.prepare("INSERT INTO labels (decision_id, turn_id, label) VALUES (?, NULL, 'miss')").run(
        d.lastInsertRowid,
      );
    }
  } finally {
    db.close();
  }
  await cliOk(w.sb, ["sessions", "name", A, "the pasted secret"]);
  await cliOk(w.sb, ["sessions", "tag", A, "oops"]);
  return { w, aFile, sideFile };
}

const TABLES = [
  "blocks",
  "turns",
  "turn_text",
  "entities",
  "paths",
  "compaction_boundaries",
  "observations",
  "watermarks",
  "session_meta",
  "sessions",
  "session_names",
  "session_tags",
  "session_titles",
  "file_tails",
];

function sessionNo(store: string, key: string): number | null {
  return query<{ n: number }>(
    store,
    "SELECT session_no AS n FROM sessions WHERE session_key = ?",
    key,
  )[0]
    ?.n ?? null;
}

/** Every row any table holds for these session numbers, table by table. */
function rowsOf(store: string, nos: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    for (const t of TABLES) {
      const col = ["turn_text", "entities", "paths", "compaction_boundaries"].includes(t)
        ? "turn_id / 16777216"
        : "session_no";
      const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(t);
      if (!exists) continue;
      let n = 0;
      for (const no of nos) {
        const sql = col === "session_no"
          ? `SELECT count(*) AS n FROM ${t} WHERE session_no = ?`
          : `SELECT count(*) AS n FROM ${t} WHERE turn_id >= ? * 16777216 AND turn_id < (? + 1) * 16777216`;
        const args = col === "session_no" ? [no] : [no, no];
        n += (db.prepare(sql).get(...args) as { n: number }).n;
      }
      out[t] = n;
    }
    out.decisions = (db.prepare(
      "SELECT count(*) AS n FROM decisions WHERE session_id IN (SELECT session_id FROM session_meta WHERE session_no IN (" +
        nos.map(() => "?").join(",") + "))",
    ).get(...nos) as { n: number }).n;
  } finally {
    db.close();
  }
  return out;
}

function countWhere(store: string, sql: string, ...args: string[]): number {
  return query<{ n: number }>(store, sql, ...args)[0].n;
}

/** Each session's exported transcript, hashed. */
async function exportHashes(sb: Sandbox, refs: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const r of refs) {
    const x = await cliOk(sb, ["sessions", "export", r, "--format", "jsonl"]);
    out.set(r, await sha256(x.stdout));
  }
  return out;
}

/** Whether a file (and its WAL) holds these bytes anywhere. */
function fileHolds(path: string, text: string): boolean {
  const needle = new TextEncoder().encode(text);
  for (const p of [path, `${path}-wal`]) {
    try {
      if (holds(Deno.readFileSync(p), needle)) return true;
    } catch {
      // no such file: nothing in it
    }
  }
  return false;
}

/**
 * Whether the search index's own pages still carry the marker word, deleted rows' included.
 * FTS5 stores a term as the part it does not share with the term before it, so the word's
 * tail is what is looked for.
 */
function indexHolds(path: string): boolean {
  const tail = new TextEncoder().encode(MARKER.toLowerCase().slice(4));
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db.prepare("SELECT block FROM turns_fts_data").all() as { block: Uint8Array }[];
    return rows.some((r) => r.block instanceof Uint8Array && holds(r.block, tail));
  } finally {
    db.close();
  }
}

function holds(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

Deno.test("sessions delete removes the session, its subagent, its prompts and labels, and nothing else", async () => {
  const { w } = await fixture();
  await using _ = w;
  const store = w.sb.store;
  const aNo = sessionNo(store, `${A}.jsonl`)!;
  const sideNo = sessionNo(store, `${A}/subagents/agent-a1.jsonl`)!;
  const before = rowsOf(store, [aNo, sideNo]);
  // the fixture holds something in each table the delete must empty
  for (const t of ["blocks", "turns", "turn_text", "observations", "session_names", "decisions"]) {
    assert.ok(before[t] > 0, `${t} holds rows for session A before the delete`);
  }
  const othersBefore = rowsOf(store, [
    sessionNo(store, `${B}.jsonl`)!,
    sessionNo(store, `${C}.jsonl`)!,
  ]);
  const hashes = await exportHashes(w.sb, [B, C]);
  const bLabels = countWhere(
    store,
    "SELECT count(*) AS n FROM labels WHERE decision_id IN (SELECT id FROM decisions WHERE session_id = ?)",
    B,
  );

  const r = await cliOk(w.sb, ["sessions", "delete", A, "--yes", "--json"]);
  const doc = data<{
    deleted: boolean;
    prompts_deleted: number;
    tombstones: number;
    sessions: { session_key: string; sidecar: boolean; turns: number }[];
  }>(r.out);
  assert.equal(doc.deleted, true);
  assert.equal(doc.prompts_deleted, 2);
  assert.equal(doc.tombstones, 2);
  assert.deepEqual(
    doc.sessions.map((s) => [s.session_key, s.sidecar]),
    [[`${A}/subagents/agent-a1.jsonl`, true], [`${A}.jsonl`, false]],
  );

  const after = rowsOf(store, [aNo, sideNo]);
  for (const [t, n] of Object.entries(after)) assert.equal(n, 0, `${t} still holds rows of A`);
  assert.equal(
    countWhere(
      store,
      "SELECT count(*) AS n FROM labels WHERE decision_id NOT IN (SELECT id FROM decisions)",
    ),
    0,
    "no label outlives its prompt",
  );
  assert.deepEqual(
    rowsOf(store, [sessionNo(store, `${B}.jsonl`)!, sessionNo(store, `${C}.jsonl`)!]),
    othersBefore,
  );
  assert.deepEqual(await exportHashes(w.sb, [B, C]), hashes, "every other export is identical");
  assert.equal(
    countWhere(
      store,
      "SELECT count(*) AS n FROM labels WHERE decision_id IN (SELECT id FROM decisions WHERE session_id = ?)",
      B,
    ),
    bLabels,
  );
  // gone from every read path
  const search = await w.json(["search", "retry", "budget", "--project", "*"]);
  assert.ok(
    (search.data as { hits: { session_key: string }[] }).hits.every((h) =>
      !h.session_key.startsWith(A)
    ),
  );
  const list = await w.json(["sessions", "--project", "*"]);
  assert.deepEqual(
    (list.data as { sessions: { session_key: string }[] }).sessions.map((s) => s.session_key)
      .sort(),
    [`${B}.jsonl`, `${C}.jsonl`],
  );
  const again = await runCli(w.sb, ["sessions", "delete", "#" + aNo, "--yes"]);
  assert.equal(again.code, 1, "the number no longer names a session");
});

Deno.test("sessions delete asks once; no answer, a no, or --dry-run deletes nothing", async () => {
  const { w } = await fixture();
  await using _ = w;
  const store = w.sb.store;
  const aNo = sessionNo(store, `${A}.jsonl`)!;
  const before = rowsOf(store, [aNo]);

  const dry = await cliOk(w.sb, ["sessions", "delete", A, "--dry-run"]);
  assert.match(dry.out, new RegExp(`#${aNo}  "the pasted secret"  \\d+ turn\\(s\\)  .* archived`));
  assert.match(dry.out, /and its 1 subagent session\(s\):/);
  assert.match(dry.err, /dry run: nothing was deleted/);

  // stdin closed: no answer to read
  const closed = await runCli(w.sb, ["sessions", "delete", A]);
  assert.equal(closed.code, 1);
  assert.match(closed.err, /Delete these 2 sessions from the archive for good\? \[y\/N\]/);
  assert.match(closed.err, /no answer to read/);

  for (const answer of ["n\n", "\n", "yes please\n"]) {
    const out = await runWithInput(w.sb, ["sessions", "delete", A], answer);
    assert.equal(out.code, 1, `answer ${JSON.stringify(answer)} deletes nothing`);
    assert.match(out.err, /nothing was deleted/);
  }
  assert.deepEqual(rowsOf(store, [aNo]), before);

  const yes = await runWithInput(w.sb, ["sessions", "delete", A], "y\n");
  assert.equal(yes.code, 0, yes.err);
  assert.equal(sessionNo(store, `${A}.jsonl`), null);
});

Deno.test("sessions delete: the tombstone keeps the transcript out across passes, a resumed file and reindex", async () => {
  const { w, aFile } = await fixture();
  await using _ = w;
  const store = w.sb.store;
  await cliOk(w.sb, ["sessions", "delete", A, "--yes"]);
  assert.equal(countWhere(store, "SELECT count(*) AS n FROM session_tombstones"), 2);
  const gone = () =>
    countWhere(store, "SELECT count(*) AS n FROM sessions WHERE session_key LIKE ?", `${A}%`);

  await ingest(w);
  assert.equal(gone(), 0, "the next pass does not archive it again");
  const status = await w.json(["status"]);
  assert.match(
    JSON.stringify(status.data),
    /2 transcript\(s\) skipped: their sessions were deleted with terminus sessions delete/,
  );
  // backfill counts nothing left to do: the pass would skip the deleted transcripts
  const sized = await cliOk(w.sb, ["backfill"]);
  assert.match(sized.err, /nothing to archive: every transcript is archived to its end/);
  // Claude Code resumes the session: the file grows from the same first bytes
  const more = new Transcript({
    sessionId: A,
    cwd: w.dir("app"),
    start: "2025-01-04T10:00:00.000Z",
  });
  more.user("one more question after the delete");
  await appendTo(aFile, more.text());
  await ingest(w);
  assert.equal(gone(), 0, "a grown transcript is still the deleted one");
  await cliOk(w.sb, ["reindex"]);
  await ingest(w);
  await cliOk(w.sb, ["ingest", aFile]);
  assert.equal(gone(), 0, "reindex and ingest <path> leave it deleted");
  assert.equal(countWhere(store, "SELECT count(*) AS n FROM session_tombstones"), 2);

  // a different transcript under the same key is not the one deleted: it is archived
  const other = new Transcript({
    sessionId: A,
    cwd: w.dir("app"),
    start: "2025-02-01T10:00:00.000Z",
  });
  other.user("a different file that happens to carry the same name");
  await Deno.writeTextFile(aFile, other.text());
  await ingest(w);
  assert.equal(
    countWhere(store, "SELECT count(*) AS n FROM sessions WHERE session_key = ?", `${A}.jsonl`),
    1,
  );
});

Deno.test("sessions delete --transcript deletes Claude Code's files too; without it they stay", async () => {
  const { w, aFile, sideFile } = await fixture();
  await using _ = w;
  const kept = await cliOk(w.sb, ["sessions", "delete", B, "--yes"]);
  assert.match(kept.err, /1 transcript\(s\) stay on disk; the next passes skip them/);
  const closed = await runCli(w.sb, ["sessions", "delete", A, "--transcript"]);
  assert.equal(closed.code, 1, "no answer: nothing deleted");
  assert.ok(Deno.statSync(aFile).isFile);
  const r = await cliOk(w.sb, ["sessions", "delete", A, "--transcript", "--yes", "--json"]);
  const doc = data<{ transcripts: { path: string; deleted: boolean }[] }>(r.out);
  assert.deepEqual(
    doc.transcripts.map((t) => [t.path, t.deleted]).sort(),
    [[aFile, true], [sideFile, true]].sort(),
  );
  for (const f of [aFile, sideFile]) {
    assert.throws(() => Deno.statSync(f), Deno.errors.NotFound, `${f} is gone`);
  }
});

/** Copies the pass's snapshot under two more snapshot names; returns all three paths. */
function threeSnapshots(sb: Sandbox): string[] {
  const dir = join(sb.data, "snapshots");
  const names = [...Deno.readDirSync(dir)].map((e) => e.name).filter((n) => n.endsWith(".db"));
  assert.equal(names.length, 1, "the first pass took a snapshot");
  const first = join(dir, names[0]);
  const out = [first];
  for (const at of ["2024-06-01T00-00-00.000Z", "2024-07-01T00-00-00.000Z"]) {
    const p = join(dir, `terminus-${at}.db`);
    Deno.copyFileSync(first, p);
    out.push(p);
  }
  return out;
}

function snapshotRows(path: string): { a: number; b: number; decisionsA: number; tomb: number } {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const n = (sql: string, ...args: string[]) => (db.prepare(sql).get(...args) as { n: number }).n;
    const hasTomb = !!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'session_tombstones'")
      .get();
    assert.equal(
      (db.prepare("PRAGMA integrity_check").get() as Record<string, string>)
        .integrity_check,
      "ok",
    );
    return {
      a: n(
        `SELECT count(*) AS n FROM blocks WHERE session_no IN
           (SELECT session_no FROM sessions WHERE session_key LIKE ?)`,
        `${A}%`,
      ) + n("SELECT count(*) AS n FROM sessions WHERE session_key LIKE ?", `${A}%`),
      b: n("SELECT count(*) AS n FROM sessions WHERE session_key = ?", `${B}.jsonl`),
      decisionsA: n("SELECT count(*) AS n FROM decisions WHERE session_id = ?", A),
      tomb: hasTomb ? n("SELECT count(*) AS n FROM session_tombstones") : 0,
    };
  } finally {
    db.close();
  }
}

Deno.test("sessions delete --snapshots clears every snapshot; without it the count and the command", async () => {
  const { w } = await fixture();
  await using _ = w;
  // the decisions were written after the pass's snapshot: put them in the snapshot too
  const snaps = threeSnapshots(w.sb);
  for (const s of snaps) {
    Deno.copyFileSync(w.sb.store, s); // a checkpointed store copied whole is a snapshot
    const db = new DatabaseSync(s);
    db.exec("PRAGMA journal_mode = DELETE");
    db.close();
  }
  for (const s of snaps) {
    assert.ok(fileHolds(s, MARKER), "a snapshot holds A's words before");
    assert.ok(indexHolds(s), "and its search index");
    assert.ok(snapshotRows(s).a > 0);
  }
  const r = await cliOk(w.sb, ["sessions", "delete", A, "--yes"]);
  assert.match(
    r.err,
    new RegExp(
      `3 snapshot\\(s\\) still hold it; terminus sessions delete ${A} --snapshots clears them`,
    ),
  );
  for (const s of snaps) assert.ok(snapshotRows(s).a > 0, "without --snapshots they keep it");

  const c = await cliOk(w.sb, ["sessions", "delete", A, "--snapshots", "--yes", "--json"]);
  assert.deepEqual(data<{ snapshots: unknown }>(c.out).snapshots, { holding: 3, cleared: 3 });
  for (const s of snaps) {
    const rows = snapshotRows(s);
    assert.equal(rows.a, 0, `${s} holds nothing of A`);
    assert.equal(rows.decisionsA, 0, `${s} holds no prompt of A`);
    assert.equal(rows.b, 1, `${s} still holds B`);
    assert.equal(rows.tomb, 2, `${s} carries the tombstones, for a restore`);
    assert.ok(!fileHolds(s, MARKER), `${s}'s bytes hold no trace of A's words`);
    assert.ok(!indexHolds(s), `${s}'s search index holds none either`);
  }
  const d = await cliOk(w.sb, ["sessions", "delete", A]);
  assert.match(d.err, /no snapshot holds it either/);
});

Deno.test("sessions delete --compact leaves no trace of the session's words in the store file", async () => {
  const { w } = await fixture();
  await using _ = w;
  const store = w.sb.store;
  assert.ok(indexHolds(store), "the search index holds A's word before");
  // deleting from the index leaves the word in its segments: only the merge takes it out
  await cliOk(w.sb, ["sessions", "delete", A, "--yes"]);
  assert.ok(indexHolds(store), "a delete alone leaves the word in the index");
  const r = await cliOk(w.sb, ["sessions", "delete", A, "--compact", "--json"]);
  const doc = data<{ compact: { reclaimed_bytes: number } | null }>(r.out);
  assert.ok(doc.compact !== null, "the compaction ran and says what it measured");
  assert.ok(!fileHolds(store, MARKER), "no trace of A's text in the file");
  assert.ok(!indexHolds(store), "no trace in the search index");
  // what is left still answers
  const hits = await w.json(["search", "retry", "budget", "--project", "*"]);
  assert.ok((hits.data as { hits: unknown[] }).hits.length > 0);
  await cliOk(w.sb, ["verify"]);
});

Deno.test("terminus compact after a plain delete merges the search index: the session's words leave it", async () => {
  const { w } = await fixture();
  await using _ = w;
  const store = w.sb.store;
  await cliOk(w.sb, ["sessions", "delete", A, "--yes"]);
  assert.ok(indexHolds(store), "a delete alone leaves the word in the index's segments");
  const r = await cliOk(w.sb, ["compact", "--json"]);
  assert.equal(data<{ after: { wal: number } }>(r.out).after.wal, 0);
  assert.ok(!indexHolds(store), "compact merged the index, so the word is gone from it");
  assert.ok(!fileHolds(store, MARKER), "and from the file's freed pages");
  const hits = await w.json(["search", "retry", "budget", "--project", "*"]);
  assert.ok((hits.data as { hits: unknown[] }).hits.length > 0, "what is left still answers");
  await cliOk(w.sb, ["verify"]);
});

Deno.test("sessions delete refuses while another process holds the ingest lock", async () => {
  const { w } = await fixture();
  await using _ = w;
  const lock = await holdLock(w.sb.data);
  try {
    const r = await runCli(w.sb, ["sessions", "delete", A, "--yes"]);
    assert.equal(r.code, 1);
    assert.match(r.err, /holds the ingest lock.*nothing was deleted/);
  } finally {
    lock.release();
  }
  assert.notEqual(sessionNo(w.sb.store, `${A}.jsonl`), null);
});

/**
 * The files a delete writes: the store and its WAL, each snapshot and its journal, and the
 * cleared copy of each snapshot (with its journal) that is renamed over it.
 */
function writtenFiles(sb: Sandbox): string[] {
  const snaps = [...Deno.readDirSync(join(sb.data, "snapshots"))].map((e) =>
    join(sb.data, "snapshots", e.name)
  );
  return [
    sb.store,
    `${sb.store}-wal`,
    ...snaps.flatMap((s) => [s, `${s}-journal`, `${s}.partial`, `${s}.partial-journal`]),
  ];
}

/** The CLI under strace, tracing only calls on `files` (strace's -P). */
function straced(
  sb: Sandbox,
  args: string[],
  files: string[],
  options: string[],
): Promise<Deno.CommandOutput> {
  return new Deno.Command("strace", {
    args: [
      "-f",
      "-qq",
      ...files.flatMap((f) => ["-P", f]),
      ...options,
      Deno.execPath(),
      ...cliArgs(args),
    ],
    cwd: sb.dir,
    env: sb.env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
}

/** Runs the CLI killed (SIGKILL) at the `n`th `syscall` on the store's files. */
function killedAt(
  sb: Sandbox,
  args: string[],
  syscall: string,
  n: number,
  files: string[],
): Promise<Deno.CommandOutput> {
  return straced(sb, args, files, [
    "-o",
    "/dev/null",
    "-e",
    `trace=${syscall}`,
    "-e",
    `inject=${syscall}:signal=KILL:when=${n}`,
  ]);
}

/** How many times each of these syscalls touched the files in one uninterrupted run. */
async function syscallCounts(
  sb: Sandbox,
  args: string[],
  syscalls: string[],
  files: string[],
): Promise<Map<string, number>> {
  const out = join(sb.dir, "strace-count.txt");
  const o = await straced(sb, args, files, ["-c", "-o", out, "-e", `trace=${syscalls.join(",")}`]);
  assert.equal(o.code, 0, new TextDecoder().decode(o.stderr));
  const counts = new Map<string, number>();
  for (const line of Deno.readTextFileSync(out).split("\n")) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/.exec(line);
    if (m && syscalls.includes(m[2])) counts.set(m[2], Number(m[1]));
  }
  return counts;
}

function copyTree(from: string, to: string): void {
  try {
    Deno.removeSync(to, { recursive: true });
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  Deno.mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const e of Deno.readDirSync(from)) {
    if (e.isDirectory) copyTree(join(from, e.name), join(to, e.name));
    else Deno.copyFileSync(join(from, e.name), join(to, e.name));
  }
}

Deno.test("sessions delete under SIGKILL at eleven points: the session is all there or all gone, in the store and in the snapshot", async () => {
  const which = await new Deno.Command("strace", { args: ["-V"], stdout: "null", stderr: "null" })
    .output().catch(() => null);
  assert.ok(which?.success, "strace is needed for this test (apt-get install strace)");
  const { w } = await fixture();
  await using _ = w;
  const sb = w.sb;
  await cliOk(sb, ["ingest"]); // checkpointed, so the copy below is the whole store
  const [snap, ...extra] = threeSnapshots(sb);
  for (const p of extra) Deno.removeSync(p); // one snapshot is enough here
  Deno.copyFileSync(sb.store, snap);
  {
    const db = new DatabaseSync(snap);
    db.exec("PRAGMA journal_mode = DELETE");
    db.close();
  }
  const template = join(sb.dir, "template");
  copyTree(sb.data, template);
  const aKeys = [`${A}.jsonl`, `${A}/subagents/agent-a1.jsonl`];
  const nosIn = (path: string) =>
    aKeys.map((k) => sessionNo(path, k)).filter((n): n is number => n !== null);
  const full = rowsOf(sb.store, nosIn(sb.store));
  const others = rowsOf(sb.store, [
    sessionNo(sb.store, `${B}.jsonl`)!,
    sessionNo(sb.store, `${C}.jsonl`)!,
  ]);
  const args = ["sessions", "delete", A, "--yes", "--snapshots"];
  const files = writtenFiles(sb);
  const counts = await syscallCounts(sb, args, ["pwrite64", "fsync", "fdatasync", "unlink"], files);
  const writes = counts.get("pwrite64") ?? 0;
  const syncs = (counts.get("fsync") ?? 0) + (counts.get("fdatasync") ?? 0);
  const syncName = (counts.get("fsync") ?? 0) > 0 ? "fsync" : "fdatasync";
  assert.ok(
    writes >= 6 && syncs >= 2,
    `enough writes to kill between: ${JSON.stringify([...counts])}`,
  );
  // six points spread over the page writes, three over the syncs (the snapshot's commit, the
  // store's), and the snapshot journal's deletion (its commit point) or the last sync
  const points: [string, number][] = [];
  for (let i = 0; i < 6; i++) points.push(["pwrite64", 1 + Math.floor((i * (writes - 1)) / 5)]);
  points.push([syncName, 1], [syncName, Math.ceil(syncs / 2)], [syncName, syncs]);
  points.push((counts.get("unlink") ?? 0) > 0 ? ["unlink", 1] : [syncName, syncs - 1]);
  // the rename that puts the cleared copy in the snapshot's place (issue 46)
  points.push(["rename", 1]);
  assert.equal(points.length, 11);

  const outcomes: string[] = [];
  for (const [syscall, n] of points) {
    copyTree(template, sb.data);
    const o = await killedAt(sb, args, syscall, n, files);
    assert.notEqual(o.code, 0, `the run was killed at ${syscall} #${n}`);
    // the snapshot is changed only through a copy renamed over it: never a journal beside it
    assert.equal(await exists(`${snap}-journal`), false, `a journal is left at ${syscall} #${n}`);
    for (const path of [sb.store, snap]) {
      // a read-write open recovers what the kill left (a hot journal, a WAL)
      {
        const db = new DatabaseSync(path);
        db.prepare("SELECT count(*) FROM sqlite_master").get();
        db.close();
      }
      const nos = nosIn(path);
      const rows = rowsOf(path, nos.length ? nos : [-1]);
      const gone = Object.values(rows).every((v) => v === 0);
      const tombs = countWhere(
          path,
          "SELECT count(*) AS n FROM sqlite_master WHERE name = 'session_tombstones'",
        )
        ? countWhere(path, "SELECT count(*) AS n FROM session_tombstones")
        : 0;
      if (gone) {
        assert.equal(tombs, 2, `${path} at ${syscall} #${n}: gone, with both tombstones`);
      } else {
        assert.deepEqual(rows, full, `${path} at ${syscall} #${n}: all there, none of it half`);
        assert.equal(tombs, 0);
      }
      const ints = query<{ integrity_check: string }>(path, "PRAGMA integrity_check");
      assert.equal(ints[0].integrity_check, "ok");
      outcomes.push(
        `${syscall}#${n}:${path === snap ? "snapshot" : "store"}:${gone ? "gone" : "there"}`,
      );
    }
    assert.deepEqual(
      rowsOf(sb.store, [sessionNo(sb.store, `${B}.jsonl`)!, sessionNo(sb.store, `${C}.jsonl`)!]),
      others,
      `the other sessions at ${syscall} #${n}`,
    );
    // running it again finishes what the kill interrupted
    await cliOk(sb, ["sessions", "delete", A, "--yes", "--snapshots"]);
    for (const path of [sb.store, snap]) assert.deepEqual(nosIn(path), []);
  }
  // the points fell both before and after the store's commit
  assert.ok(outcomes.some((o) => o.endsWith("store:there")), outcomes.join(" "));
  assert.ok(outcomes.some((o) => o.endsWith("store:gone")), outcomes.join(" "));
});

Deno.test("sessions delete of a subagent alone leaves its parent and the parent's prompts", async () => {
  const { w } = await fixture();
  await using _ = w;
  const store = w.sb.store;
  const sideKey = `${A}/subagents/agent-a1.jsonl`;
  const sideNo = sessionNo(store, sideKey)!;
  const r = await cliOk(w.sb, ["sessions", "delete", String(sideNo), "--yes", "--json"]);
  const doc = data<{ prompts_deleted: number; sessions: { session_key: string }[] }>(r.out);
  assert.deepEqual(doc.sessions.map((s) => s.session_key), [sideKey]);
  assert.equal(doc.prompts_deleted, 0, "a subagent reports its parent's id: no prompt goes");
  assert.equal(sessionNo(store, sideKey), null);
  assert.notEqual(sessionNo(store, `${A}.jsonl`), null);
  assert.equal(countWhere(store, "SELECT count(*) AS n FROM decisions WHERE session_id = ?", A), 2);
  // two references at once, one of them twice: each session once
  const bNo = sessionNo(store, `${B}.jsonl`)!;
  const both = await cliOk(w.sb, ["sessions", "delete", B, C, `#${bNo}`, "--yes", "--json"]);
  assert.deepEqual(
    data<{ sessions: { session_key: string }[] }>(both.out).sessions.map((s) => s.session_key),
    [`${B}.jsonl`, `${C}.jsonl`],
  );
  const missing = await runCli(w.sb, ["sessions", "delete", "4242", "--yes"]);
  assert.equal(missing.code, 1);
  assert.match(missing.err, /no archived session matches '4242'/);
  const none = await runCli(w.sb, ["sessions", "delete"]);
  assert.equal(none.code, 2);
});

Deno.test("a hot journal an older build left beside a snapshot is rolled back, and the deletion applied again", async () => {
  const { w } = await fixture();
  await using _ = w;
  const sb = w.sb;
  await cliOk(sb, ["ingest"]);
  const [snap, ...extra] = threeSnapshots(sb);
  for (const p of extra) Deno.removeSync(p);
  Deno.copyFileSync(sb.store, snap);
  {
    const db = new DatabaseSync(snap);
    db.exec("PRAGMA journal_mode = DELETE");
    db.close();
  }
  // what an earlier build left when killed while it cleared the snapshot in place: a child
  // deletes A's blocks in a transaction, its pages spilled to the file, then is SIGKILLed
  const code = `import { DatabaseSync } from "node:sqlite";
const db = new DatabaseSync(${JSON.stringify(snap)});
db.exec("PRAGMA cache_size = 1; BEGIN; DELETE FROM blocks; DELETE FROM turns;");
db.exec("CREATE TABLE spill AS SELECT randomblob(4000000) AS y");
Deno.kill(Deno.pid, "SIGKILL");`;
  const killed = await new Deno.Command(Deno.execPath(), {
    args: ["eval", code],
    env: sb.env,
    clearEnv: true,
    stdout: "null",
    stderr: "null",
  }).output();
  assert.equal(killed.signal, "SIGKILL");
  assert.ok(Deno.statSync(`${snap}-journal`).size > 0, "a hot journal is beside the snapshot");
  {
    const ro = new DatabaseSync(snap, { readOnly: true });
    try {
      assert.throws(() => ro.prepare("SELECT count(*) FROM sqlite_master").get());
    } finally {
      ro.close();
    }
  }

  const r = await cliOk(sb, ["sessions", "delete", A, "--yes", "--snapshots", "--json"]);
  assert.deepEqual(data<{ snapshots: unknown }>(r.out).snapshots, { holding: 1, cleared: 1 });
  assert.equal(await exists(`${snap}-journal`), false, "the journal was rolled back");
  const rows = snapshotRows(snap); // integrity_check ok
  assert.equal(rows.a, 0, "A is gone from the snapshot");
  const bBlocks = query<{ n: number }>(
    snap,
    "SELECT count(*) AS n FROM blocks JOIN sessions USING (session_no) WHERE session_key = ?",
    `${B}.jsonl`,
  )[0].n;
  assert.ok(rows.b > 0 && bBlocks > 0, "the rollback gave B's blocks back, and they stay");
});
