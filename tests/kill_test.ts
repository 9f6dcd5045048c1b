/**
 * SIGKILL over the commands that rewrite the store or move it: reindex, compact,
 * observations regenerate, data move, the first pass over a store from a build before the
 * pass's indexes, and a pass merging an index left in many segments, each killed at 10 points
 * spread over a measured run.
 * After each kill, and again after one rerun: verify is clean, every exported stream is
 * sha256-equal to its transcript, the turn rows number what a clean ingest wrote, and search
 * and the observations answer exactly as before. Nothing asserts on time; the kill points are
 * spread over the run as measured here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  type BigTree,
  bigTree,
  cliCommand,
  type CliOptions,
  keyOf,
  parseEnvelope,
  runCli,
  type Sandbox,
  sandbox,
} from "./helpers.ts";
import { PASS_INDEXES_DDL } from "../core/store/schema.ts";

const POINTS = 10;
const QUERIES = [["retry", "budget"], ["watermark"], ["cargo", "test"]];

async function sha256(b: Uint8Array<ArrayBuffer>): Promise<string> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", b)).toHex();
}

/** Everything the store answers that a kill must not change. */
interface Answers {
  turns: number;
  search: unknown[];
  observations: unknown;
}

async function json(
  sb: Sandbox,
  args: string[],
  opts: CliOptions,
): Promise<Record<string, unknown>> {
  const r = await runCli(sb, [...args, "--json"], opts);
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
  return parseEnvelope(r.out).data as Record<string, unknown>;
}

async function answers(sb: Sandbox, opts: CliOptions): Promise<Answers> {
  const search = [];
  for (const q of QUERIES) {
    const d = await json(sb, ["search", ...q, "--project", "*", "--limit", "40"], opts);
    search.push(
      (d.hits as { turn_id: number; session_key: string; relevance: number }[]).map((h) => [
        h.turn_id,
        h.session_key,
        h.relevance,
      ]),
    );
  }
  const status = await json(sb, ["status"], opts);
  const obs = await json(sb, ["observations", "--project", "*"], opts);
  return { turns: status.turns as number, search, observations: obs.observations };
}

/** verify clean, the export equal to the files, and the same answers as a clean store. */
async function assertWhole(
  sb: Sandbox,
  tree: BigTree,
  want: Answers,
  opts: CliOptions,
  what: string,
) {
  const v = await runCli(sb, ["verify", "--json"], opts);
  assert.equal(v.code, 0, `${what}: verify: ${v.out} ${v.err}`);
  assert.deepEqual(parseEnvelope(v.out).data, { checked: tree.files.length, failures: [] }, what);
  const dest = await Deno.makeTempDir({ dir: sb.dir, prefix: "export-" });
  await Deno.remove(dest);
  await json(sb, ["export", dest], opts);
  const manifest = JSON.parse(await Deno.readTextFile(join(dest, "manifest.json"))) as {
    files: { session_key: string; file: string }[];
  };
  const byKey = new Map(manifest.files.map((f) => [f.session_key, f.file]));
  assert.equal(byKey.size, tree.files.length, `${what}: every session exported`);
  for (const f of tree.files) {
    const out = byKey.get(keyOf(sb.claude, f));
    assert.ok(out, `${what}: ${f} exported`);
    assert.equal(
      await sha256(await Deno.readFile(join(dest, out))),
      await sha256(await Deno.readFile(f)),
      `${what}: ${f} exported byte for byte`,
    );
  }
  await Deno.remove(dest, { recursive: true });
  assert.deepEqual(await answers(sb, opts), want, `${what}: the same answers`);
}

async function copyDir(from: string, to: string) {
  await Deno.mkdir(to, { recursive: true, mode: 0o700 });
  for await (const e of Deno.readDir(from)) {
    if (e.isFile) await Deno.copyFile(join(from, e.name), join(to, e.name));
    else if (e.isDirectory) await copyDir(join(from, e.name), join(to, e.name));
  }
}

/** Runs `args`, SIGKILLed after `delayMs` unless it finished first; true when killed. */
async function killAfter(sb: Sandbox, args: string[], opts: CliOptions, delayMs: number) {
  const child = cliCommand(sb, args, { ...opts, stdout: "null", stderr: "null" }).spawn();
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* it finished first */ }
  }, delayMs);
  const st = await child.status;
  clearTimeout(timer);
  return st.signal === "SIGKILL";
}

