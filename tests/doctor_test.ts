/**
 * terminus doctor: the fourteen keys in every state, ok after an install against the real
 * claude, the fix rules, the settings layering for the two Claude Code settings, the last
 * run as a problem, and that it writes nothing anywhere.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { type CliResult, parseEnvelope, runCli, writeTranscript } from "./helpers.ts";
import {
  CLAUDE,
  diffSnapshots,
  install,
  oneTurnTranscript,
  settle,
  type SetupBox,
  setupBox,
  snapshot,
} from "./setup_helpers.ts";

const KEYS = [
  "auto_compact",
  "binary",
  "claude_code",
  "cleanup_period_days",
  "config_roots",
  "data_directory",
  "hook_PostCompact",
  "hook_SessionEnd",
  "hook_SessionStart",
  "hook_UserPromptSubmit",
  "last_run",
  "mcp_server",
  "settings_file",
  "store",
];
const STATES = ["ok", "note", "unknown", "problem"];

type Check = { state: string; finding: string; fix: string | null };

const real = { ignore: !CLAUDE, sanitizeResources: false, sanitizeOps: false };

async function doctor(sb: SetupBox, cwd?: string, env: Record<string, string | undefined> = {}) {
  const r = await runCli(sb, ["doctor", "--json"], { cwd, env });
  const doc = parseEnvelope(r.out);
  return { r, doc, data: doc.data as Record<string, Check> };
}

/** The shape every run carries, whatever it found. */
function assertShape(r: CliResult, data: Record<string, Check>, what: string) {
  assert.deepEqual(Object.keys(data).sort(), KEYS, `${what}: the 14 keys`);
  for (const [k, c] of Object.entries(data)) {
    assert.deepEqual(Object.keys(c).sort(), ["finding", "fix", "state"], `${what}: ${k}`);
    assert.ok(STATES.includes(c.state), `${what}: ${k} state ${c.state}`);
    assert.equal(typeof c.finding, "string");
    assert.ok(c.finding.length > 0, `${what}: ${k} has a finding`);
    if (c.state === "ok" || c.state === "unknown") {
      assert.equal(c.fix, null, `${what}: ${k} fix is null`);
    }
  }
  const problems = Object.entries(data).filter(([, c]) => c.state === "problem").map(([k]) => k);
  assert.equal(r.code, problems.length ? 1 : 0, `${what}: exit only on a problem`);
}

async function wireItUp(sb: SetupBox) {
  const r = await install(sb);
  assert.equal(r.code, 0, r.out + r.err);
  await settle(sb);
}

Deno.test({
  name: "after install, every check is ok or a note, and the human output reads like the guide's",
  ...real,
  async fn() {
    await using sb = await setupBox();
    await oneTurnTranscript(sb, "/nonexistent/terminus-doctor/alpha");
    await wireItUp(sb);
    sb.env.PATH = `${join(sb.home, ".local", "bin")}:${sb.env.PATH}`; // as the receipt asks
    const { r, doc, data } = await doctor(sb);
    assertShape(r, data, "after install");
    assert.equal(doc.ok, true);
    assert.equal(doc.reason, null);
    for (const [k, c] of Object.entries(data)) {
      assert.ok(c.state === "ok" || c.state === "note", `${k}: ${c.finding}`);
    }
    for (
      const k of [
        "binary",
        "settings_file",
        "hook_SessionStart",
        "hook_UserPromptSubmit",
        "hook_SessionEnd",
        "hook_PostCompact",
        "mcp_server",
        "claude_code",
        "config_roots",
        "data_directory",
        "store",
        "last_run",
      ]
    ) assert.equal(data[k].state, "ok", `${k}: ${data[k].finding}`);
    assert.equal(data.binary.finding, `${sb.link} is this build (0.1.0)`);
    assert.equal(
      data.hook_SessionStart.finding,
      `${sb.settings} runs ${sb.link} for SessionStart in exec form`,
    );
    assert.equal(
      data.mcp_server.finding,
      `${sb.claudeJson} runs ${sb.link} as the 'terminus' server`,
    );
    assert.match(
      data.store.finding,
      /terminus\.db: 1 session\(s\), 1 turn\(s\), 1 watermark\(s\)$/,
    );
    // unset cleanupPeriodDays is 30 days: a note with the one edit
    assert.equal(data.cleanup_period_days.state, "note");
    assert.equal(data.cleanup_period_days.fix, `set "cleanupPeriodDays": 3650 in ${sb.settings}`);
    assert.equal(data.auto_compact.state, "note");
    assert.equal(data.auto_compact.fix, null);

    const human = await runCli(sb, ["doctor"]);
    assert.equal(human.code, 0);
    assert.match(human.out, /^ {2}ok {7}binary {17}\S/m);
    assert.match(human.out, /^ {2}note {5}cleanup_period_days {4}cleanupPeriodDays/m);
    assert.ok(
      human.out.includes(
        `\n  fix${" ".repeat(29)}set "cleanupPeriodDays": 3650 in ${sb.settings}\n`,
      ),
    );
    assert.ok(
      human.out.endsWith("\nno problems, 2 note(s). doctor changed nothing and never does.\n"),
      human.out,
    );
  },
});

