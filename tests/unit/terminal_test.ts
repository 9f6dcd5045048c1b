/**
 * What a person sees on a terminal, answered in process with the Context's streams saying
 * stdout is one, `columns` wide: styling codes reach the terminal as codes, never as text;
 * every line fits the width (tables by cutting their cells, prose by wrapping); a pipe gets
 * the lines whole and unstyled.
 */
import assert from "node:assert/strict";
import { cli, jsonOf, pass, type UnitBox, unitBox } from "./world.ts";
import { Session } from "../inject_helpers.ts";
import { width } from "../../core/width.ts";
import { SESSIONS_PAGE } from "../../core/constants.ts";

const APP = "/nonexistent/terminus-unit/a-project-folder-with-a-rather-long-name";
const SID = "cccccccc-0000-4000-8000-000000000001";

/** A session that edits one file, with a long diff line. */
async function editing(box: UnitBox): Promise<void> {
  const s = new Session(
    SID,
    APP,
    "2026-11-20T10:00:00Z",
    "a-rather-long-branch-name-for-a-feature",
  );
  s.user("make the check strict, and say why in a comment that runs well past eighty columns");
  s.tool("Edit", {
    file_path: `${APP}/src/check.py`,
    old_string: "  check=False,",
    new_string:
      "  check=True,  # a failed command must stop the run here rather than be noticed three steps later",
  });
  s.result("The file has been updated.");
  s.assistant("Done.");
  await s.write(box);
  await pass(box);
}

/** The lines as the screen shows them: styling codes take no column. */
function screenLines(out: string): string[] {
  // deno-lint-ignore no-control-regex
  return out.replace(/\x1b\[[0-9;]*m/g, "").split("\n").filter((l) => l !== "");
}

Deno.test("sessions changes on a terminal: colour codes reach it as codes, not as \\u001b text", async () => {
  await using box = await unitBox();
  box.env.NO_COLOR = "";
  await editing(box);
  const r = await cli(box, ["sessions", "changes", "1"], APP, { columns: 80 });
  assert.equal(r.code, 0, r.err);
  assert.ok(r.out.includes("\x1b[31m-  check=False,"), r.out);
  assert.ok(r.out.includes("\x1b[32m+"), r.out);
  assert.doesNotMatch(r.out, /\\u001b/, "no escape shown as text");
  for (const l of screenLines(r.out)) assert.ok(width(l) <= 80, `fits: ${l}`);
  // NO_COLOR and a pipe: no styling at all
  box.env.NO_COLOR = "1";
  const plain = await cli(box, ["sessions", "changes", "1"], APP, { columns: 80 });
  assert.ok(!plain.out.includes("\x1b") && !plain.out.includes("\\u001b"));
  box.env.NO_COLOR = "";
  const piped = await cli(box, ["sessions", "changes", "1"], APP);
  assert.ok(!piped.out.includes("\x1b") && !piped.out.includes("\\u001b"));
  assert.ok(piped.out.includes("# a failed command must stop the run here rather than be"));
});

const PROJECT = "/nonexistent/terminus-unit/a/project/folder/nested/rather/deep/down/app";

/** `n` sessions in PROJECT, a day apart, each with a long first prompt and a long branch. */
async function many(box: UnitBox, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const day = String(1 + (i % 28)).padStart(2, "0");
    const month = String(1 + Math.floor(i / 28)).padStart(2, "0");
    const s = new Session(
      `dddddddd-0000-4000-8000-${String(i).padStart(12, "0")}`,
      PROJECT,
      `2026-${month}-${day}T09:00:00Z`,
      `plnd/a-branch-name-as-long-as-the-ones-erk-makes-${i}`,
    );
    s.user(
      `session ${i}: a first prompt long enough that it has to be cut somewhere on a terminal`,
    );
    s.assistant("ok");
    await s.write(box);
  }
  await pass(box);
}

