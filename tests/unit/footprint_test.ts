/**
 * `usage`'s footprint from the pointer map agrees with dbstat page for page: on a store a real
 * pass made, with committed frames still in the WAL, and with free pages. In process, real temp
 * stores; dbstat is the reference it replaces.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { defaultConfig } from "../../core/config.ts";
import { runWholePass } from "../../core/ingest/whole.ts";
import { dbstatObjects, fileShape, footprint } from "../../core/store/maintenance.ts";
import { ptrmapObjects } from "../../core/store/ptrmap.ts";
import { prng, syntheticSession, uuidFrom, writeTranscript } from "../helpers.ts";

const CWD = "/home/you/code/project-footprint";

async function store(): Promise<{ dir: string; path: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "terminus-footprint-" });
  const root = join(dir, "claude");
  await Deno.mkdir(join(root, "projects"), { recursive: true });
  const rand = prng(7);
  for (let i = 0; i < 12; i++) {
    const id = uuidFrom(rand);
    // a few large tool outputs, so blocks spill into overflow chains
    const text = syntheticSession({ sessionId: id, cwd: CWD, bytes: 60_000 + i * 9_000, rand });
    await writeTranscript(root, CWD, `${id}.jsonl`, text);
  }
  const cfg = defaultConfig(join(dir, "config", "terminus.toml"));
  cfg.snapshot.enabled = false;
  const r = await runWholePass({ cfg, dataDir: join(dir, "data"), roots: [root] });
  assert.ok(r.ran && r.run!.filesCommitted === 12);
  return {
    dir,
    path: join(dir, "data", "terminus.db"),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

const sorted = (xs: { name: string; bytes: number }[]) =>
  [...xs].map((o) => [o.name, Number(o.bytes)]).sort((a, b) => (a[0] < b[0] ? -1 : 1));

/** Both answers in one read transaction of a fresh read-only connection. */
function both(path: string) {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    db.exec("BEGIN");
    const shape = fileShape(db);
    const fromMap = ptrmapObjects(db, shape);
    const fromStat = dbstatObjects(db);
    db.exec("COMMIT");
    return { shape, fromMap, fromStat };
  } finally {
    db.close();
  }
}

Deno.test("the pointer map gives dbstat's bytes per object on a checkpointed store", async () => {
  await using s = await store();
  const { shape, fromMap, fromStat } = both(s.path);
  assert.ok(shape.autoVacuum, "the store keeps a pointer map");
  assert.ok(fromMap !== null, "the pointer map could be read");
  assert.deepEqual(sorted(fromMap), sorted(fromStat));
  const f = footprint(shape);
  assert.equal(f.rows.reduce((n, r) => n + r.bytes, 0), f.fileBytes);
});

Deno.test("the pointer map reads committed WAL frames over the file, and free pages", async () => {
  await using s = await store();
  // a writer that never checkpoints, kept open so its frames stay in the WAL
  const w = new DatabaseSync(s.path);
  try {
    w.exec("PRAGMA wal_autocheckpoint = 0");
    w.exec("CREATE TABLE scratch (x BLOB)");
    w.prepare("INSERT INTO scratch VALUES (?)").run(new Uint8Array(200_000).fill(7));
    w.exec("DELETE FROM turn_text WHERE rowid % 2 = 0");
    assert.ok(Deno.statSync(`${s.path}-wal`).size > 0, "frames wait in the WAL");
    const { shape, fromMap, fromStat } = both(s.path);
    assert.ok(shape.freelistCount > 0, "the delete left free pages");
    assert.ok(fromMap !== null);
    assert.deepEqual(sorted(fromMap), sorted(fromStat));
    assert.ok(fromMap.some((o) => o.name === "scratch"), "a table only the WAL holds is counted");
    // a transaction still open is not counted, even with its pages spilled into the WAL: the
    // reader sees the last commit
    w.exec("PRAGMA cache_size = 2");
    const before = Deno.statSync(`${s.path}-wal`).size;
    w.exec("BEGIN");
    w.prepare("INSERT INTO scratch VALUES (?)").run(new Uint8Array(300_000).fill(9));
    w.exec("DELETE FROM turn_text");
    assert.ok(Deno.statSync(`${s.path}-wal`).size > before, "the open transaction spilled");
    const open = both(s.path);
    assert.ok(open.fromMap !== null);
    assert.deepEqual(sorted(open.fromMap), sorted(open.fromStat));
    w.exec("ROLLBACK");
  } finally {
    w.close();
  }
});