Deno.test("before any install: problems with their fixes, exit 1, and reason naming the count and every problem", async () => {
  await using sb = await setupBox("none");
  const { r, doc, data } = await doctor(sb);
  assertShape(r, data, "fresh");
  assert.equal(r.code, 1);
  assert.equal(doc.ok, false);
  const problems = KEYS.filter((k) => data[k].state === "problem");
  assert.deepEqual(problems, [
    "binary",
    "hook_PostCompact",
    "hook_SessionEnd",
    "hook_SessionStart",
    "hook_UserPromptSubmit",
    "mcp_server",
  ]);
  assert.equal(
    doc.reason,
    `${problems.length} problem(s): ${
      [
        "binary",
        "hook_SessionStart",
        "hook_UserPromptSubmit",
        "hook_SessionEnd",
        "hook_PostCompact",
        "mcp_server",
      ]
        .join(", ")
    }`,
  );
  assert.equal(
    data.hook_SessionStart.finding,
    `${sb.settings} has no terminus entry for SessionStart`,
  );
  assert.ok(data.hook_SessionStart.fix?.endsWith(" install"), String(data.hook_SessionStart.fix));
  // not there yet: notes with nothing to run
  for (const k of ["settings_file", "data_directory", "store", "last_run"]) {
    assert.equal(data[k].state, "note", k);
    assert.equal(data[k].fix, null, k);
  }
  assert.equal(data.claude_code.state, "unknown", "no claude on PATH");
  const human = await runCli(sb, ["doctor"]);
  assert.equal(human.code, 1);
  assert.match(
    human.out,
    /\n6 problem\(s\), \d+ note\(s\)\. doctor changed nothing and never does\.\n$/,
  );
  assert.match(human.err, /6 problem\(s\): binary, /);
});

Deno.test("the key set never changes: broken files, a damaged store, a failing claude, no HOME", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 3\n" });
  await Deno.writeTextFile(sb.settings, "{not json");
  await Deno.writeTextFile(sb.claudeJson, "[1,2");
  await Deno.mkdir(sb.data);
  await Deno.writeTextFile(
    sb.store,
    "this is not a database, it is a sentence long enough to be a page",
  );
  await Deno.writeTextFile(join(sb.config, "terminus.toml"), "roots = 3\n");
  const { r, data } = await doctor(sb);
  assertShape(r, data, "broken");
  assert.equal(data.settings_file.state, "problem");
  assert.equal(data.settings_file.fix, null);
  assert.doesNotMatch(data.settings_file.finding, /not json/, "the file is never printed");
  assert.equal(data.hook_SessionStart.state, "unknown");
  assert.equal(data.mcp_server.state, "problem");
  assert.equal(data.mcp_server.fix, null);
  assert.equal(data.claude_code.state, "problem");
  assert.equal(data.config_roots.state, "problem");
  assert.equal(data.config_roots.fix, null);
  assert.equal(data.store.state, "problem");
  assert.equal(data.store.fix, null);
  assert.equal(data.cleanup_period_days.state, "unknown");
  const noHome = await doctor(sb, undefined, { HOME: undefined });
  assertShape(noHome.r, noHome.data, "no HOME");
});

Deno.test({
  name: "the last run is a problem while it failed a file, with the command that runs a new pass",
  ...real,
  async fn() {
    await using sb = await setupBox();
    await wireItUp(sb);
    const db = new DatabaseSync(sb.store);
    db.exec(
      "UPDATE runs SET files_failed = 1, error = 'x.jsonl: cannot be read' WHERE id = (SELECT max(id) FROM runs)",
    );
    db.close();
    const { r, data, doc } = await doctor(sb);
    assertShape(r, data, "failed run");
    assert.equal(data.last_run.state, "problem");
    assert.match(data.last_run.finding, /failed 1 file\(s\): x\.jsonl: cannot be read/);
    assert.equal(data.last_run.fix, `${sb.link} ingest`);
    assert.equal(doc.reason, "1 problem(s): last_run");
    await settle(sb);
    const after = await doctor(sb);
    assert.equal(after.data.last_run.state, "ok", "a later clean run clears it");
  },
});

