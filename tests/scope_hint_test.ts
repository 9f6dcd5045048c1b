/**
 * Outside every archived project, a read command says what to do next; an id shown outside
 * its project is named with its project and the command line that opens it (issue 14, item 4).
 */
import assert from "node:assert/strict";
import { parseEnvelope } from "./helpers.ts";
import { hitsOf, ingest, put, Transcript, world } from "./read_helpers.ts";

Deno.test("read commands outside an archived project point at --project '*'; show names an id's project", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const beta = w.dir("beta");
  const nowhere = w.dir("nowhere");
  const a = new Transcript({
    sessionId: "11111111-1111-4111-8111-111111111111",
    cwd: alpha,
    start: "2026-03-01T10:00:00.000Z",
  });
  const uA = a.user("the alpha word is quokka");
  const b = new Transcript({
    sessionId: "22222222-2222-4222-8222-222222222222",
    cwd: beta,
    start: "2026-03-01T11:00:00.000Z",
  });
  b.user("beta says hello");
  await put(w, a);
  await put(w, b);
  await ingest(w);
  const id = String(w.ids().get(uA));

  for (const args of [["search", "quokka"], ["sessions"], ["observations"]]) {
    const r = await w.run(args, { cwd: nowhere });
    assert.equal(r.code, 0);
    assert.equal(r.out, "");
    assert.equal(
      r.err,
      `no archived project covers ${nowhere}; pass --project '*' for every project\n`,
      args[0],
    );
  }
  // the id a --project '*' search prints, shown from nowhere: named with the line that opens it
  const hits = hitsOf(await w.json(["search", "quokka", "--project", "*"], { cwd: nowhere }));
  assert.equal(String(hits[0].turn_id), id);
  const r = await w.run(["show", id], { cwd: nowhere });
  assert.equal(r.code, 0);
  assert.equal(r.out, "");
  const line = `turn ${id} is in ${alpha}: terminus show ${id} --project ${alpha}`;
  assert.ok(r.err.split("\n").includes(line), r.err);
  // and from inside another project
  const fromBeta = await w.run(["show", id], { cwd: beta });
  assert.equal(fromBeta.code, 0);
  assert.ok(fromBeta.err.split("\n").includes(line), fromBeta.err);
  // the line it names works
  const opened = await w.run(["show", id, "--project", alpha], { cwd: nowhere });
  assert.equal(opened.code, 0, opened.err);
  assert.match(opened.out, /quokka/);
  // --json keeps the spec's empty result with the reason
  const env = parseEnvelope((await w.run(["show", id, "--json"], { cwd: nowhere })).out);
  assert.deepEqual((env.data as { records: unknown[] }).records, []);
});
