/**
 * Config and paths, in-process: where the config and data directories are, which roots are
 * walked, how exclude entries are read, and the clamps. A few cases also go through the CLI
 * to show the process environment is read the same way (an empty variable is unset).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Env, processEnv } from "../core/paths.ts";
import { configDir, configFile, covers, dataDir, transcriptRoots } from "../core/paths.ts";
import { isExcluded, loadConfig, parseConfig } from "../core/config.ts";
import { ConfigError, PathError } from "../core/errors.ts";
import { parseEnvelope, runCli, sandbox, writeConfig } from "./helpers.ts";

/** An environment from a table; like the process's, an empty value counts as unset. */
function envOf(vars: Record<string, string>): Env {
  return (name) => (vars[name] === "" ? undefined : vars[name]);
}

const HOME = "/home/u";
const parse = (toml: string, vars: Record<string, string> = { HOME }) =>
  parseConfig(toml, "/cfg/terminus.toml", envOf(vars));

Deno.test("config dir: TERMINUS_CONFIG_DIR, then XDG_CONFIG_HOME/terminus, then ~/.config/terminus", () => {
  const all = { HOME, XDG_CONFIG_HOME: "/xdg", TERMINUS_CONFIG_DIR: "/explicit" };
  assert.equal(configDir(envOf(all)), "/explicit");
  assert.equal(configDir(envOf({ ...all, TERMINUS_CONFIG_DIR: "" })), "/xdg/terminus");
  assert.equal(configDir(envOf({ HOME, XDG_CONFIG_HOME: "" })), "/home/u/.config/terminus");
  assert.equal(configFile(envOf({ HOME })), "/home/u/.config/terminus/terminus.toml");
  assert.throws(() => configDir(envOf({})), PathError, "no HOME, no default");
});

Deno.test("the process environment: a variable set to the empty string counts as unset", () => {
  const name = "TERMINUS_TEST_EMPTY_VARIABLE";
  Deno.env.set(name, "");
  try {
    assert.equal(processEnv(name), undefined);
    Deno.env.set(name, "x");
    assert.equal(processEnv(name), "x");
  } finally {
    Deno.env.delete(name);
  }
});

Deno.test("data dir: TERMINUS_DATA_DIR, then the data-location file, then the platform default", async () => {
  const cfg = await Deno.makeTempDir({ prefix: "terminus-cfg-" });
  try {
    const base = { HOME, TERMINUS_CONFIG_DIR: cfg, XDG_DATA_HOME: "/xdgdata" };
    const platform = Deno.build.os === "darwin"
      ? "/home/u/Library/Application Support/terminus"
      : "/xdgdata/terminus";
    assert.equal(dataDir(envOf(base)), platform);
    assert.equal(
      dataDir(envOf({ ...base, XDG_DATA_HOME: "" })),
      Deno.build.os === "darwin" ? platform : "/home/u/.local/share/terminus",
    );

    await Deno.writeTextFile(join(cfg, "data-location"), "/moved/here\n");
    assert.equal(dataDir(envOf(base)), "/moved/here", "the recorded location outranks the default");
    assert.equal(
      dataDir(envOf({ ...base, TERMINUS_DATA_DIR: "/env/data" })),
      "/env/data",
      "TERMINUS_DATA_DIR outranks the recorded location",
    );
    assert.equal(dataDir(envOf({ ...base, TERMINUS_DATA_DIR: "" })), "/moved/here");

    await Deno.writeTextFile(join(cfg, "data-location"), "relative/data\n");
    assert.throws(() => dataDir(envOf(base)), (e: unknown) => {
      assert.ok(e instanceof PathError);
      assert.match(e.message, /relative/);
      return true;
    });

    // a data-location that exists and cannot be read is an error, not a fall back
    await Deno.remove(join(cfg, "data-location"));
    await Deno.mkdir(join(cfg, "data-location"));
    assert.throws(() => dataDir(envOf(base)), PathError);
  } finally {
    await Deno.remove(cfg, { recursive: true });
  }
});

Deno.test("roots: the config's list, else CLAUDE_CONFIG_DIR, else ~/.claude; ~ is not expanded", () => {
  const env = envOf({ HOME, CLAUDE_CONFIG_DIR: "/claude-dir" });
  assert.deepEqual(transcriptRoots(["/a", "/b"], env), ["/a", "/b"]);
  assert.deepEqual(transcriptRoots([], env), ["/claude-dir"]);
  assert.deepEqual(transcriptRoots([], envOf({ HOME, CLAUDE_CONFIG_DIR: "" })), [
    "/home/u/.claude",
  ]);
  assert.deepEqual(parse('roots = ["~/.claude", "/x"]\n').roots, ["~/.claude", "/x"]);
});

