/** The command registry: sorted by name, each entry loading the command it names. */
import assert from "node:assert/strict";
import { REGISTRY } from "../commands/mod.ts";

Deno.test("the registry is sorted by name, with no name twice", () => {
  const names = REGISTRY.map((e) => e.name);
  assert.deepEqual(names, [...names].sort(), "sorted by name");
  assert.equal(new Set(names).size, names.length, "each name once");
});

Deno.test("every registry entry loads the command of its own name", async () => {
  for (const e of REGISTRY) assert.equal((await e.load()).name, e.name);
});