async function timed(sb: Sandbox, args: string[], opts: CliOptions): Promise<number> {
  const t0 = performance.now();
  const r = await runCli(sb, args, opts);
  assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
  return performance.now() - t0;
}

interface Case {
  name: string;
  args: (point: string) => string[];
  /** The environment that finds the store of a point (its own copy of the data). */
  opts: (point: string) => CliOptions;
  /** Makes a point: a copy of the clean data directory laid out for this command. */
  make: (point: string) => Promise<void>;
  /** The rerun after a kill may be refused for a good reason (the move already happened). */
  rerunMayRefuse?: RegExp;
  /** What the rerun must have left besides the same answers. */
  check?: (point: string) => void;
  /** What a kill left, for the report line (where in the run the kill landed). */
  left?: (point: string) => string;
}

/** The indexes a pass makes on first use (IF NOT EXISTS), by name. */
const PASS_INDEXES = [...PASS_INDEXES_DDL.matchAll(/CREATE INDEX IF NOT EXISTS (\w+)/g)].map((m) =>
  m[1]
);

function count(store: string, sql: string): number {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    return Object.values(db.prepare(sql).get()!)[0] as number;
  } finally {
    db.close();
  }
}
const segments = (store: string) => count(store, "SELECT count(DISTINCT segid) FROM turns_fts_idx");
const mergeMarks = (store: string) =>
  count(store, "SELECT count(*) FROM meta WHERE key = 'search_index_merged_once'");

