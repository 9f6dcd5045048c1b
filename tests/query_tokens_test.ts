/** The ASCII path of `tokens` splits exactly as the Unicode classes do. */
import assert from "node:assert/strict";
import { eachToken, tokens } from "../core/recall/query.ts";

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
  for (const s of samples) assert.deepStrictEqual(tokens(s), [...eachToken(s)], JSON.stringify(s));
  // outside ASCII the Unicode classes still decide
  assert.deepStrictEqual(tokens("naïve café ＡＢＣ 東京"), ["naïve", "café", "ＡＢＣ", "東京"]);
});
