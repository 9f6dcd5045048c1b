/**
 * terminus install against the real Claude Code CLI in a temp HOME: what it writes, that a
 * second run writes nothing, the two-space rewrite, every refusal before a write, the MCP
 * decision table, an install that cannot register the MCP server, and a source install
 * that still runs after its checkout is deleted.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { bigTree, exists, query, REPO_DIR, runCli, writeTranscript } from "./helpers.ts";
import {
  CLAUDE,
  claude,
  diffSnapshots,
  install,
  installBundled,
  linkOf,
  mcpEntry,
  runLink as runInstalled,
  settle,
  type SetupBox,
  setupBox,
  SLOW,
  snapshot,
} from "./setup_helpers.ts";
import { SETUP_HOOK_EVENTS } from "../core/setup/locations.ts";
import {
  BUNDLE_ENTRY,
  HOOK_ENTRY,
  launcherText,
  ownBundle,
  ownDenoDir,
  type OwnFileCommand,
  ownStart,
} from "../core/setup/bundle.ts";
import { main as searchEntry } from "../search.ts";
import { main as ingestEntry } from "../ingest.ts";
import { SEARCH_SUMMARY } from "../commands/help_lines.ts";
import { PASS_STAMP_FILE } from "../core/paths.ts";
import { SOURCE_DIRS, SOURCE_FILES } from "../core/setup/source.ts";
import { HOOK_EVENTS } from "../hooks/run.ts";
import {
  additionalContext,
  ALPHA,
  daysAgo,
  hook,
  promptPayload,
  Session,
  settleDetached,
  sid,
  startPayload,
} from "./inject_helpers.ts";
import {
  BACKFILL_SEMI_SPACE_MIB,
  BUILD_MARKER,
  CLAUDE_TIMEOUT_MS,
  MALLOC_MMAP_THRESHOLD_BYTES,
  MALLOC_TRIM_THRESHOLD_BYTES,
  SEMI_SPACE_MIB,
  VERSION,
} from "../core/constants.ts";
import {
  backfillWorkArgv,
  COMPILED_PERMISSION_FLAGS,
  EAGER_COMPILE_V8_FLAG,
  ownV8Flags,
  PASS_OPT_V8_FLAG,
  permissionFlags,
  SEARCH_WASM_V8_FLAG,
  v8Flags,
} from "../core/context.ts";

const real = { ignore: !CLAUDE, sanitizeResources: false, sanitizeOps: false };

function hookEntries(link: string) {
  return Object.fromEntries(
    SETUP_HOOK_EVENTS.map((e) => [e, [{
      matcher: "",
      hooks: [{ type: "command", command: link, args: ["hook", e] }],
    }]]),
  );
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(path));
}

/** Everything install may write, for proving a run wrote nothing. */
async function wiring(sb: SetupBox) {
  return new Map([
    ...await snapshot(sb.home),
    ...await snapshot(sb.claude, (p) => p.includes("/backups")),
  ]);
}

Deno.test("the hook events install wires are the ones the hook command answers", () => {
  assert.deepEqual([...SETUP_HOOK_EVENTS], [...HOOK_EVENTS]);
});

Deno.test({
  name:
    "install places the link and version, adds four exec-form entries, registers the MCP server; claude mcp list connects",
  ...real,
  async fn() {
    await using sb = await setupBox();
    const r = await install(sb);
    assert.equal(r.code, 0, r.out + r.err);
    // the link names versions/<version>/terminus, a launcher that carries the build marker
    assert.equal(await Deno.readLink(sb.link), sb.versionFile);
    const launcher = await Deno.readTextFile(sb.versionFile);
    assert.ok(launcher.startsWith("#!/bin/sh\n"));
    assert.ok(launcher.includes(BUILD_MARKER));
    assert.ok(((await Deno.stat(sb.versionFile)).mode! & 0o111) !== 0, "executable");
    // the four entries in exec form, and nothing else in a file install created
    assert.deepEqual(await readJson(sb.settings), { hooks: hookEntries(sb.link) });
    assert.equal(await exists(sb.backup), false, "no backup of a file that was not there");
    assert.deepEqual(await mcpEntry(sb), { type: "stdio", command: sb.link, args: ["mcp"] });
    // the receipt
    for (
      const want of [
        sb.link,
        sb.versionFile,
        `${sb.settings}: added the four hook entries`,
        `${sb.claudeJson}: registered the 'terminus' server`,
        sb.data,
        sb.claude,
        "terminus uninstall",
        "cleanupPeriodDays is not set",
        "autoCompactEnabled",
      ]
    ) assert.ok(r.out.includes(want), `receipt names ${want}:\n${r.out}`);
    assert.doesNotMatch(r.out, /install incomplete/);
    const list = await claude(sb, ["mcp", "list"]);
    assert.match(list.out, /terminus: .* - ✔ Connected/, list.out + list.err);
  },
});

Deno.test({
  name: "a second install writes nothing: every file byte-identical, no mtime moved, no claude run",
  ...real,
  async fn() {
    await using sb = await setupBox();
    await Deno.writeTextFile(
      sb.settings,
      JSON.stringify({ model: "opus", hooks: {} }, null, 2) + "\n",
    );
    assert.equal((await install(sb)).code, 0);
    const before = await wiring(sb);
    // a claude that fails if it is run at all
    await Deno.remove(join(sb.bin, "claude"));
    await Deno.writeTextFile(join(sb.bin, "claude"), "#!/bin/sh\nexit 9\n", { mode: 0o755 });
    const again = await install(sb);
    assert.equal(again.code, 0, again.out + again.err);
    assert.match(again.out, /already current/);
    assert.match(again.out, /no claude was run/);
    assert.deepEqual(diffSnapshots(before, await wiring(sb)), []);
  },
});

