/** scripts/check_house.ts, the house rules `deno task test` checks, on a small tree of its own. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { breaches } from "../../scripts/check_house.ts";
import { REPO_DIR } from "../helpers.ts";

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "terminus-house-" });
  for (const [rel, text] of Object.entries(files)) {
    await Deno.mkdir(join(dir, rel, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, rel), text);
  }
  return dir;
}

Deno.test("house: a stream touched outside io.ts, SQL outside core/store and an import circle are each named", async () => {
  const dir = await tree({
    "mod.ts": 'import "./commands/a.ts";\nDeno.stdout.writeSync(new Uint8Array());\n',
    "io.ts": "Deno.stderr.writeSync(new Uint8Array());\n",
    "commands/a.ts": 'import { b } from "./b.ts";\nexport const a = 1;\nDeno.stdin.read;\n',
    "commands/b.ts": 'import { a } from "./a.ts";\nexport const b = a;\n',
    "core/recall/x.ts": 'export const n = (db) => db.prepare("SELECT 1").get();\n',
    "core/store/y.ts": 'export const m = (db) => db.exec("BEGIN IMMEDIATE");\n',
  });
  try {
    const found = breaches(dir);
    assert.ok(
      found.includes("commands/a.ts:3: touches Deno.stdin; go through io.ts"),
      found.join("\n"),
    );
    assert.ok(found.includes("core/recall/x.ts:1: runs SQL outside core/store/"));
    assert.ok(found.includes("import circle: commands/a.ts -> commands/b.ts -> commands/a.ts"));
    assert.ok(!found.some((f) => f.startsWith("io.ts") || f.startsWith("core/store/")));
    assert.ok(found.includes("mod.ts:2: touches Deno.stdout; go through io.ts"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("house: a loop between two folders is named with the import that closes it", async () => {
  const dir = await tree({
    "core/ingest/lock.ts": 'import { x } from "../recall/scope.ts";\nexport const lock = x;\n',
    "core/recall/scope.ts": "export const x = 1;\n",
    "core/recall/rank.ts": '\nimport { lock } from "../ingest/lock.ts";\nexport const r = lock;\n',
    "core/store/db.ts": "export const db = 1;\n",
    "core/open.ts": 'import { db } from "./store/db.ts";\nexport const o = db;\n',
  });
  try {
    const found = breaches(dir);
    const loops = found.filter((f) => f.startsWith("folder loop:"));
    assert.deepEqual(loops, [
      "folder loop: core/ingest/ <-> core/recall/ (core/ingest/lock.ts:1 imports core/recall/scope.ts; core/recall/rank.ts:2 imports core/ingest/lock.ts)",
    ]);
    // no file circle: each file imports only the other folder's other file
    assert.ok(!found.some((f) => f.startsWith("import circle")), found.join("\n"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("house: this repository keeps the rules", () => {
  assert.deepEqual(breaches(REPO_DIR), []);
});
