/**
 * keyFor reads `<root>/projects/<folder>/<uuid>.jsonl` off its last three slashes without
 * splitting the path; every other shape goes through the general walk. The two must agree: the
 * answers below are what the walk gives (a key is what a session is found by, so a change here
 * would archive a file again under a new key).
 */
import assert from "node:assert/strict";
import { keyFor } from "../../core/transcript/session_key.ts";

const ID = "0b7c6a5e-1d2f-4e3a-9b8c-7d6e5f4a3b2c";

Deno.test("a transcript directly in a project folder is keyed by its file name", () => {
  assert.deepEqual(keyFor(`/h/.claude/projects/-h-code-a/${ID}.jsonl`, false), {
    sessionKey: `${ID}.jsonl`,
    canonical: `/h/.claude/projects/-h-code-a/${ID}.jsonl`,
    parentKey: null,
    isSidecar: false,
    fileSessionId: ID,
    projectFolder: "/h/.claude/projects/-h-code-a",
  });
  // a relative root, and a project folder itself named `projects`
  assert.deepEqual(keyFor(`projects/f/${ID}.jsonl`, false).projectFolder, "projects/f");
  assert.deepEqual(keyFor(`/r/projects/projects/${ID}.jsonl`, false).sessionKey, `${ID}.jsonl`);
});

Deno.test("shapes other than <uuid>.jsonl in a project folder keep their keys", () => {
  const sidecar = keyFor(`/h/projects/-h-a/${ID}/subagents/agent-x1.jsonl`, false);
  assert.deepEqual(sidecar.sessionKey, `${ID}/subagents/agent-x1.jsonl`);
  assert.deepEqual(sidecar.parentKey, `${ID}.jsonl`);
  assert.deepEqual(sidecar.isSidecar, true);
  // a bare 2.0.x agent file is keyed by its path; so is a file outside any projects folder
  assert.deepEqual(
    keyFor("/h/projects/-h-a/agent-x1.jsonl", false).sessionKey,
    "/h/projects/-h-a/agent-x1.jsonl",
  );
  assert.deepEqual(
    keyFor(`/h/other/-h-a/${ID}.jsonl`, false).sessionKey,
    `/h/other/-h-a/${ID}.jsonl`,
  );
  // a name that is not a uuid, directly in a project folder
  assert.deepEqual(
    keyFor("/h/projects/-h-a/notes.jsonl", false).sessionKey,
    "/h/projects/-h-a/notes.jsonl",
  );
});
