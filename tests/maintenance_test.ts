/**
 * Looking after the store: usage's two reconciliations, compact, snapshots taken by the pass,
 * and a snapshot put back by the guide's own steps.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  appendTo,
  assertArchiveEqualsFiles,
  cliOk,
  exists,
  query,
  runCli,
  type Sandbox,
  sandbox,
  writeConfig,
  writeTranscript,
} from "./helpers.ts";
import { data, holdIngestLock, mode, OLD, turns } from "./maint_helpers.ts";
import {
  footprint,
  FREE_PAGES,
  LOCK_PAGE,
  lockPageBytes,
  POINTER_MAP,
  pointerMapPages,
} from "../core/store/maintenance.ts";
import { snapshotName } from "../core/store/snapshot.ts";
import { DAY_MS, SQLITE_LOCK_BYTE_OFFSET } from "../core/constants.ts";

const P = "/nonexistent/terminus-maintenance";
const id = (n: number) => `00000000-0000-4000-8000-${n.toString().padStart(12, "0")}`;

interface Sizes {
  db: number;
  wal: number;
  shm: number;
  total: number;
}
interface Compact {
  before: Sizes;
  after: Sizes;
  reclaimed_bytes: number;
}
interface Usage {
  sessions: number;
  archive_bytes: number;
  by_project: { project: string | null; sessions: number; bytes: number }[];
  by_month: { month: string | null; sessions: number; bytes: number }[];
  file_bytes: number;
  footprint: { name: string; bytes: number }[];
}

const sum = (xs: { bytes: number }[]) => xs.reduce((n, x) => n + x.bytes, 0);

/* ---------- the lock page, proven directly ---------- */

Deno.test("the lock page is counted exactly when the file reaches past byte 0x40000000", () => {
  for (let size = 512; size <= 65536; size *= 2) {
    const at = SQLITE_LOCK_BYTE_OFFSET / size; // pages that end exactly at the lock byte
    assert.equal(lockPageBytes(at - 1, size), 0, `${size}: below`);
    assert.equal(lockPageBytes(at, size), 0, `${size}: a file of exactly 1 GiB has no lock page`);
    assert.equal(lockPageBytes(at + 1, size), size, `${size}: the next page is the lock page`);
    assert.equal(lockPageBytes(at + 1000, size), size, `${size}: one lock page, however big`);
  }
  assert.equal(lockPageBytes(0, 4096), 0);
});

Deno.test("pointer-map pages sit at page 2 and every usable/5 + 1 pages after, stepping past the lock page", () => {
  assert.equal(pointerMapPages(1, 4096), 0);
  assert.equal(pointerMapPages(2, 4096), 1);
  const span = Math.floor(4096 / 5) + 1; // 820
  assert.equal(pointerMapPages(span + 1, 4096), 1);
  assert.equal(pointerMapPages(span + 2, 4096), 2, "the second map page is page 822");
  // 512-byte pages: the map page that would land on the lock page moves one page on
  const s512 = Math.floor(512 / 5) + 1; // 103
  const lock = SQLITE_LOCK_BYTE_OFFSET / 512 + 1;
  const k = Math.ceil((lock - 2) / s512);
  const onOrAfter = k * s512 + 2;
  assert.equal(pointerMapPages(onOrAfter - 1, 512), k);
  assert.equal(pointerMapPages(onOrAfter === lock ? lock + 1 : onOrAfter, 512), k + 1);
});

