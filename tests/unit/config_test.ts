/** terminus.toml parsed in process: defaults, clamps, the refusals and where they point. */
import assert from "node:assert/strict";
import { defaultConfig, isExcluded, parseConfig } from "../../core/config.ts";
import { ConfigError } from "../../core/errors.ts";
import {
  BRIEF_CHARS_DEFAULT,
  INJECTION_CHARS_CAP,
  SNAPSHOT_INTERVAL_HOURS_DEFAULT,
} from "../../core/constants.ts";

const PATH = "/cfg/terminus.toml";
const env = (vars: Record<string, string> = { HOME: "/home/u" }) => (n: string) => vars[n];
const load = (text: string) => parseConfig(text, PATH, env());

Deno.test("config: an empty file is every default", () => {
  assert.deepEqual(load(""), defaultConfig(PATH));
  assert.equal(load("").injection.briefChars, BRIEF_CHARS_DEFAULT);
});

Deno.test("config: character budgets are clamped to 0..cap, snapshot numbers to their floors", () => {
  const c = load(
    "[injection]\nbrief_chars = 999999\nprompt_chars = -3\n[snapshot]\ninterval_hours = 0\nkeep = 0\n",
  );
  assert.deepEqual(c.injection, { briefChars: INJECTION_CHARS_CAP, promptChars: 0 });
  assert.deepEqual([c.snapshot.intervalHours, c.snapshot.keep], [
    SNAPSHOT_INTERVAL_HOURS_DEFAULT,
    1,
  ]);
});

Deno.test("config: exclude entries expand ~, drop relative ones, and cover folders below, not beside", () => {
  const c = load('exclude = ["~/secret", "relative/x", "/a/b/", "/a/b"]\n');
  assert.deepEqual(c.excludeListed, ["/home/u/secret", "/a/b"]);
  assert.equal(isExcluded(c, "/home/u/secret/src"), true);
  assert.equal(isExcluded(c, "/a/b"), true);
  assert.equal(isExcluded(c, "/a/bc"), false);
  assert.equal(isExcluded(c, null), false);
});

Deno.test("config: an unknown retention action is keep; a per-project rule is keyed by its normalised path", () => {
  const c = load(
    '[retention]\naction = "archive"\nage_days = 30\n[retention.project."~/p"]\naction = "delete"\nage_days = 7\n',
  );
  assert.deepEqual(c.retention, { action: "keep", ageDays: 30 });
  assert.deepEqual(c.retentionProjects.get("/home/u/p"), { action: "delete", ageDays: 7 });
});

Deno.test("config: a wrong type or broken TOML is a ConfigError naming the file and the key or line", () => {
  const cases: [string, RegExp][] = [
    ['[injection]\nbrief_chars = "a lot"\n', /injection\.brief_chars must be a whole number/],
    ["exclude = [1]\n", /exclude must be a list of paths/],
    ['[snapshot]\nenabled = "yes"\n', /snapshot\.enabled must be true or false/],
    ["injection = 3\n", /injection must be a table/],
    ["[injection\nbrief_chars = ", /line 1/],
    ['[provider]\nname = "x"\n', /\[provider\] table/],
  ];
  for (const [text, why] of cases) {
    assert.throws(() => load(text), (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.ok(e.message.startsWith(PATH), e.message);
      assert.match(e.message, why);
      return true;
    }, text);
  }
});

Deno.test("config: a parser message about api_key gives the position only, never the value", () => {
  assert.throws(() => load('api_key = "sk-secret-value\n'), (e: unknown) => {
    assert.ok(e instanceof ConfigError);
    assert.ok(!e.message.includes("sk-secret-value"), e.message);
    assert.match(e.message, /line 1, column \d+/);
    return true;
  });
});
