/**
 * Prompt recall hands over a turn only when one of its stored entities *is* what the prompt
 * names. Golden cases over one fixture session (tests/fixtures/recall/precision.jsonl), archived
 * by the real `terminus ingest` into a real store; the lookup runs in process with the hook's
 * own functions, and the brief and two prompts run through the real hook process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  cliOk,
  exists,
  fixtureText,
  query,
  REPO_DIR,
  runCli,
  type Sandbox,
  sandbox,
  writeTranscript,
} from "./helpers.ts";
import {
  additionalContext,
  hookOnTime,
  hookSandbox,
  ingestSettled,
  promptPayload,
  settleDetached,
  startPayload,
  turnIdsIn,
} from "./inject_helpers.ts";
import { openRead } from "../core/store/db.ts";
import { claimPassStart } from "../core/ingest/gate.ts";
import { PASS_STAMP_FILE, PASS_WANTED_FILE } from "../core/paths.ts";
import { recall } from "../core/inject/prompt.ts";
import { spellings } from "../core/inject/spellings.ts";
import { THRESHOLDS } from "../core/inject/thresholds.ts";
import {
  canonicalPath,
  containsWord,
  entityMatches,
  isStemOf,
  pathKeys,
  pathMatches,
} from "../core/recall/structural.ts";

const P = "/nonexistent/terminus-recall/proj";
const SID = "7e57a11d-0000-4000-8000-000000000001";
const OTHER = "7e57a11d-0000-4000-8000-0000000000ff";

async function world(sb: Sandbox): Promise<void> {
  await writeTranscript(sb.claude, P, `${SID}.jsonl`, await fixtureText("recall/precision.jsonl"));
  await ingestSettled(sb);
}

/** The turn that called `tool` with an input whose JSON contains `needle`. */
function callOf(sb: Sandbox, tool: string, needle: string): number {
  const rows = query<{ id: number }>(
    sb.store,
    `SELECT t.id AS id FROM turns t JOIN entities e ON e.turn_id = t.id
     WHERE t.tool_name = ? AND e.value LIKE ? GROUP BY t.id`,
    tool,
    `%${needle}%`,
  );
  assert.equal(rows.length, 1, `${tool} ${needle}: ${rows.length} turn(s)`);
  return rows[0].id;
}

/** What a prompt typed in the project (another session) would be handed, by turn id. */
function handed(sb: Sandbox, prompt: string): { ids: number[]; matched: string[][] } {
  const o = openRead(sb.store);
  assert.ok(o, "no store");
  try {
    const r = recall({
      db: o.db,
      vis: { project: P, exclude: [] },
      sessionId: OTHER,
      spellings: spellings(prompt, P, THRESHOLDS.max_candidates),
      thresholds: THRESHOLDS,
      suppress: new Map(),
      owedKnown: null,
      promptChars: 4000,
      filter: (s) => s,
    });
    const ids = r.injected.map((i) => i.id);
    const matched = ids.map((id) =>
      (r.selection.candidates.find((c) => c.id === id)?.matched ?? []).map((m) =>
        `${m.kind} ${m.value}`
      )
    );
    return { ids, matched };
  } finally {
    o.db.close();
  }
}

Deno.test("recall: a tool name, a command's basename or a parent folder alone never brings a turn", async () => {
  await using sb = await sandbox();
  await world(sb);
  // tool-name-only: Bash calls share only `tool Bash` with "bash_runner"
  assert.deepEqual(handed(sb, "is bash_runner still used").ids, []);
  // tool-name-only: Grep, and a helper no turn touched
  assert.deepEqual(handed(sb, "add a grep_fallback helper").ids, []);
  // a tool the prompt names is still not enough alone
  assert.deepEqual(handed(sb, "do we still call TodoWrite here").ids, []);
  // parent-folder-only: files below src/erk/git were touched, the folder itself never
  assert.deepEqual(handed(sb, "what else lives in src/erk/git").ids, []);
});

