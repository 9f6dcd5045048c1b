/**
 * scripts/house_lint.ts, the rules `deno lint` holds product code to (sizes, and no Unicode
 * property class built on import), on a tree of its own.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_DIR } from "./helpers.ts";

/** `deno lint` with the house's config over core/ and tests/ of a tree holding `files`. */
async function lintTree(files: [string, string][]): Promise<{ code: number; text: string }> {
  const dir = await Deno.makeTempDir({ prefix: "terminus-house-lint-" });
  try {
    for (const [rel, text] of files) {
      await Deno.mkdir(join(dir, rel, ".."), { recursive: true });
      await Deno.writeTextFile(join(dir, rel), text);
    }
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["lint", "--config", join(REPO_DIR, "deno.json"), "core/", "tests/"],
      cwd: dir,
      env: { NO_COLOR: "1" },
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    return { code: out.code, text };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("house lint: a long product function and file are named; tests are not held", async () => {
  const long = "export function f(n: number): number {\n" + "  n++;\n".repeat(125) +
    "  return n;\n}\n";
  const fits = "export function g(n: number): number {\n" + "  n++;\n".repeat(110) +
    "  return n;\n}\n";
  const big = "export const a = 1;\n" + "// a line\n".repeat(700);
  const { code, text } = await lintTree([
    ["core/long.ts", long],
    ["core/fits.ts", fits],
    ["core/big.ts", big],
    ["tests/big_test.ts", big + long.replace("function f", "function h")],
  ]);
  assert.equal(code, 1, text);
  assert.match(text, /house\/function-size.*a function of 128 lines \(at most 120\)/);
  assert.match(text, /house\/file-size.*a file of 701 lines \(at most 650\)/);
  assert.equal(text.match(/house\//g)?.length, 2, text);
});

Deno.test("house lint: a Unicode property class built on import is named; one built in a function is not", async () => {
  const { code, text } = await lintTree([
    ["core/at_load.ts", "export const WORD = /[\\p{L}\\p{N}]/u;\n"],
    ["core/in_call.ts", "export const word = (s: string) => /[\\p{L}]/u.test(s);\n"],
    ["core/plain.ts", "export const ASCII = /^[\\x00-\\x7f]*$/;\n"],
    ["tests/at_load_test.ts", "export const WORD = /\\p{L}/u;\n"],
  ]);
  assert.equal(code, 1, text);
  assert.match(text, /house\/unicode-class-at-load[\s\S]*core\/at_load\.ts/);
  assert.equal(text.match(/house\//g)?.length, 1, text);
});
