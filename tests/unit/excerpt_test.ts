/**
 * Excerpts as the person saw them: a slash command as typed, not Claude Code's wrapping of
 * it; a tool's JSON output with its escaped emoji decoded; control escapes left as written.
 */
import assert from "node:assert/strict";
import { jsonOf, pass, unitBox } from "./world.ts";
import { Session } from "../inject_helpers.ts";
import { asSeen } from "../../core/recall/excerpt.ts";

const APP = "/nonexistent/terminus-unit/app";

Deno.test("search excerpts: a slash command as typed, and a tool's escaped emoji as the emoji", async () => {
  await using box = await unitBox();
  const s = new Session("aaaaaaaa-0000-4000-8000-0000000000e1", APP, "2026-11-20T10:00:00Z");
  s.user(
    "<command-message>erk:plan-save is running…</command-message>\n<command-name>/erk:plan-save</command-name>\n<command-args>--plan-type=learn</command-args>",
  );
  s.tool("Bash", { command: "gh api repos/o/r/issues/1/comments" });
  s.result('[{"body": "\\ud83d\\ude80 Starting implementation of the toast notification"}]');
  await s.write(box);
  await pass(box);
  type Hit = { excerpt: string };
  const prompts = (await jsonOf(box, ["search", "--prompts", "plan"], APP)).data.hits as Hit[];
  assert.deepEqual(prompts.map((h) => h.excerpt), ["/erk:plan-save --plan-type=learn"]);
  const toast = (await jsonOf(box, ["search", "toast", "notification"], APP)).data.hits as Hit[];
  assert.equal(toast.length, 1);
  assert.ok(toast[0].excerpt.includes("🚀 Starting implementation"), toast[0].excerpt);
  const sessions = (await jsonOf(box, ["sessions", "search", "toast"], APP)).data.sessions as {
    best: Hit;
  }[];
  assert.ok(sessions[0].best.excerpt.includes("🚀"), sessions[0].best.excerpt);
});

Deno.test("asSeen decodes escaped characters past ASCII and leaves control escapes as written", () => {
  assert.equal(asSeen("\\ud83d\\ude80 go"), "🚀 go");
  assert.equal(asSeen("\\u2699\\ufe0f set"), "⚙️ set");
  assert.equal(asSeen("caf\\u00e9"), "café");
  for (const kept of ["\\u001b[31m", "\\n", "\\u202e", "a lone \\ud83d", "\\u0041"]) {
    assert.equal(asSeen(kept), kept);
  }
});
