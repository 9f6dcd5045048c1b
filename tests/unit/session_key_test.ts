/**
 * keyFor reads `<root>/projects/<folder>/<uuid>.jsonl` off its last three slashes without
 * splitting the path; every other shape goes through the general walk. The two must agree: the
 * answers below are what the walk gives (a key is what a session is found by, so a change here
 * would archive a file again under a new key).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { discover } from "../../core/transcript/discover.ts";
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

Deno.test("discovery keys a transcript in a project folder as keyFor does", async () => {
  const root = await Deno.makeTempDir({ prefix: "terminus-keys-" });
  try {
    const folder = join(root, "projects", "-h-code-a");
    await Deno.mkdir(join(folder, ID, "subagents"), { recursive: true });
    await Deno.writeTextFile(join(folder, `${ID}.jsonl`), "{}\n");
    await Deno.writeTextFile(join(folder, "agent-x1.jsonl"), "{}\n");
    await Deno.writeTextFile(join(folder, ID, "subagents", "agent-x2.jsonl"), "{}\n");
    const found = discover([root], []).files;
    assert.deepEqual(found.length, 3);
    for (const f of found) {
      // set by discovery only where the name alone is the key; the rest are keyed by the pass
      if (f.key) assert.deepEqual(f.key, keyFor(f.path, false));
    }
    assert.deepEqual(found.filter((f) => f.key).map((f) => f.key!.sessionKey), [`${ID}.jsonl`]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("discovery visits folders and files in code-unit order of their names", async () => {
  const root = await Deno.makeTempDir({ prefix: "terminus-order-" });
  try {
    const names = [
      "agent-b.jsonl",
      "agent-é.jsonl",
      "agent-B.jsonl",
      "agent-a.jsonl",
      "agent-z.jsonl",
    ];
    for (const folder of ["-h-code-b", "-h-code-B", "-h-code-a"]) {
      await Deno.mkdir(join(root, "projects", folder), { recursive: true });
      for (const n of names) await Deno.writeTextFile(join(root, "projects", folder, n), "{}\n");
    }
    const found = discover([root], []).files.map((f) => f.path.slice(root.length + 10));
    const expected: string[] = [];
    // what `<` on strings gives: upper case before lower, é after z
    for (const folder of ["-h-code-B", "-h-code-a", "-h-code-b"]) {
      for (
        const n of [
          "agent-B.jsonl",
          "agent-a.jsonl",
          "agent-b.jsonl",
          "agent-z.jsonl",
          "agent-é.jsonl",
        ]
      ) {
        expected.push(`${folder}/${n}`);
      }
    }
    assert.deepEqual(found, expected);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
