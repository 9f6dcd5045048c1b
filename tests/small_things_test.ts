/**
 * Issue 14, item 10: usage's months in date order, stats explaining an empty log, backfill
 * with nothing pending, and observations a person can read (capped lists, project-relative
 * paths, one line per command).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseEnvelope } from "./helpers.ts";
import { ingest, put, Transcript, world } from "./read_helpers.ts";

Deno.test("small things of the first hour", async (t) => {
  await using w = await world();
  const app = w.dir("app");
  // a small session in January, a bigger one in March: biggest first in JSON, by date for people
  const jan = new Transcript({
    sessionId: "11111111-1111-4111-8111-111111111111",
    cwd: app,
    start: "2026-01-10T10:00:00.000Z",
  });
  jan.user("a small january session");
  await put(w, jan);
  const mar = new Transcript({
    sessionId: "22222222-2222-4222-8222-222222222222",
    cwd: app,
    start: "2026-03-10T10:00:00.000Z",
  });
  for (let i = 0; i < 12; i++) {
    mar.toolUse("Read", { file_path: join(app, `src/file${i}.ts`) });
    mar.toolResult(`contents of file ${i} `.repeat(40));
  }
  mar.toolUse("Bash", { command: "cat <<EOF > notes.txt\nline two\nEOF", description: "write" });
  mar.toolResult("");
  await put(w, mar);
  await ingest(w);
  const at = { cwd: app };

  await t.step(
    "usage: the months table runs oldest first; --json keeps biggest first",
    async () => {
      const doc = await w.json(["usage"], at);
      const months = (doc.data as { by_month: { month: string }[] }).by_month.map((m) => m.month);
      assert.deepEqual(months, ["2026-03", "2026-01"]);
      const r = await w.run(["usage"], at);
      assert.equal(r.code, 0);
      assert.ok(r.out.indexOf("2026-01") < r.out.indexOf("2026-03"), r.out);
    },
  );

  await t.step("stats on an empty log says why it is empty, on stderr only", async () => {
    const r = await w.run(["stats"], at);
    assert.equal(r.code, 0);
    assert.match(r.err, /no prompt is logged yet: .*UserPromptSubmit hook/);
    assert.match(r.out, /^decisions +0$/m);
    const j = await w.run(["stats", "--json"], at);
    assert.equal(j.err, "");
    assert.equal(parseEnvelope(j.out).reason, null);
  });

  await t.step(
    "backfill with everything archived says nothing to archive and starts nothing",
    async () => {
      const r = await w.run(["backfill"], at);
      assert.equal(r.code, 0, r.err);
      assert.match(r.err, /nothing to archive/);
      assert.doesNotMatch(r.err, /detached process/);
      assert.match(r.out, /^not archived +0 byte\(s\)$/m);
    },
  );

  await t.step(
    "observations: paths from the project, lists capped, commands on one line",
    async () => {
      const r = await w.run(["observations"], at);
      assert.equal(r.code, 0, r.err);
      const read = r.out.split("\n").find((l) => l.startsWith("  files read"));
      assert.ok(read, r.out);
      assert.ok(!read.includes(app), `project-relative: ${read}`);
      assert.match(read, /src\/file\d+\.ts/);
      assert.match(read, /, \+4 more$/);
      const cmds = r.out.split("\n").find((l) => l.startsWith("  commands"));
      assert.ok(cmds, r.out);
      assert.match(cmds, /cat <<EOF > notes\.txt \u2026/);
      assert.doesNotMatch(r.out, /line two/);
      // --json keeps the facts whole
      const doc = await w.json(["observations"], at);
      const obs = (doc.data as { observations: { mechanical: Record<string, string[]> }[] })
        .observations;
      const m = obs.find((o) => (o.mechanical.files_read ?? []).length > 0)!.mechanical;
      assert.equal(m.files_read.length, 12);
      assert.ok(m.files_read.every((f) => f.startsWith(app + "/")));
    },
  );
});