Deno.test("the footprint rows add up to page_count * page_size, the lock page included past 1 GiB", () => {
  for (const pageSize of [1024, 4096, 65536]) {
    for (
      const pageCount of [
        10,
        SQLITE_LOCK_BYTE_OFFSET / pageSize,
        SQLITE_LOCK_BYTE_OFFSET / pageSize + 1,
        SQLITE_LOCK_BYTE_OFFSET / pageSize + 77,
      ]
    ) {
      for (const autoVacuum of [false, true]) {
        const free = 3;
        const map = autoVacuum ? pointerMapPages(pageCount, pageSize) : 0;
        const used = pageCount - free - map - lockPageBytes(pageCount, pageSize) / pageSize;
        // dbstat lists only b-tree pages: split them over two objects
        const a = Math.floor(used / 3);
        const f = footprint({
          pageSize,
          pageCount,
          freelistCount: free,
          autoVacuum,
          objects: [
            { name: "blocks", bytes: (used - a) * pageSize },
            { name: "turns", bytes: a * pageSize },
          ],
        });
        assert.equal(f.fileBytes, pageCount * pageSize);
        assert.equal(
          sum(f.rows),
          f.fileBytes,
          `${pageSize} x ${pageCount}, auto_vacuum ${autoVacuum}`,
        );
        const names = f.rows.map((r) => r.name);
        assert.equal(names.includes(LOCK_PAGE), pageCount * pageSize > SQLITE_LOCK_BYTE_OFFSET);
        assert.equal(names.includes(POINTER_MAP), autoVacuum);
        assert.ok(names.includes(FREE_PAGES));
      }
    }
  }
});

/* ---------- usage ---------- */

/** A store with two projects over two months, a session with neither, and free pages. */
async function storeWithDeletions(sb: Sandbox): Promise<{ gone: string }> {
  const at = (month: string) => new Date(`${month}-10T10:00:00.000Z`);
  await writeTranscript(
    sb.claude,
    `${P}/alpha`,
    `${id(1)}.jsonl`,
    turns({ sessionId: id(1), cwd: `${P}/alpha`, at: at("2025-01"), pairs: 4, filler: 3000 }),
  );
  await writeTranscript(
    sb.claude,
    `${P}/alpha`,
    `${id(2)}.jsonl`,
    turns({ sessionId: id(2), cwd: `${P}/alpha`, at: at("2025-02"), pairs: 2, filler: 1000 }),
  );
  await writeTranscript(
    sb.claude,
    `${P}/beta`,
    `${id(3)}.jsonl`,
    turns({ sessionId: id(3), cwd: `${P}/beta`, at: at("2025-02"), pairs: 2, filler: 500 }),
  );
  // no cwd and no timestamp: no project and no month, and the biggest, so "null last" shows
  await writeTranscript(
    sb.claude,
    `${P}/nowhere`,
    `${id(4)}.jsonl`,
    turns({ sessionId: id(4), cwd: null, at: null, pairs: 10, filler: 20000 }),
  );
  // big and doomed: deleting it leaves free pages behind
  const gone = await writeTranscript(
    sb.claude,
    `${P}/beta`,
    `${id(5)}.jsonl`,
    turns({ sessionId: id(5), cwd: `${P}/beta`, at: OLD, pairs: 40, filler: 30000 }),
  );
  await writeConfig(sb, `[retention.project."${P}/beta"]\naction = "delete"\nage_days = 365\n`);
  await cliOk(sb, ["ingest"]);
  await Deno.remove(gone);
  await cliOk(sb, ["ingest"]);
  assert.equal(
    query(sb.store, "SELECT 1 FROM sessions WHERE session_key = ?", `${id(5)}.jsonl`).length,
    0,
  );
  return { gone };
}