for (
  const [what, text] of [
    [
      "minified",
      '{"model":"opus","hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo hi"}]}]}}',
    ],
    ["CRLF", '{\r\n  "model": "opus",\r\n  "env": {\r\n    "A": "1"\r\n  }\r\n}\r\n'],
    [
      "four-space",
      '{\n    "model": "opus",\n    "permissions": {\n        "allow": ["Bash(ls)"]\n    }\n}\n',
    ],
  ] as const
) {
  Deno.test({
    name:
      `a ${what} settings.json is rewritten whole in two-space form, with the original kept as the backup`,
    ...real,
    async fn() {
      await using sb = await setupBox();
      await Deno.writeTextFile(sb.settings, text);
      const r = await install(sb);
      assert.equal(r.code, 0, r.out + r.err);
      assert.match(r.out, /rewritten in two-space form/);
      assert.ok(r.out.includes(`${sb.backup}, a copy of settings.json as it was`));
      assert.equal(await Deno.readTextFile(sb.backup), text, "the backup is the file as it was");
      const original = JSON.parse(text);
      const want = structuredClone(original);
      want.hooks = { ...(want.hooks ?? {}), ...hookEntries(sb.link) };
      const written = await Deno.readTextFile(sb.settings);
      assert.equal(written, JSON.stringify(want, null, 2) + "\n");
    },
  });
}

Deno.test({
  name:
    "a two-space settings.json gets the entries added without a rewrite note, and its own entries stay first",
  ...real,
  async fn() {
    await using sb = await setupBox();
    const mine = {
      model: "opus",
      hooks: {
        SessionStart: [{ matcher: "", hooks: [{ type: "command", command: "echo mine" }] }],
      },
    };
    await Deno.writeTextFile(sb.settings, JSON.stringify(mine, null, 2) + "\n");
    const r = await install(sb);
    assert.equal(r.code, 0, r.out + r.err);
    assert.doesNotMatch(r.out, /rewritten in two-space form/);
    const doc = await readJson(sb.settings) as { hooks: Record<string, unknown[]> };
    assert.equal(doc.hooks.SessionStart.length, 2);
    assert.deepEqual(doc.hooks.SessionStart[0], mine.hooks.SessionStart[0]);
    // the backup is never replaced by a later install
    const backup = await Deno.readTextFile(sb.backup);
    await Deno.writeTextFile(sb.settings, JSON.stringify({ other: true }) + "\n");
    assert.equal((await install(sb)).code, 0);
    assert.equal(await Deno.readTextFile(sb.backup), backup);
  },
});

for (
  const [what, make] of [
    ["a file that is not a Terminus build", async (sb: SetupBox) => {
      await Deno.mkdir(join(sb.home, ".local", "bin"), { recursive: true });
      await Deno.writeTextFile(sb.link, "#!/bin/sh\necho someone else's terminus\n", {
        mode: 0o755,
      });
    }],
    ["a folder", async (sb: SetupBox) => {
      await Deno.mkdir(sb.link, { recursive: true });
    }],
    ["a link outside the versions folder", async (sb: SetupBox) => {
      await Deno.mkdir(join(sb.home, ".local", "bin"), { recursive: true });
      await Deno.writeTextFile(join(sb.dir, "elsewhere"), BUILD_MARKER);
      await Deno.symlink(join(sb.dir, "elsewhere"), sb.link);
    }],
  ] as const
) {
  Deno.test(`install refuses before writing anything when ${what} sits at the link path`, async () => {
    await using sb = await setupBox({ script: '#!/bin/sh\ntouch "$0.ran"\nexit 0\n' });
    await make(sb);
    await Deno.writeTextFile(sb.settings, '{"model":"opus"}');
    const before = new Map([...await snapshot(sb.dir)]);
    const r = await install(sb);
    assert.equal(r.code, 1);
    assert.equal(r.out, "");
    assert.match(r.err, /install refused: .*terminus install did not put there/);
    assert.deepEqual(diffSnapshots(before, await snapshot(sb.dir)), []);
  });
}

Deno.test("a Terminus build at the link path is replaced by the link", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 0\n" });
  await Deno.mkdir(join(sb.home, ".local", "bin"), { recursive: true });
  await Deno.writeTextFile(sb.link, `an older build ${BUILD_MARKER}\n`, { mode: 0o755 });
  const r = await install(sb);
  assert.equal(r.code, 0, r.out + r.err);
  assert.equal(await Deno.readLink(sb.link), sb.versionFile);
});

Deno.test("a store in an older archive format is refused with the clean-install steps, and nothing changes", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 0\n" });
  await Deno.mkdir(sb.data);
  const db = new DatabaseSync(sb.store);
  db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
  db.exec("INSERT INTO meta VALUES ('archive_format', '0'), ('derived_schema', '1')");
  db.close();
  const before = await snapshot(sb.dir);
  const r = await install(sb);
  assert.equal(r.code, 1);
  assert.match(r.err, /older than the format/);
  assert.match(r.err, /For a clean install: move terminus.db aside/);
  assert.deepEqual(diffSnapshots(before, await snapshot(sb.dir)), []);
});

Deno.test({
  name:
    "a store in a newer archive format prints that the backfill could not be sized, and install still exits 0",
  ...real,
  async fn() {
    await using sb = await setupBox();
    await Deno.mkdir(sb.data);
    const db = new DatabaseSync(sb.store);
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    db.exec("INSERT INTO meta VALUES ('archive_format', '99'), ('derived_schema', '1')");
    db.close();
    const r = await install(sb);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(
      r.out,
      /problem: the backfill could not be sized \(.*archive format 99, newer.*\)/,
    );
    assert.deepEqual(await mcpEntry(sb), { type: "stdio", command: sb.link, args: ["mcp"] });
  },
});