Deno.test("cleanupPeriodDays and autoCompactEnabled: user settings, then the project's two files in the cwd, last one wins", async () => {
  await using sb = await setupBox("none");
  const project = join(sb.dir, "project");
  await Deno.mkdir(join(project, ".claude"), { recursive: true });
  const write = (p: string, v: unknown) => Deno.writeTextFile(p, JSON.stringify(v));
  const check = async (env: Record<string, string | undefined> = {}) =>
    (await doctor(sb, project, env)).data;

  await write(sb.settings, { cleanupPeriodDays: 7 });
  let d = await check();
  assert.equal(d.cleanup_period_days.state, "note");
  assert.match(
    d.cleanup_period_days.finding,
    new RegExp(`^cleanupPeriodDays is 7, set in ${sb.settings}`),
  );
  assert.equal(d.cleanup_period_days.fix, `set "cleanupPeriodDays": 3650 in ${sb.settings}`);

  await write(join(project, ".claude", "settings.json"), {
    cleanupPeriodDays: 120,
    autoCompactEnabled: false,
  });
  d = await check();
  assert.equal(d.cleanup_period_days.state, "ok");
  assert.equal(d.cleanup_period_days.fix, null);
  assert.equal(d.auto_compact.state, "ok");
  assert.match(d.auto_compact.finding, /off, set in .*project\/\.claude\/settings\.json/);

  const local = join(project, ".claude", "settings.local.json");
  await write(local, { cleanupPeriodDays: 14, autoCompactEnabled: true });
  d = await check();
  assert.equal(
    d.cleanup_period_days.fix,
    `set "cleanupPeriodDays": 3650 in ${local}`,
    "the edit goes where the value wins",
  );
  assert.equal(d.auto_compact.state, "note");
  assert.equal(d.auto_compact.fix, null);

  // DISABLE_AUTO_COMPACT: anything but 0 or false is off
  assert.equal((await check({ DISABLE_AUTO_COMPACT: "1" })).auto_compact.state, "ok");
  assert.equal((await check({ DISABLE_AUTO_COMPACT: "false" })).auto_compact.state, "note");
  assert.equal((await check({ DISABLE_AUTO_COMPACT: "0" })).auto_compact.state, "note");

  await write(local, { cleanupPeriodDays: "forever", autoCompactEnabled: "sometimes" });
  d = await check();
  assert.equal(d.cleanup_period_days.state, "problem");
  assert.equal(d.cleanup_period_days.fix, null);
  assert.equal(d.auto_compact.state, "problem");
  assert.equal(d.auto_compact.fix, null);

  // run from a subfolder, the project's files are not read
  await Deno.mkdir(join(project, "sub"));
  const sub = (await doctor(sb, join(project, "sub"))).data;
  assert.match(sub.cleanup_period_days.finding, new RegExp(`set in ${sb.settings}`));

  await Deno.writeTextFile(local, "{");
  d = await check();
  assert.equal(d.cleanup_period_days.state, "unknown");
  assert.equal(d.cleanup_period_days.fix, null);
});

Deno.test("a hook entry twice is a problem with no fix; another install's entry beside ours is a note", async () => {
  await using sb = await setupBox("none");
  const ours = (e: string) => ({ type: "command", command: sb.link, args: ["hook", e] });
  const group = (...hooks: unknown[]) => ({ matcher: "", hooks });
  await Deno.writeTextFile(
    sb.settings,
    JSON.stringify({
      hooks: {
        SessionStart: [group(ours("SessionStart")), group(ours("SessionStart"))],
        SessionEnd: [
          group(ours("SessionEnd"), {
            type: "command",
            command: "/opt/old/terminus hook SessionEnd",
          }),
        ],
      },
    }),
  );
  const { data } = await doctor(sb);
  assert.equal(data.hook_SessionStart.state, "problem");
  assert.equal(data.hook_SessionStart.fix, null);
  assert.equal(data.hook_SessionEnd.state, "note");
  assert.equal(data.hook_SessionEnd.fix, null);
});