Deno.test("usage: the archive tables add up to archive_bytes, and the footprint to file_bytes, on a store with deletions and free pages", async () => {
  await using sb = await sandbox();
  await storeWithDeletions(sb);
  const r = await cliOk(sb, ["usage", "--json"]);
  assert.equal(r.err, "");
  const u = data<Usage>(r.out);

  const blocks = query<{ n: number }>(sb.store, "SELECT sum(length(bytes)) AS n FROM blocks")[0].n;
  assert.equal(u.archive_bytes, blocks, "archive_bytes is the blocks' byte lengths");
  assert.equal(sum(u.by_project), u.archive_bytes);
  assert.equal(sum(u.by_month), u.archive_bytes);
  assert.equal(u.by_project.reduce((n, b) => n + b.sessions, 0), u.sessions);
  assert.equal(u.by_month.reduce((n, b) => n + b.sessions, 0), u.sessions);
  assert.equal(u.sessions, 4);

  assert.equal(u.by_project.at(-1)!.project, null, "the null project comes last");
  assert.equal(u.by_month.at(-1)!.month, null, "the null month comes last");
  const nul = u.by_project.at(-1)!.bytes;
  assert.ok(u.by_project.slice(0, -1).every((b) => b.bytes < nul), "however big it is");
  const named = u.by_project.slice(0, -1).map((b) => b.bytes);
  assert.deepEqual(named, [...named].sort((a, b) => b - a), "biggest first");
  assert.deepEqual(u.by_month.slice(0, -1).map((b) => b.month).sort(), ["2025-01", "2025-02"]);

  const page = query<{ n: number }>(sb.store, "SELECT page_size AS n FROM pragma_page_size")[0].n;
  const pages =
    query<{ n: number }>(sb.store, "SELECT page_count AS n FROM pragma_page_count")[0].n;
  assert.equal(u.file_bytes, page * pages);
  assert.equal(sum(u.footprint), u.file_bytes, "the footprint reconciles exactly");
  const free = u.footprint.find((f) => f.name === FREE_PAGES)!;
  assert.ok(free.bytes > 0, "the deletion left free pages");
  assert.ok(u.footprint.some((f) => f.name === "blocks"));
  assert.ok(!u.footprint.some((f) => f.name === LOCK_PAGE), "a small file has no lock page");

  // exclusion is retroactive for the archive tables, and never touches the footprint
  await writeConfig(
    sb,
    `exclude = ["${P}/alpha"]\n[retention.project."${P}/beta"]\naction = "delete"\nage_days = 365\n`,
  );
  const x = data<Usage>((await cliOk(sb, ["usage", "--json"])).out);
  const alpha = u.by_project.find((b) => b.project === `${P}/alpha`)!;
  assert.equal(x.archive_bytes, u.archive_bytes - alpha.bytes);
  assert.equal(x.sessions, u.sessions - alpha.sessions);
  assert.ok(!x.by_project.some((b) => b.project === `${P}/alpha`));
  assert.equal(sum(x.by_month), x.archive_bytes);
  assert.deepEqual(x.footprint, u.footprint);

  const human = await cliOk(sb, ["usage"]);
  for (const t of ["archive by project", "archive by month", "database file by table"]) {
    assert.match(human.out, new RegExp(`^${t}$`, "m"), `prints ${t}`);
  }
  assert.match(human.err, /session\(s\); archive /);
});

Deno.test("usage with no store: an empty answer, exit 0, nothing created", async () => {
  await using sb = await sandbox();
  const r = await cliOk(sb, ["usage", "--json"]);
  const env = JSON.parse(r.out);
  assert.equal(env.ok, true);
  assert.match(env.reason, /no store/);
  assert.equal(env.data.file_bytes, 0);
  assert.equal(await exists(sb.data), false);
});

/* ---------- compact ---------- */

Deno.test("compact gives the free pages back and empties the WAL; reclaimed is before less after", async () => {
  await using sb = await sandbox();
  await storeWithDeletions(sb);
  const u0 = data<Usage>((await cliOk(sb, ["usage", "--json"])).out);
  const freeBefore = u0.footprint.find((f) => f.name === FREE_PAGES)!.bytes;
  assert.ok(freeBefore > 0);

  const r = await cliOk(sb, ["compact", "--json"]);
  assert.equal(r.err, "");
  const c = data<Compact>(r.out);
  for (const s of [c.before, c.after]) assert.equal(s.total, s.db + s.wal + s.shm);
  assert.equal(c.reclaimed_bytes, c.before.total - c.after.total);
  assert.equal(c.after.wal, 0, "the WAL is emptied");
  assert.ok(c.after.db <= c.before.db - freeBefore, "the file lost at least its free pages");
  assert.ok(c.reclaimed_bytes > 0);

  const u1 = data<Usage>((await cliOk(sb, ["usage", "--json"])).out);
  assert.equal(u1.footprint.find((f) => f.name === FREE_PAGES)!.bytes, 0);
  assert.equal(sum(u1.footprint), u1.file_bytes);
  assert.equal(u1.archive_bytes, u0.archive_bytes, "compact deletes nothing");
  await cliOk(sb, ["verify"]);

  const human = await cliOk(sb, ["compact"]);
  assert.match(human.out, /^before /m);
  assert.match(human.out, /^reclaimed /m);
});