/** The checks an incomplete install must pass: the receipt, exit 1, and the rest done. */
async function assertIncomplete(
  sb: SetupBox,
  r: Awaited<ReturnType<typeof install>>,
  reason: RegExp,
) {
  assert.equal(r.code, 1, r.out + r.err);
  assert.ok(r.out.startsWith("install incomplete: the mcp server is not registered\n"), r.out);
  assert.match(r.out, reason);
  const entry = JSON.stringify({ type: "stdio", command: sb.link, args: ["mcp"] });
  assert.ok(r.out.includes(`claude mcp add-json --scope user terminus '${entry}'`), r.out);
  // everything else was still done
  assert.equal(await Deno.readLink(sb.link), sb.versionFile);
  assert.deepEqual(await readJson(sb.settings), { hooks: hookEntries(sb.link) });
}

Deno.test("with no claude on PATH the receipt opens with install incomplete and the command that finishes it", async () => {
  await using sb = await setupBox("none");
  const r = await install(sb);
  await assertIncomplete(sb, r, /reason +claude is not on PATH/);
});

Deno.test("a claude that exits 1 leaves the install incomplete with its reason", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\necho 'registration broke' >&2\nexit 1\n" });
  const r = await install(sb);
  await assertIncomplete(sb, r, /reason +claude mcp add-json exited 1: registration broke/);
});

Deno.test({
  name: `a claude that hangs is stopped after ${
    CLAUDE_TIMEOUT_MS / 1000
  } s and the install is incomplete (TERMINUS_SLOW_TESTS=1)`,
  ignore: !SLOW,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sb = await setupBox({ script: "#!/bin/sh\nexec sleep 45\n" });
    const t0 = Date.now();
    const r = await install(sb);
    const took = Date.now() - t0;
    await assertIncomplete(sb, r, /took longer than 30 seconds and was stopped/);
    // only the floor: a busy machine can take longer; the message above says it was stopped
    assert.ok(took >= CLAUDE_TIMEOUT_MS, `took ${took} ms`);
  },
});

Deno.test("an unreadable .claude.json runs no claude and leaves the install incomplete", async () => {
  await using sb = await setupBox({ script: '#!/bin/sh\ntouch "$0.ran"\nexit 0\n' });
  await Deno.writeTextFile(sb.claudeJson, '{"mcpServers": {"terminus": ');
  const r = await install(sb);
  await assertIncomplete(sb, r, /is not JSON.*so no claude was run/);
  assert.equal(await exists(join(sb.bin, "claude.ran")), false, "claude was not run");
  assert.equal(await Deno.readTextFile(sb.claudeJson), '{"mcpServers": {"terminus": ', "untouched");
});

Deno.test({
  name:
    "an MCP entry in another shape is removed, then added, keeping the keys the user put beside the three",
  ...real,
  async fn() {
    await using sb = await setupBox();
    const old = {
      type: "stdio",
      command: "/old/terminus",
      args: ["serve"],
      env: { TERMINUS_X: "1" },
    };
    const add = await claude(sb, [
      "mcp",
      "add-json",
      "--scope",
      "user",
      "terminus",
      JSON.stringify(old),
    ]);
    assert.equal(add.code, 0, add.err);
    const r = await install(sb);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /replaced an entry in another shape/);
    assert.deepEqual(await mcpEntry(sb), {
      type: "stdio",
      command: sb.link,
      args: ["mcp"],
      env: { TERMINUS_X: "1" },
    });
  },
});

Deno.test("an MCP entry already current runs no claude, whatever else sits beside the three keys", async () => {
  await using sb = await setupBox({ script: '#!/bin/sh\ntouch "$0.ran"\nexit 1\n' });
  await Deno.writeTextFile(
    sb.claudeJson,
    JSON.stringify({
      mcpServers: { terminus: { type: "stdio", command: sb.link, args: ["mcp"], env: {} } },
    }),
  );
  const r = await install(sb);
  assert.equal(r.code, 0, r.out + r.err);
  assert.equal(await exists(join(sb.bin, "claude.ran")), false);
});

Deno.test("TERMINUS_BIN_DIR moves the link, and the entries name it", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 0\n" });
  const binDir = join(sb.dir, "mybin");
  sb.env.TERMINUS_BIN_DIR = binDir;
  const r = await install(sb);
  assert.equal(r.code, 0, r.out + r.err);
  const link = join(binDir, "terminus");
  assert.equal(await Deno.readLink(link), sb.versionFile);
  assert.equal(await exists(sb.link), false);
  assert.deepEqual(await readJson(sb.settings), { hooks: hookEntries(link) });
});

Deno.test("install takes no options: --yes and --json are misuse", async () => {
  await using sb = await setupBox("none");
  for (const flag of ["--yes", "--json", "-y"]) {
    const r = await runCli(sb, ["install", flag]);
    assert.equal(r.code, 2, flag);
    assert.equal(r.out, "");
    assert.match(r.err, /usage: terminus/);
  }
  assert.equal(await exists(join(sb.home, ".local")), false);
});

Deno.test("install reports cleanupPeriodDays from settings.json with the edit that raises it", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 0\n" });
  await Deno.writeTextFile(sb.settings, JSON.stringify({ cleanupPeriodDays: 7 }, null, 2) + "\n");
  const r = await install(sb);
  assert.match(r.out, /cleanupPeriodDays is 7, set in /);
  assert.ok(r.out.includes(`set "cleanupPeriodDays": 3650 in ${sb.settings}`));
  assert.equal((await readJson(sb.settings)).cleanupPeriodDays, 7, "never changed");
});

const ALPHA_TRANSCRIPT = JSON.stringify({
  type: "user",
  uuid: "u1",
  parentUuid: null,
  timestamp: "2026-08-12T21:00:00.000Z",
  cwd: "/nonexistent/terminus-install/alpha",
  sessionId: "11111111-1111-4111-8111-111111111111",
  message: { role: "user", content: "hello" },
}) + "\n";

