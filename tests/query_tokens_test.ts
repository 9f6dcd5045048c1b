/** The ASCII paths of `tokens` and `eachToken` split exactly as the Unicode classes do. */
import assert from "node:assert/strict";
import { eachToken, tokens } from "../core/recall/query.ts";

/** The tokenizer as the query's header states it: letters, marks and digits, with a letter or digit. */
const byClasses = (s: string) =>
  [...s.matchAll(/[\p{L}\p{M}\p{N}]+/gu)].map((m) => m[0]).filter((t) => /[\p{L}\p{N}]/u.test(t));

Deno.test("tokens: ASCII text splits as the Unicode-class tokenizer splits it", () => {
  const samples = [
    "",
    "   ",
    "SearchManager",
    "src/erk/cli/commands/exec/scripts/plan_save_to_issue.py",
    "TypeError: generate is not a function",
    "fatal: pathspec '.erk/impl-context/' did not match any files",
    "--flag=value a_b-c.d 0x1F __init__ 3.14 e2e",
    "\t\u0000\u007f!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ end",
    Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join(""),
  ];
  for (const s of samples) {
    assert.deepStrictEqual(tokens(s), byClasses(s), JSON.stringify(s));
    assert.deepStrictEqual([...eachToken(s)], byClasses(s), JSON.stringify(s));
  }
  // outside ASCII the Unicode classes still decide, and a run of marks alone is no word
  const mixed = "naïve café ＡＢＣ 東京 \u0301\u0301 x";
  assert.deepStrictEqual(tokens(mixed), ["naïve", "café", "ＡＢＣ", "東京", "x"]);
  assert.deepStrictEqual([...eachToken(mixed)], byClasses(mixed));
});