Deno.test("recall: a named path brings only the turns that touched that very file", async () => {
  await using sb = await sandbox();
  await world(sb);
  const read = callOf(sb, "Read", "src/erk/git/helpers.py");
  // command-basename-only: the `git add src/erk/git/other.py` call shares only `git`
  const r = handed(sb, "check src/erk/git/helpers.py");
  assert.deepEqual(r.ids, [read]);
  assert.deepEqual(r.matched, [[`path ${P}/src/erk/git/helpers.py`]]);
  // a suffix that is not the file: src/read/parser.ts is not src/parser.ts
  assert.deepEqual(handed(sb, "fix src/read/parser.ts").ids, []);
  // a relative path a Bash line stored matches the absolute spelling at a `/` boundary
  const bash = callOf(sb, "Bash", "scripts/run_all.py");
  assert.deepEqual(handed(sb, "run scripts/run_all.py again").ids, [bash]);
  // never touched
  assert.deepEqual(handed(sb, "fix src/never/touched.py and lib/nowhere/x.ts").ids, []);
});

Deno.test("recall: an identifier matches an equal symbol, or a command line naming it as a whole word", async () => {
  await using sb = await sandbox();
  await world(sb);
  const grep = callOf(sb, "Grep", "load_config");
  assert.deepEqual(handed(sb, "where is load_config defined?").ids, [grep]);
  const uv = callOf(sb, "Bash", "check_types");
  const r = handed(sb, "does check_types pass now");
  assert.deepEqual(r.ids, [uv]);
  assert.deepEqual(r.matched, [["symbol check_types"]]);
  // a longer identifier that merely contains the named one is another identifier
  assert.deepEqual(handed(sb, "is test_bash_runner still flaky").ids, []);
  // the parts of a path are not identifiers of their own: scripts/zz/run_all_v2.py names a file
  assert.deepEqual(handed(sb, "see scripts/zz/run_all_v2.py").ids, []);
});

Deno.test("recall: prompts that name only things never archived get nothing", async () => {
  await using sb = await sandbox();
  await world(sb);
  const never = [
    "fix the failing import in src/erk/git/zz_never/helpers.py",
    "please review src/erk/git/helpers_unseen.py",
    "is load_config_unseen still used anywhere?",
    "rename QuuxFrobnicatorFactory to FrobFactory",
    "look at src/never/here/parser_zz.ts and tests/never_zz/parser_test.py",
    "why does never_seen_function_xyz fail on CI",
    "does checkTypesStrict pass",
    "/erk:plan-implement 9999",
    "bump retryBudgetMax in src/app/main_v2.py",
    "is bash_runner_zz still used",
    // every word of these is in an archived Bash turn, but neither identifier ever was
    "is run_bash still used",
    "where did git_add_other go",
  ];
  for (const p of never) assert.deepEqual(handed(sb, p).ids, [], p);
});

Deno.test("recall: the structural rule's path and word boundaries", () => {
  assert.ok(pathMatches("/r/src/a.ts", "/r/src/a.ts"));
  assert.ok(pathMatches("src/a.ts", "/r/src/a.ts"));
  assert.ok(pathMatches("/r/src/a.ts", "src/a.ts"));
  assert.ok(pathMatches("./src/a.ts", "/r/src/a.ts"));
  assert.ok(!pathMatches("/r/src/a.ts", "/r/src")); // a parent folder
  assert.ok(!pathMatches("/r/xsrc/a.ts", "src/a.ts")); // not at a `/` boundary
  assert.ok(!pathMatches("/other/src/a.ts", "/r/src/a.ts")); // two absolute paths, unequal
  assert.deepEqual(pathKeys("/r/src/a.ts").sort(), [
    "/r/src/a.ts",
    "a.ts",
    "r/src/a.ts",
    "src/a.ts",
  ]);
  assert.equal(canonicalPath("./x/y/"), "x/y");
  // an identifier matches the file it is the stem of, and only that file
  assert.ok(entityMatches({ kind: "path", value: "/r/src/sync_cmd.py" }, "sync_cmd"));
  assert.ok(isStemOf("src/sync_cmd.MD", "sync_cmd"));
  assert.ok(!isStemOf("/r/src/sync_cmd_test.py", "sync_cmd"));
  assert.ok(!isStemOf("/r/src/sync_cmd.test.ts", "sync_cmd"));
  assert.ok(!isStemOf("/r/src/sync_cmd", "sync_cmd")); // a folder, or a file with no extension
  assert.ok(!entityMatches({ kind: "path", value: "/r/sync_cmd/x.py" }, "sync_cmd"));
  assert.ok(containsWord("uv run check_types --strict", "check_types"));
  assert.ok(!containsWord("pytest -k test_check_types_x", "check_types"));
});