/** Waits (a 5 min net, not a speed limit) for the detached pass to archive something; the sessions it stored. */
async function archivedSessions(sb: SetupBox): Promise<number> {
  let sessions = 0;
  for (let i = 0; i < 1200 && sessions === 0; i++) {
    await new Promise((res) => setTimeout(res, 250));
    const s = await runCli(sb, ["status", "--json"]);
    sessions = JSON.parse(s.out).data.sessions;
  }
  return sessions;
}

Deno.test("install offers import-history when Claude Code has a prompt history, and does not run it", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 0\n" });
  const history = join(sb.claude, "history.jsonl");
  await Deno.writeTextFile(
    history,
    JSON.stringify({ display: "hello", pastedContents: {}, timestamp: 1, project: "/x" }) + "\n",
  );
  const r = await install(sb);
  assert.ok(r.out.includes(`history: ${history} holds`), r.out);
  assert.match(r.out, /run: terminus import-history\n/);
  await settle(sb);
  if (await exists(join(sb.data, "terminus.db"))) {
    const rows = query(
      join(sb.data, "terminus.db"),
      "SELECT name FROM sqlite_master WHERE name = 'history_prompts'",
    );
    assert.deepEqual(rows, [], "install imported nothing");
  }
  // imported once, a re-install does not offer it again
  assert.equal((await runCli(sb, ["import-history"])).code, 0);
  const imported = await install(sb);
  assert.equal(imported.code, 0, imported.out + imported.err);
  assert.doesNotMatch(imported.out, /import-history/, "imported: no second offer");
  await settle(sb);
  await Deno.remove(history);
  const again = await install(sb);
  assert.doesNotMatch(again.out, /import-history/, "no history, no offer");
});

Deno.test({
  name: "install starts a detached backfill of the transcripts already on disk",
  ...real,
  async fn() {
    await using sb = await setupBox();
    await writeTranscript(
      sb.claude,
      "/nonexistent/terminus-install/alpha",
      "11111111-1111-4111-8111-111111111111.jsonl",
      ALPHA_TRANSCRIPT,
    );
    const r = await install(sb);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(
      r.out,
      /backfill: 1 of 1 transcript\(s\) not yet archived \(\d+ byte\(s\)\); archiving them in the background, at normal priority/,
    );
    // the detached pass archives it without anyone waiting for it
    assert.equal(await archivedSessions(sb), 1);
    await settle(sb);
  },
});

/* ---------- the source install survives its checkout ---------- */

