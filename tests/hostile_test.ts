/** Hostile surroundings (issue 16): C1 controls in archived text never reach the terminal raw. */
import assert from "node:assert/strict";
import { ingest, put, splitLines, Transcript, world } from "./read_helpers.ts";

/** U+0080–U+009F: a terminal may act on these (U+009B is a one-character CSI). */
function rawC1(s: string): string[] {
  return [...s].filter((c) => {
    const n = c.charCodeAt(0);
    return n >= 0x80 && n <= 0x9f;
  });
}

Deno.test("C1 controls in cwd, gitBranch and text print as \\u00XX escapes", async (t) => {
  await using w = await world();
  // a real project folder whose name carries CSI and NEL
  const proj = w.dir("proj\u009b2Jx\u0085y");
  const sid = "c1c1c1c1-0000-4000-8000-000000000001";
  const tr = new Transcript({
    sessionId: sid,
    cwd: proj,
    start: "2026-01-01T10:00:00.000Z",
    branch: "br\u009b31m\u0090",
  });
  tr.user("zebrafish question \u009b1m here");
  tr.assistant("zebrafish answer \u0085 there");
  tr.user("third turn");
  tr.at("2026-01-01T11:00:00.000Z").assistant("done");
  await put(w, tr);
  await ingest(w);
  const at = { cwd: proj };
  const id = w.ids().get(tr.turns[0])!;

  const check = async (args: string[], skipLine?: number) => {
    const r = await w.run(args, at);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
    const lines = splitLines(r.stdout).map((l) => new TextDecoder().decode(l));
    const shown = lines.filter((_, i) => i !== skipLine).join("\n");
    assert.deepEqual(rawC1(shown), [], `${args.join(" ")} stdout:\n${shown}`);
    assert.deepEqual(rawC1(r.err), [], `${args.join(" ")} stderr:\n${r.err}`);
    return shown;
  };

  await t.step("search, with and without --raw", async () => {
    const out = await check(["search", "zebrafish"]);
    assert.ok(out.includes("\\u009b"), out);
    assert.ok(out.includes("proj\\u009b2Jx\\u0085y"), out);
    await check(["search", "zebrafish", "--raw"]);
  });

  await t.step("show: header and context escaped, the record itself byte for byte", async () => {
    const r = await w.run(["show", String(id)], at);
    const record = new TextDecoder().decode(splitLines(r.stdout)[1]);
    assert.ok(record.includes("\u009b1m"), "the record line stays byte for byte");
    const out = await check(["show", String(id), "--after", "2"], 1);
    assert.ok(out.split("\n")[0].includes("proj\\u009b2Jx\\u0085y"), out);
  });

  await t.step("sessions, observations, usage", async () => {
    const s = await check(["sessions"]);
    assert.ok(s.includes("br\\u009b31m\\u0090") || s.includes("proj\\u009b2J"), s);
    await check(["observations"]);
    await check(["usage"]);
  });
});