Deno.test("hook: the brief quotes the person's last slash command, never a subagent's prompt, and names no HEAD branch", async () => {
  await using sb = await hookSandbox();
  await world(sb);
  const r = await hookOnTime(sb, ["SessionStart"], { stdin: startPayload(OTHER, P) });
  assert.equal(r.code, 0, r.err);
  const text = additionalContext(r, "SessionStart");
  assert.ok(text, `no brief: ${r.err}`);
  assert.match(
    text,
    /^The last session in \/nonexistent\/terminus-recall\/proj ended 2026-05-01\.$/m,
  );
  assert.doesNotMatch(text, /on branch/);
  assert.match(text, /^It last asked: \/erk:plan-implement 8511$/m);
  assert.doesNotMatch(text, /Task: inspect/);
  assert.match(text, /^It last answered: Implemented plan 8511; the helpers are tidy\.$/m);
});

Deno.test("hook UserPromptSubmit: the real hook hands over the Read of the named file and nothing for a tool's name", async () => {
  await using sb = await hookSandbox();
  await world(sb);
  const read = callOf(sb, "Read", "src/erk/git/helpers.py");
  const a = await hookOnTime(sb, ["UserPromptSubmit"], {
    stdin: promptPayload(OTHER, P, "check src/erk/git/helpers.py"),
  });
  assert.equal(a.code, 0, a.err);
  const text = additionalContext(a, "UserPromptSubmit");
  assert.ok(text, `nothing handed over: ${a.err}`);
  assert.deepEqual(turnIdsIn(text), [read]);
  const b = await hookOnTime(sb, ["UserPromptSubmit"], {
    stdin: promptPayload(OTHER, P, "is bash_runner still used"),
  });
  assert.equal(b.code, 0, b.err);
  assert.equal(b.out, "");
});

Deno.test("an installed terminus answers for the directory it runs in, whatever INIT_CWD says; `deno task terminus` for where it was typed", async () => {
  await using sb = await sandbox();
  const here = join(sb.dir, "work", "here");
  const there = join(sb.dir, "work", "there");
  await Deno.mkdir(here, { recursive: true });
  await Deno.mkdir(there, { recursive: true });
  const line = (cwd: string, id: string) =>
    JSON.stringify({
      type: "user",
      uuid: `${id.slice(0, 8)}-0000-4000-8000-000000000001`,
      sessionId: id,
      cwd,
      timestamp: "2026-05-01T10:00:00Z",
      message: { role: "user", content: `hello from ${cwd}` },
    }) + "\n";
  const idHere = "aaaaaaaa-0000-4000-8000-000000000001";
  const idThere = "bbbbbbbb-0000-4000-8000-000000000001";
  await writeTranscript(sb.claude, here, `${idHere}.jsonl`, line(here, idHere));
  await writeTranscript(sb.claude, there, `${idThere}.jsonl`, line(there, idThere));
  await cliOk(sb, ["ingest"]);
  // An npm-started shell carries INIT_CWD; the program must not follow it.
  const r = await cliOk(sb, ["sessions", "--json"], { cwd: here, env: { INIT_CWD: there } });
  const doc = JSON.parse(r.out);
  const keys = JSON.stringify(doc);
  assert.ok(keys.includes(idHere), keys);
  assert.ok(!keys.includes(idThere), keys);
  // The dev entry: typed in `there`, run by `deno task` in the checkout.
  const t = await new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "--config", join(REPO_DIR, "deno.json"), "terminus", "sessions", "--json"],
    cwd: there,
    env: { ...sb.env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(t.stdout);
  assert.equal(t.code, 0, new TextDecoder().decode(t.stderr));
  assert.ok(out.includes(idThere), out);
  assert.ok(!out.includes(idHere), out);
});

Deno.test("hook pass gate: a prompt's hook starts a pass only when none started in the last 3 s; session start and end always do", async () => {
  await using sb = await sandbox();
  const t = Date.parse("2026-05-01T10:00:00Z");
  assert.equal(claimPassStart(sb.data, false, t), true); // nothing started yet
  assert.equal(claimPassStart(sb.data, false, t + 1_000), false);
  assert.equal(claimPassStart(sb.data, false, t + 2_999), false);
  assert.equal(claimPassStart(sb.data, true, t + 2_999), true); // SessionStart / SessionEnd
  assert.equal(claimPassStart(sb.data, false, t + 4_000), false); // counted from that start
  assert.equal(claimPassStart(sb.data, false, t + 6_000), true);
  // Another hook deciding this very moment (it holds the stamp's lock): not one more.
  const f = await Deno.open(join(sb.data, PASS_STAMP_FILE), { read: true, write: true });
  try {
    assert.equal(f.tryLockSync(true), true);
    assert.equal(claimPassStart(sb.data, false, t + 60_000), false);
    assert.equal(claimPassStart(sb.data, true, t + 60_000), true);
  } finally {
    f.close();
  }
});