Deno.test({
  name: "a source install from a checkout keeps working offline after the checkout is deleted",
  ...real,
  async fn() {
    await using sb = await setupBox();
    const clone = join(sb.dir, "clone");
    await Deno.mkdir(clone);
    for (const p of [...SOURCE_FILES, ...SOURCE_DIRS]) {
      const c = await new Deno.Command("cp", { args: ["-R", join(REPO_DIR, p), join(clone, p)] })
        .output();
      assert.ok(c.success);
    }
    // `deno task install` from the checkout, the README's first command
    const t = await new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "install"],
      cwd: clone,
      env: sb.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    assert.equal(t.code, 0, dec.decode(t.stdout) + dec.decode(t.stderr));
    await Deno.remove(clone, { recursive: true });

    // No module cache but the copy's own, and any registry request would fail.
    const offline: Record<string, string> = {
      HOME: sb.home,
      PATH: sb.env.PATH,
      TERMINUS_DATA_DIR: sb.data,
      TERMINUS_CONFIG_DIR: sb.config,
      CLAUDE_CONFIG_DIR: sb.claude,
      HTTP_PROXY: "http://127.0.0.1:9",
      HTTPS_PROXY: "http://127.0.0.1:9",
      NPM_CONFIG_REGISTRY: "http://127.0.0.1:9/",
      NO_COLOR: "1",
    };
    const runLink = async (args: string[], stdin?: string) => {
      const child = new Deno.Command(sb.link, {
        args,
        cwd: sb.dir,
        env: offline,
        clearEnv: true,
        stdin: stdin === undefined ? "null" : "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      if (stdin !== undefined) {
        const w = child.stdin.getWriter();
        await w.write(new TextEncoder().encode(stdin));
        await w.close();
      }
      const o = await child.output();
      return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
    };
    const v = await runLink(["--version"]);
    assert.equal(v.out, `terminus ${VERSION}\n`, v.err);
    const status = await runLink(["status", "--json"]);
    assert.equal(status.code, 0, status.err);
    assert.equal(JSON.parse(status.out).ok, true);
    const hook = await runLink(
      ["hook", "SessionEnd"],
      JSON.stringify({
        session_id: "s1",
        transcript_path: "/nonexistent.jsonl",
        cwd: sb.dir,
        hook_event_name: "SessionEnd",
        reason: "exit",
      }),
    );
    assert.equal(hook.code, 0, hook.err);
    assert.equal(hook.err, "");
    // the pass the hook started runs from the copy too
    let ran = false;
    for (let i = 0; i < 1200 && !ran; i++) {
      await new Promise((res) => setTimeout(res, 250));
      const s = await runLink(["status", "--json"]);
      ran = JSON.parse(s.out).data.last_run !== null;
    }
    assert.ok(ran, "the detached pass recorded a run");
    const list = await new Deno.Command(join(sb.bin, "claude"), {
      args: ["mcp", "list"],
      cwd: sb.dir,
      env: { ...offline, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.match(dec.decode(list.stdout), /terminus: .* - ✔ Connected/, dec.decode(list.stderr));
    offline.PATH = `${join(sb.home, ".local", "bin")}:${offline.PATH}`; // as the receipt asks
    const doctor = await runLink(["doctor", "--json"]);
    const d = JSON.parse(doctor.out).data as Record<string, { state: string }>;
    assert.equal(d.binary.state, "ok", JSON.stringify(d.binary));
    assert.equal(
      await exists(join(sb.home, ".cache", "deno")),
      false,
      "no shared module cache was used",
    );
  },
});

/* ---------- the runtime by its full path (issue 14, item 1) ---------- */

Deno.test({
  name: "with no deno anywhere on PATH, install's detached backfill still starts and archives",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sb = await setupBox("none");
    // PATH holds only an empty folder: the runtime must be run by its full path
    sb.env.PATH = sb.bin;
    await writeTranscript(
      sb.claude,
      "/nonexistent/terminus-install/alpha",
      "11111111-1111-4111-8111-111111111111.jsonl",
      ALPHA_TRANSCRIPT,
    );
    const r = await install(sb);
    assert.doesNotMatch(r.err + r.out, /could not be started/);
    assert.match(r.out, /archiving them in the background/);
    assert.equal(await archivedSessions(sb), 1);
    await settle(sb);
  },
});

/** An install's layout in `dir`, for the launcher tests: the checkout as its source. */
function launcherLayout(dir: string) {
  return {
    versionDir: dir,
    sourceDir: REPO_DIR,
    denoDir: join(dir, "deno"),
    launcher: join(dir, "terminus"),
  };
}

/**
 * A launcher in `dir` whose runtime is a shell script printing what `body` prints of what it was
 * given; returns how to run it (it must exit 0) and what it printed. Its copy is the checkout,
 * or `sourceDir`.
 */
async function fakeLauncher(dir: string, body: string, sourceDir?: string) {
  const layout = { ...launcherLayout(dir), ...(sourceDir ? { sourceDir } : {}) };
  const fake = join(dir, "fake-deno");
  await Deno.writeTextFile(fake, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  await Deno.writeTextFile(
    layout.launcher,
    launcherText(fake, layout, "https://registry.npmjs.org/"),
    { mode: 0o755 },
  );
  return async (args: string[], env: Record<string, string> = {}) => {
    const o = await new Deno.Command(layout.launcher, {
      args,
      env: { PATH: "/usr/bin:/bin", HOME: dir, ...env },
      clearEnv: true,
      stdout: "piped",
    }).output();
    assert.equal(o.code, 0);
    return new TextDecoder().decode(o.stdout);
  };
}

Deno.test("the launcher fixes glibc's mmap and trim thresholds for the program, unless the person set them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "terminus-launcher-" });
  try {
    const run = await fakeLauncher(
      dir,
      'printf "%s %s\\n" "${MALLOC_MMAP_THRESHOLD_-unset}" "${MALLOC_TRIM_THRESHOLD_-unset}"',
    );
    assert.equal(
      await run(["status"]),
      `${MALLOC_MMAP_THRESHOLD_BYTES} ${MALLOC_TRIM_THRESHOLD_BYTES}\n`,
    );
    // the compressor's context (about 1.7 MiB) is below the mmap threshold, and a freed one
    // at the heap's top below the trim threshold
    assert.ok(MALLOC_MMAP_THRESHOLD_BYTES > 1.75 * 1024 * 1024);
    assert.ok(MALLOC_TRIM_THRESHOLD_BYTES > MALLOC_MMAP_THRESHOLD_BYTES);
    assert.equal(
      await run(["status"], { MALLOC_MMAP_THRESHOLD_: "65536", MALLOC_TRIM_THRESHOLD_: "131072" }),
      "65536 131072\n",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the launcher runs the backfill with its own young generation, every other command with the program's", async () => {
  const dir = await Deno.makeTempDir({ prefix: "terminus-launcher-" });
  try {
    // the runtime prints the flag that sizes the heap
    const run = await fakeLauncher(
      dir,
      'for a in "$@"; do case "$a" in --v8-flags=*) printf "%s\\n" "$a" ;; esac; done',
    );
    assert.equal(await run(["ingest"]), `${v8Flags(SEMI_SPACE_MIB)}\n`);
    assert.equal(await run(["search", "backfill"]), `${v8Flags(SEMI_SPACE_MIB)}\n`);
    assert.equal(await run(["backfill", "--work"]), `${v8Flags(BACKFILL_SEMI_SPACE_MIB)}\n`);
    assert.notEqual(SEMI_SPACE_MIB, BACKFILL_SEMI_SPACE_MIB);
    // every start compiles eagerly, so each finds the code cache the others left
    for (const argv of [["ingest"], ["hook", "UserPromptSubmit"], ["backfill", "--work"]]) {
      assert.match(await run(argv), new RegExp(`,${EAGER_COMPILE_V8_FLAG}\n$`));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the launcher gives each own file its V8 flag and module cache, and no other start", async () => {
  const dir = await Deno.makeTempDir({ prefix: "terminus-launcher-" });
  try {
    // a bundled copy's files, as the launcher looks for them
    const copy = join(dir, "copy");
    await Deno.mkdir(copy);
    for (const f of [BUNDLE_ENTRY, HOOK_ENTRY, ownStart("search"), ownStart("ingest")]) {
      await Deno.writeTextFile(join(copy, f), "");
    }
    const run = await fakeLauncher(
      dir,
      'printf "%s " "$DENO_DIR"; for a in "$@"; do case "$a" in --v8-flags=*) printf "%s " "$a" ;; *.js) basename "$a"; break ;; esac; done',
      copy,
    );
    const flagsOf = async (argv: string[]) => (await run(argv)).trim().split(" ");
    const denoDir = join(dir, "deno");
    // each own file has a module cache of its own: V8 rejects code another flag set compiled
    assert.deepEqual(await flagsOf(["search", "rebase"]), [
      ownDenoDir(denoDir, "search"),
      ownV8Flags("search"),
      ownStart("search"),
    ]);
    assert.deepEqual(await flagsOf(["ingest"]), [
      ownDenoDir(denoDir, "ingest"),
      ownV8Flags("ingest"),
      ownStart("ingest"),
    ]);
    assert.equal(ownV8Flags("search"), `${v8Flags()},${SEARCH_WASM_V8_FLAG}`);
    assert.equal(ownV8Flags("ingest"), `${v8Flags()},${PASS_OPT_V8_FLAG}`);
    // the pass a hook's launch starts is the pass's own file, with its flags
    const text = await Deno.readTextFile(join(dir, "terminus"));
    const passStart = text.split("\n").find((l) => l.includes("bash -c"));
    assert.ok(passStart?.includes(` ${ownV8Flags("ingest")} `), passStart);
    assert.ok(passStart?.includes(`DENO_DIR=${ownDenoDir(denoDir, "ingest")} `), passStart);
    // every other start keeps the program's flags and module cache
    assert.deepEqual(await flagsOf(["sessions"]), [denoDir, v8Flags(), BUNDLE_ENTRY]);
    assert.deepEqual(await flagsOf(["mcp"]), [denoDir, v8Flags(), BUNDLE_ENTRY]);
    assert.deepEqual(await flagsOf(["hook", "UserPromptSubmit"]), [
      denoDir,
      v8Flags(),
      HOOK_ENTRY,
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the backfill's worker is started with the backfill's young generation, from the checkout or a compiled binary", () => {
  const deno = "/opt/deno/bin/deno";
  const main = "/home/a/terminus/mod.ts";
  assert.deepEqual(
    backfillWorkArgv([deno, "run", ...permissionFlags(deno), main]),
    [deno, "run", ...permissionFlags(deno, BACKFILL_SEMI_SPACE_MIB), main, "backfill", "--work"],
  );
  // a compiled binary carries its flags (the backfill's): nothing to swap
  assert.deepEqual(backfillWorkArgv(["/usr/local/bin/terminus"]), [
    "/usr/local/bin/terminus",
    "backfill",
    "--work",
  ]);
  // eager compilation needs a code cache, which a compiled binary's code does not come from
  assert.ok(COMPILED_PERMISSION_FLAGS.includes(v8Flags(BACKFILL_SEMI_SPACE_MIB, false)));
  assert.ok(!COMPILED_PERMISSION_FLAGS.some((f) => f.includes(EAGER_COMPILE_V8_FLAG)));
});

Deno.test("the launcher runs the recorded runtime, else the deno on PATH, else names both and exits 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "terminus-launcher-" });
  try {
    const layout = launcherLayout(dir);
    const bin = join(dir, "bin");
    await Deno.mkdir(bin);
    await Deno.symlink(Deno.execPath(), join(bin, "deno"));
    const empty = join(dir, "empty");
    await Deno.mkdir(empty);
    const run = async (recorded: string, path: string) => {
      await Deno.writeTextFile(
        layout.launcher,
        launcherText(recorded, layout, "https://registry.npmjs.org/"),
        { mode: 0o755 },
      );
      const o = await new Deno.Command(layout.launcher, {
        args: ["--version"],
        env: { PATH: path, HOME: dir },
        clearEnv: true,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const dec = new TextDecoder();
      return { code: o.code, out: dec.decode(o.stdout), err: dec.decode(o.stderr) };
    };
    // the recorded runtime, with nothing on PATH
    let r = await run(Deno.execPath(), empty);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `terminus ${VERSION}\n`);
    // Deno moved: the one on PATH
    const gone = join(dir, "moved-away", "deno");
    r = await run(gone, bin);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `terminus ${VERSION}\n`);
    // neither: one line naming the recorded path and PATH
    r = await run(gone, empty);
    assert.equal(r.code, 1);
    assert.equal(r.out, "");
    assert.equal(r.err.split("\n").filter(Boolean).length, 1);
    assert.ok(r.err.includes(gone), r.err);
    assert.match(r.err, /no deno is on PATH/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the receipt prints the shell line that puts the link's folder on PATH, only when it is not", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 0\n" });
  const bin = join(sb.home, ".local", "bin");
  const r = await install(sb, { SHELL: "/bin/bash" });
  assert.equal(r.code, 0, r.out + r.err);
  assert.ok(r.out.includes(`${bin} is not on PATH`), r.out);
  assert.ok(r.out.includes(`add it to ${join(sb.home, ".bashrc")}`), r.out);
  assert.ok(r.out.includes(`\n  export PATH=${bin}:"$PATH"\n`), r.out);
  // the line works: a shell that runs it finds terminus by name
  const sh = await new Deno.Command("/bin/sh", {
    args: ["-c", `export PATH=${bin}:"$PATH"; command -v terminus`],
    env: { PATH: sb.env.PATH },
    clearEnv: true,
    stdout: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(sh.stdout).trim(), join(bin, "terminus"));
  const again = await install(sb, { PATH: `${bin}:${sb.env.PATH}` });
  assert.equal(again.code, 0, again.out + again.err);
  assert.doesNotMatch(again.out, /not on PATH/);
  await settle(sb);
});

/* ---------- the installed copy runs as a bundle ---------- */

Deno.test({
  name: "an installed copy runs from its bundle: a pass on its derive worker, search, show, verify",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sb = await setupBox("none");
    const copy = await installBundled(sb);
    assert.ok(await exists(join(copy, "core", "ingest", "derive_worker.js")));

    // enough transcript bytes that the pass starts its derive worker and hands it windows
    await bigTree(sb.claude, { files: 6, totalBytes: 12 << 20, seed: 7 });
    const runLink = (args: string[]) => runInstalled(sb, args);
    const notes = async () =>
      (JSON.parse((await runLink(["status", "--json"])).out).data.last_run.notes ?? []).join("\n");
    const ingest = await runLink(["ingest"]);
    assert.equal(ingest.code, 0, ingest.err);
    assert.match(ingest.err, /6 file\(s\) walked, 6 committed, 0 failed/);
    assert.doesNotMatch(await notes(), /derive worker stopped/);

    const search = await runLink(["search", "manager", "--project", "*", "--json"]);
    assert.equal(search.code, 0, search.err);
    const hits = JSON.parse(search.out).data.hits as { turn_id: number; excerpt: string }[];
    assert.ok(hits.length > 0 && hits.every((h) => /manager/i.test(h.excerpt)), search.out);
    const show = await runLink(["show", String(hits[0].turn_id), "--project", "*"]);
    assert.equal(show.code, 0, show.err);
    assert.ok(show.out.length > 0);
    const verify = await runLink(["verify", "--json"]);
    assert.equal(verify.code, 0, verify.out + verify.err);

    // the check above can fail: with the worker's entry gone, the pass says it derived inline
    await Deno.remove(join(copy, "core", "ingest", "derive_worker.js"));
    await bigTree(sb.claude, { files: 2, totalBytes: 4 << 20, seed: 8 });
    const again = await runLink(["ingest"]);
    assert.equal(again.code, 0, again.err);
    assert.match(await notes(), /derive worker stopped/);
  },
});

/** Installs the checkout bundled; the start file and the bundle of `name`'s own file, both there. */
async function ownFiles(
  sb: Awaited<ReturnType<typeof setupBox>>,
  name: OwnFileCommand,
): Promise<{ start: string; bundle: string }> {
  const copy = await installBundled(sb);
  const start = join(copy, ownStart(name));
  const bundle = join(copy, ownBundle(name));
  assert.ok(await exists(start) && await exists(bundle), `${name}'s own file`);
  return { start, bundle };
}

Deno.test({
  name:
    "an installed copy runs a search from the search's own bundle, and the rest from the program",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sb = await setupBox("none");
    const { start, bundle } = await ownFiles(sb, "search");
    // one file, the decoder's WebAssembly inside (`\0asm` in base64): a search loads the
    // decoder at its start, and each chunk more would cost it an import
    const text = await Deno.readTextFile(bundle);
    assert.match(text, /AGFzbQ/);
    assert.doesNotMatch(text, /from "\.\/|import\("\.\//);
    const s = new Session(sid(0x4f0), ALPHA, daysAgo(1));
    s.user("why does the widget factory leak?");
    s.assistant("It keeps every widget it made.");
    await s.write(sb);
    assert.equal((await runInstalled(sb, ["ingest"])).code, 0);
    const ask = ["search", "widget", "factory", "--project", "*", "--json"];
    const own = await runInstalled(sb, ask);
    assert.equal(own.code, 0, own.err);
    assert.equal(JSON.parse(own.out).data.hits.length, 1, own.out);
    // help and misuse come from the same place, as through the program
    const help = await runInstalled(sb, ["search", "--help"]);
    assert.equal(help.code, 0, help.err);
    assert.match(help.out, new RegExp(SEARCH_SUMMARY));
    const bad = await runInstalled(sb, ["search", "--bogus"]);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /unknown option '--bogus'[\s\S]*usage: terminus search/);

    // the launcher sends `search` to the search's file and anything else to mod.js
    await Deno.rename(bundle, `${bundle}.real`);
    await Deno.writeTextFile(
      bundle,
      'export function start() { console.log("the search entry ran"); Deno.exit(0); }\n',
    );
    assert.equal((await runInstalled(sb, ask)).out, "the search entry ran\n");
    const other = await runInstalled(sb, ["sessions", "--project", "*", "--json"]);
    assert.match(other.out, new RegExp(sid(0x4f0)), other.out + other.err);
    // without the start file the program answers the search itself, the same way
    await Deno.remove(start);
    const program = await runInstalled(sb, ask);
    assert.equal(program.code, 0, program.err);
    assert.equal(program.out, own.out);
  },
});

Deno.test({
  name:
    "an installed copy runs a pass from the pass's own bundle, typed or started by a hook's launch",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sb = await setupBox("none");
    const { start, bundle } = await ownFiles(sb, "ingest");
    // hash-wasm by name: BLAKE3 alone, not every algorithm the package holds (blake3.ts); and
    // no WebAssembly at all in the file a no-op pass loads (`\0asm` in base64): the decoder and
    // BLAKE3 are chunks it loads on demand
    const text = await Deno.readTextFile(bundle);
    assert.doesNotMatch(text, /whirlpool/i);
    assert.doesNotMatch(text, /AGFzbQ/);
    // nor the pass's own modules: a pass gated out loads none of them
    assert.doesNotMatch(text, /core\/ingest\/pass\.ts/);
    const runs = () => query<{ n: number }>(sb.store, "SELECT count(*) AS n FROM runs")[0].n;
    // a session's start through the link, and the pass its launch started, run to the end
    const startViaLink = async (n: number) => {
      const r = await hook(sb, ["SessionStart"], {
        stdin: startPayload(sid(n), ALPHA),
        argv: () => [linkOf(sb), "hook", "SessionStart"],
      });
      assert.equal(r.code, 0, r.err);
      await settleDetached(sb);
    };
    const s = new Session(sid(0x4f8), ALPHA, daysAgo(1));
    s.user("why does the widget factory leak?");
    await s.write(sb);
    const typed = await runInstalled(sb, ["ingest"]);
    assert.equal(typed.code, 0, typed.err);
    assert.match(typed.err, /1 file\(s\) walked, 1 committed/);
    // a pass started for a prompt takes the burst gate here too: shut, it does nothing
    await Deno.writeTextFile(join(sb.data, PASS_STAMP_FILE), "1"); // a start just now
    const before = runs();
    const gated = await runCli(sb, ["ingest"], {
      program: linkOf(sb),
      env: { TERMINUS_PASS_GATE: "1" },
    });
    assert.equal(gated.code, 0, gated.err);
    assert.equal(runs(), before, "a gated-out pass writes no run row");

    // the launcher sends `ingest` to the pass's file, and so does the pass a hook's launch starts
    await Deno.rename(bundle, `${bundle}.real`);
    const mark = join(sb.dir, "pass-entry-ran");
    await Deno.writeTextFile(
      bundle,
      `export function start() { Deno.writeTextFileSync(${
        JSON.stringify(mark)
      }, "ran"); Deno.exit(0); }\n`,
    );
    assert.equal((await runInstalled(sb, ["ingest"])).code, 0);
    assert.ok(await exists(mark), "typed: the pass's own file ran");
    await Deno.remove(mark);
    await startViaLink(0x4f9);
    assert.ok(await exists(mark), "started by the launch: the pass's own file ran");
    // without the start file the program runs the pass itself
    await Deno.remove(start);
    const later = new Session(sid(0x4fa), ALPHA, daysAgo(1));
    later.user("and the gadget registry?");
    await later.write(sb);
    const program = await runInstalled(sb, ["ingest"]);
    assert.equal(program.code, 0, program.err);
    assert.match(program.err, /committed/);
    const listed = await runInstalled(sb, ["sessions", "--project", "*", "--json"]);
    assert.match(listed.out, new RegExp(sid(0x4fa)), listed.out + listed.err);
    // and a session's start still archives: the launcher starts no pass, the hook starts its own
    const last = new Session(sid(0x4fb), ALPHA, daysAgo(1));
    last.user("and the sprocket cache?");
    await last.write(sb);
    await startViaLink(0x4fc);
    const after = await runInstalled(sb, ["sessions", "--project", "*", "--json"]);
    assert.match(after.out, new RegExp(sid(0x4fb)), after.out + after.err);
  },
});

Deno.test("the pass's entry refuses any other command: the launcher sends those to mod.js", async () => {
  assert.equal(await ingestEntry(["search"]), 2);
});

Deno.test("the search entry refuses any other command: the launcher sends those to mod.js", async () => {
  assert.equal(await searchEntry(["sessions"]), 2);
});

Deno.test({
  name:
    "an installed copy answers a hook from the hook's own bundle, and the pass it starts runs the program",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sb = await setupBox("none");
    const copy = await installBundled(sb);
    const entry = join(copy, "hook.js");
    assert.ok(await exists(entry));
    const link = linkOf(sb);
    const viaLink = (event: string, stdin: Record<string, unknown>, extra: string[] = []) =>
      hook(sb, [event], { stdin, argv: () => [link, "hook", event, ...extra] });

    const s = new Session(sid(0x4e0), ALPHA, daysAgo(1));
    s.user("why does the widget factory leak?");
    s.read(`${ALPHA}/src/widget_factory.py`, "class WidgetFactory: pass");
    s.assistant("It keeps every widget it made.");
    await s.write(sb);
    // a session's start always starts a pass, one: the launcher's, not the hook's as well
    const runs = () => query<{ n: number }>(sb.store, "SELECT count(*) AS n FROM runs")[0].n;
    const start = await viaLink("SessionStart", startPayload(sid(0x4e1), ALPHA));
    assert.equal(start.code, 0, start.err);
    await settleDetached(sb);
    const listed = await runInstalled(sb, ["sessions", "--project", "*", "--json"]);
    assert.match(listed.out, new RegExp(sid(0x4e0)), listed.out + listed.err);
    assert.equal(runs(), 1, "one pass for one start");

    const ask = (n: number) =>
      viaLink(
        "UserPromptSubmit",
        promptPayload(sid(n), ALPHA, "what is in src/widget_factory.py?"),
      );
    const answered = await ask(0x4e2);
    assert.match(additionalContext(answered, "UserPromptSubmit") ?? "", /widget_factory\.py/);

    // the launcher sends Claude Code's form to hook.js and anything else to mod.js
    await Deno.rename(entry, `${entry}.real`);
    await Deno.writeTextFile(entry, 'console.log("the hook entry ran");\n');
    // and starts a session's end's pass before the runtime: a hook entry that does nothing
    // (or dies at once) still has its session archived
    const late = new Session(sid(0x4e4), ALPHA, daysAgo(1));
    late.user("and the gadget registry?");
    await late.write(sb);
    assert.equal((await viaLink("SessionEnd", {})).out, "the hook entry ran\n");
    await settleDetached(sb);
    const after = await runInstalled(sb, ["sessions", "--project", "*", "--json"]);
    assert.match(after.out, new RegExp(sid(0x4e4)), after.out + after.err);
    // a prompt's pass too; it takes the burst gate itself, open here (the last start 10 s ago)
    const past = new Date(Date.now() - 10_000);
    await Deno.utime(join(sb.data, PASS_STAMP_FILE), past, past);
    const typed = new Session(sid(0x4e5), ALPHA, daysAgo(1));
    typed.user("and the sprocket cache?");
    await typed.write(sb);
    const prompt = await viaLink("UserPromptSubmit", promptPayload(sid(0x4e5), ALPHA, "hi"));
    assert.equal(prompt.out, "the hook entry ran\n");
    await settleDetached(sb);
    const typedAfter = await runInstalled(sb, ["sessions", "--project", "*", "--json"]);
    assert.match(typedAfter.out, new RegExp(sid(0x4e5)), typedAfter.out + typedAfter.err);
    const help = await viaLink("SessionEnd", {}, ["--help"]);
    assert.doesNotMatch(help.out, /the hook entry ran/);
    assert.match(help.out, /terminus hook/);
    // without hook.js the program answers the hook itself, the same way
    await Deno.remove(entry);
    const again = await ask(0x4e3);
    assert.equal(
      additionalContext(again, "UserPromptSubmit"),
      additionalContext(answered, "UserPromptSubmit"),
    );
    await settleDetached(sb);
  },
});