Deno.test("exclude: ~ expanded, .. resolved, trailing / dropped, non-absolute entries dropped", () => {
  const cfg = parse(
    'exclude = ["~/scratch", "/data/code/../code/demo/", "relative/path", "~other/x", "/a/b/", "~", ""]\n',
  );
  assert.deepEqual(cfg.excludeListed, ["/home/u/scratch", "/data/code/demo", "/a/b", "/home/u"]);
  assert.equal(isExcluded(cfg, "/data/code/demo"), true);
  assert.equal(isExcluded(cfg, "/data/code/demo/sub/deeper"), true, "a path covers its subfolders");
  assert.equal(isExcluded(cfg, "/data/code/demo-other"), false, "and not its siblings");
  assert.equal(isExcluded(cfg, null), false);
  assert.equal(covers("/data/code/demo", "/data/code/demo/sub"), true);
  assert.equal(covers("/data/code/demo", "/data/code/demo-other"), false);
});

Deno.test("exclude: an entry also matches the path it resolves to through a symlink", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "terminus-link-" }));
  try {
    await Deno.mkdir(join(dir, "real"));
    await Deno.symlink(join(dir, "real"), join(dir, "link"));
    const cfg = parse(`exclude = ["${dir}/link"]\n`);
    assert.deepEqual(cfg.excludeListed, [`${dir}/link`], "shown as written");
    assert.equal(isExcluded(cfg, `${dir}/real`), true);
    assert.equal(isExcluded(cfg, `${dir}/real/sub`), true);
    assert.equal(isExcluded(cfg, `${dir}/link/sub`), true);
    assert.equal(isExcluded(cfg, `${dir}/realm`), false);
    // a retention path is matched only as written
    const r = parse(`[retention.project."${dir}/link"]\naction = "evict"\nage_days = 3\n`);
    assert.deepEqual([...r.retentionProjects.keys()], [`${dir}/link`]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("clamps and typos: every out-of-range value lands on the documented one", () => {
  const cfg = parse(
    [
      "[injection]",
      "brief_chars = 20000",
      "prompt_chars = 12000",
      "[snapshot]",
      "keep = 0",
      "interval_hours = 0",
      "[retention]",
      'action = "evicct"',
      "age_days = -5",
      "[capture]",
      'mode = "leen"',
      "",
    ].join("\n"),
  );
  assert.equal(cfg.injection.briefChars, 10_000);
  assert.equal(cfg.injection.promptChars, 10_000);
  assert.equal(cfg.snapshot.keep, 1);
  assert.equal(cfg.snapshot.intervalHours, 24);
  assert.deepEqual(cfg.retention, { action: "keep", ageDays: 0 });
  assert.equal(cfg.capture.mode, "full");

  const within = parse(
    '[injection]\nbrief_chars = 3000\n[snapshot]\nkeep = 5\ninterval_hours = 6\n[retention]\naction = "delete"\nage_days = 30\n[capture]\nmode = "minimal"\n',
  );
  assert.equal(within.injection.briefChars, 3000);
  assert.equal(within.snapshot.keep, 5);
  assert.equal(within.snapshot.intervalHours, 6);
  assert.deepEqual(within.retention, { action: "delete", ageDays: 30 });
  assert.equal(within.capture.mode, "minimal");
  assert.equal(parse('[capture]\nmode = "lean"\n').capture.mode, "lean");
});

Deno.test("every key at its default with no file, an empty file, or only unknown keys", async () => {
  const dir = await Deno.makeTempDir({ prefix: "terminus-cfg-" });
  try {
    const env = envOf({ HOME, TERMINUS_CONFIG_DIR: dir });
    const defaults = loadConfig(env);
    assert.deepEqual(defaults.roots, []);
    assert.deepEqual(defaults.exclude, []);
    assert.deepEqual(defaults.injection, { briefChars: 6000, promptChars: 4000 });
    assert.deepEqual(defaults.retention, { action: "keep", ageDays: 0 });
    assert.deepEqual(defaults.snapshot, { enabled: true, intervalHours: 24, keep: 3 });
    assert.deepEqual(defaults.capture, { mode: "full" });
    assert.deepEqual(defaults.privacy, { redactRecall: false });
    for (const text of ["", "newer_key = 1\n[newer]\nx = [1, 2]\n"]) {
      await Deno.writeTextFile(join(dir, "terminus.toml"), text);
      const c = loadConfig(env);
      assert.deepEqual({ ...c, path: "" }, { ...defaults, path: "" });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("load errors: not TOML, [provider], and an api_key line that is never echoed", () => {
  const fails = (toml: string, re: RegExp) =>
    assert.throws(() => parse(toml), (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.match(e.message, re);
      return true;
    });
  fails("roots = [\n", /^\/cfg\/terminus\.toml is not valid TOML: /);
  fails("[provider]\n", /^\/cfg\/terminus\.toml still has a \[provider\] table\./);
  fails('[snapshot]\nkeep = ""\n', /is not valid TOML: /);
  // valid TOML with a value of the wrong type: said as that, with its line
  fails(
    'roots = "/one/root"\n',
    /^\/cfg\/terminus\.toml: roots must be a list of paths \(line 1\)$/,
  );
  fails(
    '[retention]\nage_days = "30"\n',
    /^\/cfg\/terminus\.toml: retention\.age_days must be a whole number \(line 2\)$/,
  );
  assert.throws(() => parse('api_key = "sk-ant-hush-hush\n'), (e: unknown) => {
    const m = (e as Error).message;
    assert.match(m, /is not valid TOML: .*line 1, column \d+$/);
    assert.doesNotMatch(m, /hush/);
    return true;
  });
  assert.throws(() => parse("x = 1\napi_key = sk-ant-hush-hush\n"), (e: unknown) => {
    assert.doesNotMatch((e as Error).message, /hush/);
    return true;
  });
  assert.equal(parse('[capture]\nmode = ""\n').capture.mode, "full", '"" is unset for a text key');
});

Deno.test("the CLI reads the config dir from XDG_CONFIG_HOME when TERMINUS_CONFIG_DIR is empty", async () => {
  await using sb = await sandbox();
  const xdg = join(sb.dir, "xdg");
  await Deno.mkdir(join(xdg, "terminus"), { recursive: true });
  await Deno.writeTextFile(join(xdg, "terminus", "terminus.toml"), 'exclude = ["/from/xdg"]\n');
  await writeConfig(sb, 'exclude = ["/from/terminus-config-dir"]\n');
  await Deno.mkdir(join(sb.home, ".config", "terminus"), { recursive: true });
  await Deno.writeTextFile(
    join(sb.home, ".config", "terminus", "terminus.toml"),
    'exclude = ["/from/home"]\n',
  );
  // status needs a store to report excluded; one pass over an empty tree makes it
  const ingest = await runCli(sb, ["ingest"]);
  assert.equal(ingest.code, 0, ingest.err);
  const excluded = async (env: Record<string, string | undefined>) => {
    const r = await runCli(sb, ["status", "--json"], { env });
    assert.equal(r.code, 0, r.err);
    return (parseEnvelope(r.out).data as { excluded: string[] }).excluded;
  };
  assert.deepEqual(await excluded({ XDG_CONFIG_HOME: xdg }), ["/from/terminus-config-dir"]);
  assert.deepEqual(await excluded({ TERMINUS_CONFIG_DIR: "", XDG_CONFIG_HOME: xdg }), [
    "/from/xdg",
  ]);
  assert.deepEqual(await excluded({ TERMINUS_CONFIG_DIR: "", XDG_CONFIG_HOME: "" }), [
    "/from/home",
  ]);
  assert.deepEqual(await excluded({ TERMINUS_CONFIG_DIR: undefined }), ["/from/home"]);
});

Deno.test("the CLI: a data-location file moves the store, and a relative one is an error", async () => {
  await using sb = await sandbox();
  const moved = join(sb.dir, "moved-data");
  await Deno.writeTextFile(join(sb.config, "data-location"), moved + "\n");
  const r = await runCli(sb, ["ingest"], { env: { TERMINUS_DATA_DIR: "" } });
  assert.equal(r.code, 0, r.err);
  const s = await runCli(sb, ["status", "--json"], { env: { TERMINUS_DATA_DIR: undefined } });
  assert.equal((parseEnvelope(s.out).data as { store: string }).store, join(moved, "terminus.db"));

  await Deno.writeTextFile(join(sb.config, "data-location"), "relative/place\n");
  for (const cmd of [["ingest"], ["status"], ["verify"]]) {
    const x = await runCli(sb, cmd, { env: { TERMINUS_DATA_DIR: undefined } });
    assert.equal(x.code, 1, `${cmd}: exit 1`);
    assert.match(x.err, /relative/);
  }
  // TERMINUS_DATA_DIR still outranks it
  const ok = await runCli(sb, ["status", "--json"]);
  assert.equal(ok.code, 0);
});