Deno.test("compact while a pass holds the ingest lock: exit 1, ok false, before equals after, nothing changed", async () => {
  await using sb = await sandbox();
  await storeWithDeletions(sb);
  const bytes = await Deno.readFile(sb.store);
  const lock = holdIngestLock(sb.data);
  try {
    const r = await runCli(sb, ["compact", "--json"]);
    assert.equal(r.code, 1);
    assert.equal(r.err, "", "the failure goes in the document");
    const env = JSON.parse(r.out);
    assert.equal(env.ok, false);
    assert.match(env.reason, /ingest lock/);
    assert.deepEqual(env.data.before, env.data.after);
    assert.equal(env.data.reclaimed_bytes, 0);
    assert.equal(env.data.before.db, bytes.length);
    const human = await runCli(sb, ["compact"]);
    assert.equal(human.code, 1);
    assert.match(human.err, /ingest lock/);
  } finally {
    lock.release();
  }
  assert.deepEqual(await Deno.readFile(sb.store), bytes, "terminus.db is as it was");
});

Deno.test("compact with no store: zeros and a reason, exit 0, nothing created; a file that is no store exits 1", async () => {
  await using sb = await sandbox();
  const r = await cliOk(sb, ["compact", "--json"]);
  const env = JSON.parse(r.out);
  assert.equal(env.ok, true);
  assert.match(env.reason, /nothing to reclaim/);
  assert.deepEqual(env.data, {
    after: { db: 0, shm: 0, total: 0, wal: 0 },
    before: { db: 0, shm: 0, total: 0, wal: 0 },
    reclaimed_bytes: 0,
  });
  assert.equal(await exists(sb.data), false, "no data directory made by asking");

  await Deno.mkdir(sb.data);
  await Deno.writeTextFile(
    sb.store,
    "this is not a database, and it is long enough to say so\n".repeat(200),
  );
  const bad = await runCli(sb, ["compact", "--json"]);
  assert.equal(bad.code, 1);
  const b = JSON.parse(bad.out);
  assert.equal(b.ok, false);
  assert.match(b.reason, /terminus\.db/);
});

/* ---------- snapshots ---------- */

function snapshots(sb: Sandbox): string[] {
  try {
    return [...Deno.readDirSync(join(sb.data, "snapshots"))].map((e) => e.name).sort();
  } catch {
    return [];
  }
}

async function oneSession(sb: Sandbox): Promise<string> {
  return await writeTranscript(
    sb.claude,
    `${P}/snap`,
    `${id(1)}.jsonl`,
    turns({ sessionId: id(1), cwd: `${P}/snap`, at: OLD, pairs: 3 }),
  );
}

Deno.test("a pass takes a snapshot when none is newer than the interval: a 0600 copy in a 0700 folder that verifies", async () => {
  await using sb = await sandbox();
  await oneSession(sb);
  await cliOk(sb, ["ingest"]);
  const names = snapshots(sb);
  assert.equal(names.length, 1);
  assert.match(names[0], /^terminus-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}\.\d{3}Z\.db$/);
  assert.equal(mode(join(sb.data, "snapshots")), 0o700);
  const snap = join(sb.data, "snapshots", names[0]);
  assert.equal(mode(snap), 0o600);
  assert.deepEqual(
    query(snap, "SELECT session_key FROM sessions"),
    query(sb.store, "SELECT session_key FROM sessions"),
  );
  assert.equal(
    query<{ m: string }>(snap, "SELECT journal_mode AS m FROM pragma_journal_mode")[0].m,
    "delete",
  );

  // not due again for 24 hours
  await cliOk(sb, ["ingest"]);
  assert.deepEqual(snapshots(sb), names);
  const notes = query<{ notes: string }>(sb.store, "SELECT notes FROM runs ORDER BY id")
    .map((r) => r.notes ?? "");
  assert.equal(notes.filter((n) => /snapshot taken/.test(n)).length, 1);
});

