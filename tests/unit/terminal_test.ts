/**
 * What a person sees on a terminal, answered in process with the Context's streams saying
 * stdout is one, `columns` wide: styling codes reach the terminal as codes, never as text;
 * every line fits the width (tables by cutting their cells, prose by wrapping); a pipe gets
 * the lines whole and unstyled.
 */
import assert from "node:assert/strict";
import { cli, pass, type UnitBox, unitBox } from "./world.ts";
import { Session } from "../inject_helpers.ts";

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

Deno.test("sessions changes on a terminal: colour codes reach it as codes, not as \\u001b text", async () => {
  await using box = await unitBox();
  box.env.NO_COLOR = "";
  await editing(box);
  const r = await cli(box, ["sessions", "changes", "1"], APP, { columns: 80 });
  assert.equal(r.code, 0, r.err);
  assert.ok(r.out.includes("\x1b[31m-  check=False,"), r.out);
  assert.ok(r.out.includes("\x1b[32m+"), r.out);
  assert.doesNotMatch(r.out, /\\u001b/, "no escape shown as text");
  // NO_COLOR and a pipe: no styling at all
  box.env.NO_COLOR = "1";
  const plain = await cli(box, ["sessions", "changes", "1"], APP, { columns: 80 });
  assert.doesNotMatch(plain.out, /\x1b|\\u001b/);
  box.env.NO_COLOR = "";
  const piped = await cli(box, ["sessions", "changes", "1"], APP);
  assert.doesNotMatch(piped.out, /\x1b|\\u001b/);
  assert.ok(piped.out.includes("# a failed command must stop the run here rather than be"));
});