function indexNames(store: string): string[] {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as {
      name: string;
    }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

Deno.test("SIGKILL at 10 points of reindex, compact, observations regenerate, data move, a first pass making its indexes and a pass merging the index loses nothing and changes no answer", async (t) => {
  await using sb = await sandbox();
  const tree = await bigTree(sb.claude, { files: 36, totalBytes: 14_000_000, seed: 20261201 });
  const clean = join(sb.dir, "clean");
  const base: CliOptions = { env: { TERMINUS_DATA_DIR: clean } };
  const r = await runCli(sb, ["ingest"], base);
  assert.equal(r.code, 0, r.err);
  const want = await answers(sb, base);
  assert.ok(want.turns > 0 && want.search.every((h) => (h as unknown[]).length > 0));
  assert.ok((want.observations as unknown[]).length > 0, "the sessions were closed and observed");
  // free pages for compact to give back: a table filled and dropped, as eviction leaves them
  const db = new DatabaseSync(join(clean, "terminus.db"));
  try {
    db.exec(
      "CREATE TABLE junk AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 8000) SELECT randomblob(4000) AS b FROM n",
    );
    db.exec("DROP TABLE junk");
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  // a store whose index is in many segments and owes its merge, as an earlier build or a
  // reindex leaves it: refilled by reindex with FTS5 flushing every 64 KiB
  const older = join(sb.dir, "older");
  await copyDir(clean, older);
  {
    const o = new DatabaseSync(join(older, "terminus.db"));
    try {
      o.exec("INSERT INTO turns_fts(turns_fts, rank) VALUES ('hashsize', 65536)");
    } finally {
      o.close();
    }
    const re = await runCli(sb, ["reindex"], { env: { TERMINUS_DATA_DIR: older } });
    assert.equal(re.code, 0, re.err);
    assert.ok(segments(join(older, "terminus.db")) > 1, "the refill left several segments");
    assert.equal(mergeMarks(join(older, "terminus.db")), 0, "and owes the merge");
  }
  // how long the runtime takes to start and refuse at once: kills before that hit nothing
  const floor = await timed(sb, ["reindex"], { env: { TERMINUS_DATA_DIR: join(sb.dir, "none") } });

  const dataOf = (p: string) => join(p, "data");
  const storeCase = (name: string, args: string[]): Case => ({
    name,
    args: () => args,
    opts: (p) => ({ env: { TERMINUS_DATA_DIR: dataOf(p) } }),
    make: (p) => copyDir(clean, dataOf(p)),
  });
  // data move works on the recorded location, so TERMINUS_DATA_DIR is left unset
  const moveOpts = (p: string): CliOptions => ({
    env: {
      TERMINUS_DATA_DIR: undefined,
      XDG_DATA_HOME: join(p, "xdg"),
      TERMINUS_CONFIG_DIR: join(p, "config"),
    },
  });
  const cases: Case[] = [
    storeCase("reindex", ["reindex"]),
    storeCase("compact", ["compact"]),
    storeCase("observations regenerate", ["observations", "regenerate"]),
    {
      // a store an earlier build wrote, before the pass's indexes: its first pass makes them
      ...storeCase("ingest making the pass's indexes", ["ingest"]),
      make: async (p) => {
        await copyDir(clean, dataOf(p));
        const db = new DatabaseSync(join(dataOf(p), "terminus.db"));
        try {
          for (const name of PASS_INDEXES) db.exec(`DROP INDEX ${name}`);
          db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        } finally {
          db.close();
        }
        assert.deepEqual(
          indexNames(join(dataOf(p), "terminus.db")).filter((n) => PASS_INDEXES.includes(n)),
          [],
        );
      },
      left: (p) => {
        const have = indexNames(join(dataOf(p), "terminus.db"));
        return `${PASS_INDEXES.filter((n) => have.includes(n)).length}/${PASS_INDEXES.length} made`;
      },
      check: (p) => {
        const have = indexNames(join(dataOf(p), "terminus.db"));
        assert.deepEqual(PASS_INDEXES.filter((n) => !have.includes(n)), [], "every index made");
      },
    },
    {
      // the pass's merge of the search index is its only work here (no file is new)
      ...storeCase("ingest merging the search index", ["ingest"]),
      make: (p) => copyDir(older, dataOf(p)),
      left: (p) => `${segments(join(dataOf(p), "terminus.db"))} segments`,
      check: (p) => {
        assert.equal(segments(join(dataOf(p), "terminus.db")), 1, "merged by the rerun");
        assert.equal(mergeMarks(join(dataOf(p), "terminus.db")), 1, "and marked");
      },
    },
    {
      name: "data move",
      args: (p) => ["data", "move", join(p, "moved"), "-y"],
      opts: moveOpts,
      make: (p) => copyDir(clean, join(p, "xdg", "terminus")),
      rerunMayRefuse: /is the data directory itself/,
    },
  ];

  let n = 0;
  for (const c of cases) {
    await t.step(c.name, async () => {
      const measure = join(sb.dir, `point-${n++}`);
      await c.make(measure);
      let full = await timed(sb, c.args(measure), c.opts(measure));
      await assertWhole(sb, tree, want, c.opts(measure), `${c.name} run whole`);
      // a second whole run, the first having warmed the caches: the longer one sets the span
      await Deno.remove(measure, { recursive: true });
      await c.make(measure);
      full = Math.max(full, await timed(sb, c.args(measure), c.opts(measure)));
      await Deno.remove(measure, { recursive: true });
      let killed = 0;
      const report: string[] = [];
      const delays = Array.from(
        { length: POINTS },
        (_, i) => Math.round(floor * 0.8 + ((full - floor * 0.8) * i) / (POINTS - 1)),
      );
      for (let i = 0; i < delays.length; i++) {
        const p = join(sb.dir, `point-${n++}`);
        await c.make(p);
        const delay = Math.round(delays[i]);
        const k = await killAfter(sb, c.args(p), c.opts(p), delay);
        if (k) killed++;
        report.push(`${delay}:${k ? "killed" : "finished"}${c.left ? ` (${c.left(p)})` : ""}`);
        await assertWhole(sb, tree, want, c.opts(p), `${c.name} killed at ${delay} ms`);
        const again = await runCli(sb, c.args(p), c.opts(p));
        if (again.code !== 0) {
          assert.ok(
            c.rerunMayRefuse?.test(again.err),
            `${c.name} rerun after a kill at ${delay} ms: ${again.err}`,
          );
        }
        await assertWhole(sb, tree, want, c.opts(p), `${c.name} rerun after a kill at ${delay} ms`);
        c.check?.(p);
        await Deno.remove(p, { recursive: true });
        // a kill test whose kills all missed proves nothing: aim earlier again
        if (i === POINTS - 1 && killed < 3) {
          delays.push(...[0.3, 0.4, 0.5, 0.6].map((f) => f * full));
        }
      }
      console.log(
        `${c.name}: whole run ${Math.round(full)} ms, start-up ${Math.round(floor)} ms; ${
          report.join(", ")
        }`,
      );
      assert.ok(killed >= 3, `kill points landed before ${c.name} finished`);
    });
  }
});