Deno.test("snapshot timing reads the folder: interval_hours decides, 0 counts as 24, and keep deletes the oldest past it", async () => {
  await using sb = await sandbox();
  await oneSession(sb);
  await cliOk(sb, ["ingest"]);
  const [real] = snapshots(sb);
  const dir = join(sb.data, "snapshots");
  // the real snapshot moves aside to serve as a template for snapshots of any age
  const template = join(sb.dir, "template.db");
  await Deno.rename(join(dir, real), template);
  const copy = (at: Date) => Deno.copyFile(template, join(dir, snapshotName(at)));
  // the newest is 2 hours old: due under 1 hour, not under 0 (= 24)
  const twoHours = new Date(Date.now() - 2 * 3600_000);
  await copy(twoHours);
  await writeConfig(sb, `[snapshot]\ninterval_hours = 0\n`);
  await cliOk(sb, ["ingest"]);
  assert.deepEqual(snapshots(sb), [snapshotName(twoHours)]);

  for (const d of [400, 300, 200]) await copy(new Date(Date.now() - d * DAY_MS));
  await writeConfig(sb, `[snapshot]\ninterval_hours = 1\nkeep = 2\n`);
  await cliOk(sb, ["ingest"]);
  const left = snapshots(sb);
  assert.equal(left.length, 2, "keep = 2");
  assert.equal(left[0], snapshotName(twoHours), "the newest old one stays");
  assert.ok(left[1] > left[0], "beside the one just taken");
  // with every snapshot gone one is due, and enabled = false takes none
  for (const n of left) await Deno.remove(join(dir, n));
  await writeConfig(sb, `[snapshot]\nenabled = false\n`);
  await cliOk(sb, ["ingest"]);
  assert.deepEqual(snapshots(sb), []);
  // a name of another shape is not a snapshot: it neither counts nor is deleted
  await Deno.writeTextFile(join(dir, "notes.txt"), "mine");
  await writeConfig(sb, `[snapshot]\nkeep = 1\n`);
  await cliOk(sb, ["ingest"]);
  const last = snapshots(sb);
  assert.equal(last.length, 2);
  assert.ok(last.includes("notes.txt"));
});

Deno.test("restoring a snapshot by the guide's steps loses no byte: verify is clean and ingest catches up", async () => {
  await using sb = await sandbox();
  const cwd = `${P}/restore`;
  const a = await writeTranscript(
    sb.claude,
    cwd,
    `${id(1)}.jsonl`,
    turns({ sessionId: id(1), cwd, at: new Date(), pairs: 5, filler: 2000 }),
  );
  const b = await writeTranscript(
    sb.claude,
    cwd,
    `${id(2)}.jsonl`,
    turns({ sessionId: id(2), cwd, at: new Date(), pairs: 2 }),
  );
  await cliOk(sb, ["ingest"]);
  const [snap] = snapshots(sb);
  assert.ok(snap, "the first pass took a snapshot");

  // after the snapshot: a transcript grows and a new one appears
  await appendTo(a, turns({ sessionId: id(1), cwd, at: new Date(), pairs: 3, filler: 70000 }));
  const c = await writeTranscript(
    sb.claude,
    cwd,
    `${id(3)}.jsonl`,
    turns({ sessionId: id(3), cwd, at: new Date(), pairs: 2 }),
  );
  await cliOk(sb, ["ingest"]);
  assert.deepEqual(snapshots(sb), [snap], "no second snapshot inside the interval");

  const sh = async (script: string) => {
    const o = await new Deno.Command("sh", { args: ["-c", script], cwd: sb.data }).output();
    assert.equal(o.code, 0, new TextDecoder().decode(o.stderr));
  };
  await sh("rm -f terminus.db terminus.db-wal terminus.db-shm");
  await sh(`cp -p snapshots/${snap} terminus.db`);
  const v = await cliOk(sb, ["verify", "--json"]);
  assert.deepEqual(data<{ failures: unknown[] }>(v.out).failures, []);
  await cliOk(sb, ["ingest"]);
  await cliOk(sb, ["verify"]);
  await assertArchiveEqualsFiles(sb.store, sb.claude, [a, b, c]);
  assert.equal(mode(sb.store), 0o600);
});