/** A one-prompt transcript of session OTHER in project P, its record's uuid ending in `n`. */
async function oneLine(sb: Sandbox, n: number): Promise<void> {
  const line = JSON.stringify({
    type: "user",
    uuid: `cccccccc-0000-4000-8000-${String(n).padStart(12, "0")}`,
    sessionId: OTHER,
    cwd: P,
    timestamp: "2026-05-01T10:00:00Z",
    message: { role: "user", content: "hello" },
  }) + "\n";
  await writeTranscript(sb.claude, P, `${OTHER}.jsonl`, line);
}

Deno.test("the pass the launcher starts for a prompt takes the gate itself; its hook starts none", async () => {
  await using sb = await hookSandbox();
  await oneLine(sb, 2);
  const gated = { env: { TERMINUS_PASS_GATE: "1" } };
  // the hook, told the launcher started its pass, starts none and leaves the gate alone
  const r = await hookOnTime(sb, ["UserPromptSubmit"], {
    stdin: promptPayload(OTHER, P, "hello there"),
    env: { TERMINUS_LAUNCHER_PASS: "1" },
  });
  assert.equal(r.code, 0, r.err);
  await settleDetached(sb);
  assert.equal(await exists(sb.store), false, "the hook started a pass");
  assert.equal(await exists(join(sb.data, PASS_STAMP_FILE)), false, "the hook took the gate");
  // a pass started inside 3 s of another does nothing
  assert.equal(claimPassStart(sb.data, false), true);
  const early = await runCli(sb, ["ingest"], gated);
  assert.equal(early.code, 0, early.err);
  assert.equal(await exists(sb.store), false, "a gated pass archived");
  // one started after takes the gate and archives; a pass typed by hand ignores the gate
  const stamp = join(sb.data, PASS_STAMP_FILE);
  const past = new Date(Date.now() - 10_000);
  await Deno.utime(stamp, past, past);
  const late = await runCli(sb, ["ingest"], gated);
  assert.equal(late.code, 0, late.err);
  assert.equal(query<{ n: number }>(sb.store, "SELECT count(*) AS n FROM sessions")[0].n, 1);
  assert.ok(Date.now() - (await Deno.stat(stamp)).mtime!.getTime() < 5_000, "stamp not taken");
  assert.equal(await exists(join(sb.data, PASS_WANTED_FILE)), false, "a finished pass's marker");
  const runs = () => query<{ n: number }>(sb.store, "SELECT count(*) AS n FROM runs")[0].n;
  const before = runs();
  assert.equal((await runCli(sb, ["ingest"], gated)).code, 0);
  assert.equal(runs(), before, "a second gated pass inside 3 s ran");
  assert.equal((await runCli(sb, ["ingest"])).code, 0);
  assert.equal(runs(), before + 1, "a pass typed by hand waits for no gate");
});

Deno.test("hook: a prompt right after a pass was started starts none; SessionEnd starts one", async () => {
  await using sb = await hookSandbox();
  await oneLine(sb, 1);
  assert.equal(claimPassStart(sb.data, false), true); // as if a hook had just started one
  const r = await hookOnTime(sb, ["UserPromptSubmit"], {
    stdin: promptPayload(OTHER, P, "hello there"),
  });
  assert.equal(r.code, 0, r.err);
  await settleDetached(sb);
  assert.equal(await exists(sb.store), false, "the prompt's hook started a pass");
  const e = await hookOnTime(sb, ["SessionEnd"], {
    stdin: JSON.stringify({ hook_event_name: "SessionEnd", session_id: OTHER, cwd: P }),
  });
  assert.equal(e.code, 0, e.err);
  await settleDetached(sb);
  assert.equal(query<{ n: number }>(sb.store, "SELECT count(*) AS n FROM sessions")[0].n, 1);
});
