/**
 * A search's --tool and --path filters on a real store made by `terminus ingest`: each checks a
 * turn by the turn's own rows, never by every row the tool or path has (which made `rebase
 * --tool Bash` take 20 s at ~3 GB), and a filter-only read lists the tool's turns once. The
 * answers are the turns that called the tool or named the path, whichever form is used.
 */
import assert from "node:assert/strict";
import { ingest, put, Transcript, world } from "./read_helpers.ts";
import { openRead } from "../core/store/db.ts";
import { anyTurnPasses, filterWhere } from "../core/store/filter_sql.ts";
import { searchCandidates } from "../core/store/search_candidates.ts";
import type { Visibility } from "../core/store/visibility.ts";

const EVERY: Visibility = { project: null, exclude: [] };

Deno.test("--tool and --path check a turn's own rows; a filter-only read lists their turns once", async () => {
  await using w = await world();
  const t = new Transcript({
    sessionId: "51515151-0000-4000-8000-000000000001",
    cwd: w.dir("app"),
    start: "2026-03-01T09:00:00.000Z",
  });
  for (let i = 0; i < 30; i++) {
    t.user(`step ${i}: rebase the branch`);
    t.toolUse("Bash", { command: `git rebase main # ${i}` });
    t.toolResult("rebased");
    t.toolUse("Read", { file_path: `/r/app/src/m${i % 3}.ts` });
    t.toolResult("export const m = 1;");
  }
  await put(w, t);
  await ingest(w);
  const o = openRead(w.sb.store)!;
  try {
    const plan = (f: { tool?: string; paths?: string[] }, listed: boolean) => {
      const { where, params } = filterWhere(EVERY, f, listed);
      const rows = o.db.prepare(
        `EXPLAIN QUERY PLAN SELECT t.id FROM turns t
           LEFT JOIN session_meta m ON m.session_no = t.session_no
         WHERE ${where.join(" AND ")}`,
      ).all(...params) as { detail: string }[];
      return rows.map((r) => r.detail).join("\n");
    };
    // each turn's check seeks the turn's own rows, not the tool's or the path's every row
    assert.match(plan({ tool: "Bash" }, false), /entities_turn \(turn_id=\?\)/);
    assert.doesNotMatch(plan({ tool: "Bash" }, false), /entities_act/);
    assert.match(plan({ paths: ["/r/app/src/m1.ts"] }, false), /paths_turn \(turn_id=\?\)/);
    // read over every turn, the tool's turns are listed once and the turns found by id
    assert.match(plan({ tool: "Bash" }, true), /LIST SUBQUERY/);
    assert.match(plan({ tool: "Bash" }, true), /SEARCH t USING INTEGER PRIMARY KEY/);
    assert.match(plan({ paths: ["/r/app/src/m1.ts"] }, true), /LIST SUBQUERY/);

    // the same turns either way: the words' read checks turn by turn, the filter-only read lists
    const byWords = searchCandidates(o.db, ['"rebase"'], EVERY, { tool: "Bash" }, 100);
    const byTime = searchCandidates(o.db, null, EVERY, { tool: "Bash" }, 100);
    assert.equal(byWords.length, 30, "the 30 Bash calls say rebase");
    assert.deepEqual(byWords.map((c) => c.toolName), Array(30).fill("Bash"));
    assert.deepEqual(
      byWords.map((c) => c.id).sort((a, b) => a - b),
      byTime.map((c) => c.id).sort((a, b) => a - b),
    );
    const onPath = searchCandidates(o.db, null, EVERY, { paths: ["/r/app/src/m1.ts"] }, 100);
    assert.equal(onPath.length, 10, "the Reads of m1.ts (and no result names it)");
    assert.equal(searchCandidates(o.db, null, EVERY, { tool: "bash" }, 100).length, 0);
    // whether the tool was called at all, for the note on an empty --tool answer
    assert.equal(anyTurnPasses(o.db, EVERY, { tool: "Bash" }), true);
    assert.equal(anyTurnPasses(o.db, EVERY, { tool: "bash" }), false);
    assert.equal(
      anyTurnPasses(o.db, { project: "/nowhere", exclude: [] }, { tool: "Bash" }),
      false,
    );
  } finally {
    o.db.close();
  }
});
