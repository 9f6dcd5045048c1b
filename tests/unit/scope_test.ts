/**
 * Which project a folder sees, found by index: each prefix of the folder that could cover it
 * is looked up, longest first, instead of listing every distinct path the store holds. In
 * process, against a real temp store: the answer must be the one the listing gave (longest
 * covering path; among projects filed under one path, the least) for every folder tried, and
 * no statement may walk `session_meta` (EXPLAIN QUERY PLAN shows a search, never a scan).
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { NOW, pass, unitBox, watched, withStore } from "./world.ts";
import { Session } from "../inject_helpers.ts";
import { defaultConfig } from "../../core/config.ts";
import { resolveScope } from "../../core/open.ts";
import { coveringPrefixes, projectCovering } from "../../core/store/projects.ts";
import { ensureHistoryTables, insertHistory } from "../../core/store/history_sql.ts";
import { covers } from "../../core/paths.ts";
import { ensurePassIndexes } from "../../core/store/pass_indexes.ts";
import type { Db } from "../../core/store/db.ts";

const ROOT = "/nonexistent/terminus-scope";

/** [project, project_pre_worktree] for each session, set after the pass. */
const FILED: [string | null, string | null][] = [
  [`${ROOT}/alpha`, null],
  [`${ROOT}/alpha`, `${ROOT}/alpha/.claude/worktrees/w1`],
  [`${ROOT}/alpha/sub`, null],
  // one folder filed under two projects (an older and a newer build): the least is taken
  [`${ROOT}/zeta`, `${ROOT}/shared`],
  [`${ROOT}/beta`, `${ROOT}/shared`],
  // a stored path with its trailing slash covers what is below it, not itself
  [`${ROOT}/gamma/`, null],
  [`${ROOT}/gammaX`, null],
  // a pre-worktree path with no project counts for nothing
  [null, `${ROOT}/orphan`],
  ["/", null],
];

/** The rule as it was: every distinct path listed, the longest covering one kept. */
function byListing(db: Db, dir: string): { path: string; project: string } | null {
  const rows = db.prepare(
    `SELECT DISTINCT project AS path, project FROM session_meta WHERE project IS NOT NULL
     UNION SELECT DISTINCT project_pre_worktree AS path, project FROM session_meta
       WHERE project_pre_worktree IS NOT NULL AND project IS NOT NULL`,
  ).all() as { path: string; project: string }[];
  const known = new Set(rows.map((r) => r.path));
  const history = db.prepare(
    "SELECT DISTINCT project FROM history_prompts WHERE project IS NOT NULL",
  )
    .all() as { project: string }[];
  for (const { project } of history) {
    if (!known.has(project)) rows.push({ path: project, project });
  }
  let best: { path: string; project: string } | null = null;
  for (const p of rows) {
    if (covers(p.path, dir) && (!best || p.path.length > best.path.length)) best = p;
  }
  return best ? { path: best.path, project: best.project } : null;
}

Deno.test("coveringPrefixes: the folder, then each parent with and without its slash, longest first", () => {
  assert.deepEqual(coveringPrefixes("/a/bc/d"), ["/a/bc/d", "/a/bc/", "/a/bc", "/a/", "/a", "/"]);
  assert.deepEqual(coveringPrefixes("/"), ["/"]);
  for (const p of coveringPrefixes("/x/y/z")) assert.ok(covers(p, "/x/y/z"), p);
});

