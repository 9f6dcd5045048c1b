/** `did you mean`: which command name a slip was most likely meant as. */
import assert from "node:assert/strict";
import { closest, editDistance } from "../../core/suggest.ts";
import { REGISTRY } from "../../commands/mod.ts";

const NAMES = REGISTRY.map((e) => e.name);

Deno.test("suggest: a letter dropped, added, changed or two swapped are one edit each", () => {
  assert.deepEqual(
    [editDistance("serch", "search"), editDistance("searchh", "search")],
    [1, 1],
  );
  assert.deepEqual([editDistance("seerch", "search"), editDistance("saerch", "search")], [1, 1]);
  assert.equal(editDistance("", "abc"), 3);
});

Deno.test("suggest: the nearest command, a swap preferred over a dropped letter, a unique prefix", () => {
  assert.equal(closest("serch", NAMES), "search");
  assert.equal(closest("stauts", NAMES), "status");
  assert.equal(closest("stat", NAMES), "stats");
  assert.equal(closest("SEARCH", NAMES), "search");
  assert.equal(closest("sess", NAMES), "sessions");
});

Deno.test("suggest: nothing for a word far from every command, nor for a short word", () => {
  assert.equal(closest("nope", NAMES), null);
  assert.equal(closest("frobnicate", NAMES), null);
  assert.equal(closest("x", NAMES), null);
  assert.equal(closest("s", NAMES), null, "one letter begins several commands");
});