Deno.test("the session list fits any width: the file and path go first, the title is cut last, the number and day never", async () => {
  await using box = await unitBox();
  await many(box, 3);
  const rowsAt = async (columns: number) => {
    const r = await cli(box, ["sessions"], PROJECT, { columns });
    assert.equal(r.code, 0, r.err);
    return screenLines(r.out);
  };
  const wide = await rowsAt(300);
  assert.ok(wide[0].includes(".jsonl") && wide[0].includes(PROJECT), "all there when it fits");
  for (const columns of [200, 120, 100, 80, 60, 40, 30]) {
    const rows = await rowsAt(columns);
    assert.equal(rows.length, 3);
    for (const l of rows) {
      assert.ok(width(l) <= columns, `${columns}: ${l}`);
      assert.match(l, /^#\d {2}2026-01-0\d {2}/, `${columns}: number and day whole: ${l}`);
    }
    const title = /^#\d {2}\S+ {2}(.*?)(?: {2}|$)/.exec(rows[0])![1];
    if (columns <= 120) assert.ok(!rows[0].includes(".jsonl"), `${columns}: the file name went`);
    if (columns >= 80) {
      assert.ok(title.length >= 24, `${columns}: the title keeps room: ${rows[0]}`);
      assert.match(rows[0], / turn\(s\)/, `${columns}: the turn count stays`);
    }
    if (rows[0].includes(PROJECT)) {
      assert.ok(!title.endsWith("…"), `${columns}: the path stayed while the title was cut`);
    }
  }
  // a pipe: every column whole
  const piped = await cli(box, ["sessions"], PROJECT);
  assert.ok(piped.out.split("\n")[0].includes(PROJECT));
  assert.ok(piped.out.split("\n")[0].includes(".jsonl"));
});

Deno.test("sessions prints a page, newest first, and says how to see the rest; --json keeps every row", async () => {
  await using box = await unitBox();
  await many(box, 25);
  const r = await cli(box, ["sessions"], PROJECT);
  assert.equal(r.code, 0, r.err);
  const rows = r.out.trim().split("\n");
  assert.equal(rows.length, SESSIONS_PAGE);
  assert.match(rows[0], /^#25 {2}2026-01-25/, "the newest first");
  assert.equal(
    r.err,
    `${SESSIONS_PAGE} of 25 session(s), the newest; --limit <n> or --all lists more\n`,
  );
  const all = await cli(box, ["sessions", "--all"], PROJECT);
  assert.equal(all.out.trim().split("\n").length, 25);
  assert.equal(all.err, "25 session(s)\n");
  const five = await cli(box, ["sessions", "--limit", "5"], PROJECT);
  assert.equal(five.out.trim().split("\n").length, 5);
  assert.match(five.err, /^5 of 25 session\(s\)/);
  type V = { session_no: number; first_turn_at: string };
  const doc = await jsonOf(box, ["sessions"], PROJECT);
  const views = doc.data.sessions as V[];
  assert.equal(views.length, 25, "--json keeps every row");
  assert.deepEqual(
    views.map((v) => v.session_no),
    [...views.map((v) => v.session_no)].sort((a, b) => a - b),
  );
  // --limit keeps the newest, in the JSON document as in the list: `--limit 1 --json` is the latest
  const latest = (await jsonOf(box, ["sessions", "--limit", "1"], PROJECT)).data.sessions as V[];
  assert.equal(latest.length, 1);
  assert.equal(latest[0].first_turn_at.slice(0, 10), "2026-01-25");
  const three = (await jsonOf(box, ["sessions", "--limit", "3"], PROJECT)).data.sessions as V[];
  assert.deepEqual(three.map((v) => v.first_turn_at.slice(0, 10)), [
    "2026-01-23",
    "2026-01-24",
    "2026-01-25",
  ]);
  const both = await cli(box, ["sessions", "--all", "--limit", "2"], PROJECT);
  assert.equal(both.code, 2);
  assert.match(both.err, /--limit or --all, not both/);
});