Deno.test({
  name:
    "doctor writes nothing anywhere: every file, folder, byte and mtime is the same after it runs",
  ...real,
  async fn() {
    await using sb = await setupBox();
    // before anything: the data directory it reports absent stays absent
    let before = await snapshot(sb.dir);
    const fresh = await doctor(sb);
    assert.equal(fresh.data.data_directory.state, "note");
    assert.deepEqual(diffSnapshots(before, await snapshot(sb.dir)), []);

    // installed, with a store a pass has written
    await writeTranscript(
      sb.claude,
      "/nonexistent/terminus-doctor/beta",
      "22222222-2222-4222-8222-222222222222.jsonl",
      JSON.stringify({
        type: "user",
        uuid: "u2",
        parentUuid: null,
        timestamp: "2026-08-12T21:00:00.000Z",
        cwd: "/nonexistent/terminus-doctor/beta",
        sessionId: "22222222-2222-4222-8222-222222222222",
        message: { role: "user", content: "hello" },
      }) + "\n",
    );
    await wireItUp(sb);
    before = await snapshot(sb.dir);
    const wired = await doctor(sb);
    assert.equal(wired.data.store.state, "ok");
    await runCli(sb, ["doctor"]);
    assert.deepEqual(diffSnapshots(before, await snapshot(sb.dir)), []);
  },
});

Deno.test("a working link whose folder is not on PATH is a note whose fix is the shell line", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 0\n" });
  await wireItUp(sb);
  const bin = join(sb.home, ".local", "bin");
  const { data } = await doctor(sb, undefined, { SHELL: "/bin/zsh" });
  assert.equal(data.binary.state, "note");
  assert.match(data.binary.finding, new RegExp(`${bin} is not on PATH`));
  assert.equal(data.binary.fix, `export PATH=${bin}:"$PATH"`);
  const fish = await doctor(sb, undefined, { SHELL: "/usr/bin/fish" });
  assert.equal(fish.data.binary.fix, `fish_add_path ${bin}`);
  // on PATH: ok, no fix
  const onPath = await doctor(sb, undefined, { PATH: `${bin}:${sb.env.PATH}` });
  assert.equal(onPath.data.binary.state, "ok");
  assert.equal(onPath.data.binary.fix, null);
});

Deno.test("deadline misses: each pass's notes count the drained prompts that ran late; doctor's last_run is a note past 5% of the last 100", async () => {
  await using sb = await setupBox("none");
  await oneTurnTranscript(sb, "/nonexistent/terminus-doctor/alpha");
  // the hook's queue: 100 prompts, 5 of them late (one in the note-only form of older builds)
  const queue = join(sb.data, "queue");
  await Deno.mkdir(queue, { recursive: true });
  for (let i = 0; i < 100; i++) {
    const late = i % 20 === 0;
    const doc: Record<string, unknown> = {
      session_id: "s",
      at: "2026-08-12T21:00:00.000Z",
      cwd: "/nonexistent/terminus-doctor/alpha",
      project: null,
      prompt: "p",
      spellings: [],
      candidates: [],
      injected: [],
      suppressed: [],
      compacted: false,
      dropped: 0,
      watermark: 0,
      note: late ? "past the 50 ms deadline (61 ms): nothing handed over" : null,
    };
    if (i !== 0) doc.late = late;
    await Deno.writeTextFile(
      join(queue, `${String(i).padStart(15, "0")}-q.json`),
      JSON.stringify(doc),
    );
  }
  const ingest = await runCli(sb, ["ingest"]);
  assert.equal(ingest.code, 0, ingest.err);
  const db = new DatabaseSync(sb.store);
  const notes = (db.prepare("SELECT notes FROM runs ORDER BY id DESC LIMIT 1").get() as {
    notes: string;
  }).notes;
  assert.match(notes, /100 prompt decision\(s\) logged, 5 of them past the 50 ms deadline/);
  db.close();

  let { data } = await doctor(sb);
  assert.equal(data.last_run.state, "ok", "5 of 100 is not more than 5%");

  // two more late prompts: the oldest late one leaves the window, 6 of the latest 100 remain
  for (const i of [100, 101]) {
    await Deno.writeTextFile(
      join(queue, `${String(i).padStart(15, "0")}-q.json`),
      JSON.stringify({ session_id: "s", note: "past the 50 ms deadline (70 ms)", late: true }),
    );
  }
  assert.equal((await runCli(sb, ["ingest"])).code, 0);
  const r = await doctor(sb);
  data = r.data;
  assertShape(r.r, data, "late prompts");
  assert.equal(data.last_run.state, "note");
  assert.match(data.last_run.finding, /6 of the last 100 prompt\(s\) \(6%\) .*50 ms deadline/);
});