Deno.test("scope: the project found by index is the one the listing of every path found", async () => {
  await using box = await unitBox();
  for (let i = 0; i < FILED.length; i++) {
    const s = new Session(
      `dddddddd-0000-4000-8000-${String(i + 1).padStart(12, "0")}`,
      `${ROOT}/s${i}`,
      `2026-11-2${i % 9}T10:00:00Z`,
    );
    s.user(`session ${i}`);
    s.assistant(`answer ${i}`);
    await s.write(box);
  }
  await pass(box, NOW);
  const w = new DatabaseSync(box.store);
  try {
    const nos =
      (w.prepare("SELECT session_no AS n FROM session_meta ORDER BY session_no").all() as {
        n: number;
      }[]).map((r) => r.n);
    assert.equal(nos.length, FILED.length);
    const set = w.prepare(
      "UPDATE session_meta SET project = ?, project_pre_worktree = ? WHERE session_no = ?",
    );
    nos.forEach((n, i) => set.run(FILED[i][0], FILED[i][1], n));
    ensurePassIndexes(w);
    ensureHistoryTables(w);
    insertHistory(w, [
      {
        at: "2026-11-01T00:00:00Z",
        cwd: `${ROOT}/hist/x`,
        project: `${ROOT}/hist`,
        sessionId: null,
        display: "only history knows this one",
        pasted: null,
        body: "only history knows this one",
      },
      {
        at: "2026-11-01T00:00:01Z",
        cwd: `${ROOT}/alpha`,
        project: `${ROOT}/alpha`,
        sessionId: null,
        display: "and this one a session knows too",
        pasted: null,
        body: "and this one a session knows too",
      },
    ]);
  } finally {
    w.close();
  }

  const dirs = [
    `${ROOT}/alpha`,
    `${ROOT}/alpha/src/deep/er`,
    `${ROOT}/alpha/sub`,
    `${ROOT}/alpha/sub/x`,
    `${ROOT}/alpha/subway`,
    `${ROOT}/alpha/.claude/worktrees/w1`,
    `${ROOT}/alpha/.claude/worktrees/w1/src`,
    `${ROOT}/alpha/.claude/worktrees/w2`,
    `${ROOT}/shared`,
    `${ROOT}/shared/inner`,
    `${ROOT}/gamma`,
    `${ROOT}/gamma/in`,
    `${ROOT}/gammaX/in`,
    `${ROOT}/orphan/x`,
    `${ROOT}/hist/x`,
    `${ROOT}`,
    "/elsewhere/entirely",
    "/",
  ];
  await withStore(box, (db) => {
    for (const dir of dirs) {
      assert.deepEqual(projectCovering(db, dir), byListing(db, dir), dir);
    }
    // a few answers by name, so the reference itself is held to what the spec means
    assert.equal(
      projectCovering(db, `${ROOT}/alpha/.claude/worktrees/w1/src`)?.project,
      `${ROOT}/alpha`,
    );
    assert.equal(projectCovering(db, `${ROOT}/shared/inner`)?.project, `${ROOT}/beta`);
    assert.equal(projectCovering(db, `${ROOT}/gamma`)?.project, "/");
    assert.equal(projectCovering(db, `${ROOT}/gamma/in`)?.project, `${ROOT}/gamma/`);
    assert.equal(projectCovering(db, `${ROOT}/hist/x`)?.project, `${ROOT}/hist`);

    const cfg = defaultConfig("/none");
    const scope = resolveScope(db, cfg, `${ROOT}/alpha/sub/x`, undefined);
    assert.ok(scope.ok && scope.vis.project === `${ROOT}/alpha/sub`);

    // every read of the sessions or of history seeks by a key; none walks its table
    const seen: { sql: string; params: unknown[] }[] = [];
    projectCovering(
      watched(db, (sql, params) => seen.push({ sql, params })),
      `${ROOT}/alpha/src/deep/er`,
    );
    const reads = seen.filter((s) => /FROM (session_meta|history_prompts)\b/.test(s.sql));
    assert.ok(reads.length > 0);
    for (const { sql, params } of reads) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as string[])) as {
        detail: string;
      }[]).map((r) => r.detail);
      // each look at a table seeks by a key: a bare SCAN, or a SEARCH with no `col=?` (an
      // index walked in order, as min() does without the right index), reads every row
      const looks = plan.filter((d) => /^(SCAN|SEARCH) (session_meta|history_prompts)\b/.test(d));
      assert.ok(looks.length > 0, plan.join("\n"));
      for (const d of looks) assert.match(d, /^SEARCH .*\(\w+=\?/, `${sql}\n${plan.join("\n")}`);
    }
  });

  // a store no pass has opened since the worktree index came: the same answers, from one walk
  const d = new DatabaseSync(box.store);
  try {
    d.exec("DROP INDEX session_meta_pre_worktree");
  } finally {
    d.close();
  }
  await withStore(box, (db) => {
    for (const dir of dirs) assert.deepEqual(projectCovering(db, dir), byListing(db, dir), dir);
  });
});
