/**
 * terminus sessions as a person uses it: numbers and titles, references, show, export, name,
 * tag and untag, and the names and tags surviving what the store goes through.
 * Golden files live in tests/fixtures/sessions/; UPDATE_GOLDEN=1 rewrites them.
 */
import { ACTIVE_GAP_CAP_SECONDS } from "../core/constants.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { FIXTURES_DIR, writeConfig } from "./helpers.ts";
import { ingest, put, Transcript, type World, world } from "./read_helpers.ts";

const GOLDEN = join(FIXTURES_DIR, "sessions");
const SID = "5e0a1c2d-3b4f-4a6e-8f15-b02a7d9e4c61";
const SID_OTHER = "5e0a1c99-0000-4000-8000-000000000002";
const SID_PLAIN = "70000000-0000-4000-8000-000000000007";

/** Compares with (or, under UPDATE_GOLDEN=1, writes) a golden file; `cwd` reads as @CWD@. */
async function golden(name: string, actual: string, cwd: string): Promise<void> {
  const text = actual.replaceAll(cwd, "@CWD@");
  const path = join(GOLDEN, name);
  if (Deno.env.get("UPDATE_GOLDEN") === "1") {
    await Deno.writeTextFile(path, text);
    return;
  }
  assert.equal(text, await Deno.readTextFile(path), `golden ${name}`);
}

interface Fixture {
  w: World;
  alpha: string;
  at: { cwd: string };
  /** The transcript file of the titled session. */
  file: string;
}

/** Three sessions and a subagent, every title source among them, fixed times throughout. */
async function fixture(toml?: string): Promise<Fixture> {
  const w = await world(toml);
  const alpha = w.dir("alpha");
  const s = new Transcript({ sessionId: SID, cwd: alpha, start: "2026-03-01T09:00:00.000Z" });
  s.state({ type: "summary", summary: "An older summary", leafUuid: "x" });
  s.user("find where the retry budget is set\nand explain it, <b>please</b> \u001b[31m");
  s.toolUse("Read", { file_path: join(alpha, "src/worker.ts") }, "Looking at the worker.");
  s.toolResult(Array.from({ length: 12 }, (_, i) => `${i + 1}\tline ${i + 1} & <tag>`).join("\n"));
  s.toolUse("Bash", { command: "cargo test -p core", description: "run the tests" });
  s.toolResult("error: could not compile `core`", { isError: true });
  s.state({ type: "ai-title", aiTitle: "Retry budget hunt", sessionId: SID });
  s.turn("system", {
    subtype: "compact_boundary",
    content: "Conversation compacted",
    compactMetadata: { trigger: "auto", preTokens: 169221 },
  });
  s.turn("user", {
    isCompactSummary: true,
    message: { role: "user", content: "This session is being continued ..." },
  });
  s.user("<command-name>/rename</command-name><command-args>retry budget</command-args>");
  s.state({ type: "custom-title", customTitle: "Retry budget, found", sessionId: SID });
  s.at("2026-03-01T09:42:05.000Z").assistant("It is **3**, set in `src/worker.ts` line 1.");
  const file = await put(w, s);
  const side = new Transcript({
    sessionId: SID,
    cwd: alpha,
    start: "2026-03-01T09:10:00.000Z",
    sidechain: true,
  });
  side.user("list every caller of retryBudget");
  side.at("2026-03-01T09:11:00.000Z").assistant("Two callers.");
  await put(w, side, `${SID}/subagents/agent-a1.jsonl`);
  const o = new Transcript({ sessionId: SID_OTHER, cwd: alpha, start: "2026-03-02T10:00:00.000Z" });
  o.state({ type: "ai-title", aiTitle: "Second look", sessionId: SID_OTHER });
  o.state({ type: "summary", summary: "Summary after the ai-title", leafUuid: "y" });
  o.user("second look at the budget");
  await put(w, o);
  const p = new Transcript({ sessionId: SID_PLAIN, cwd: alpha, start: "2026-03-03T08:00:00.000Z" });
  p.user(
    "  a plain session whose first prompt is rather long, longer than eighty characters by some way  ",
  );
  p.at("2026-03-03T08:00:30.000Z").assistant("ok");
  await put(w, p);
  await ingest(w);
  return { w, alpha, at: { cwd: alpha }, file };
}

interface View {
  session_no: number;
  session_key: string;
  title: string | null;
  title_source: string | null;
  tags: string[];
  name: string | null;
  resume: string | null;
  duration_seconds: number | null;
}

async function list(f: Fixture, ...args: string[]): Promise<View[]> {
  return (await f.w.json(["sessions", ...args], f.at)).data.sessions as View[];
}

async function numberOf(f: Fixture, key: string): Promise<number> {
  return (await list(f)).find((v) => v.session_key === key)!.session_no;
}

/** Every name and tag row, for "changes nothing" checks. */
function handles(store: string): string {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    return JSON.stringify([
      db.prepare("SELECT session_no, name FROM session_names ORDER BY 1").all(),
      db.prepare("SELECT session_no, tag FROM session_tags ORDER BY 1, 2").all(),
    ]);
  } finally {
    db.close();
  }
}

Deno.test("sessions: numbered oldest first, --json in number order, titled in priority order, duration last", async () => {
  const f = await fixture();
  await using _ = f.w;
  const views = await list(f);
  assert.deepEqual(views.map((v) => v.session_key), [
    `${SID}.jsonl`,
    `${SID}/subagents/agent-a1.jsonl`,
    `${SID_OTHER}.jsonl`,
    `${SID_PLAIN}.jsonl`,
  ]);
  assert.deepEqual(views.map((v) => v.session_no), [1, 2, 3, 4]);
  const by = new Map(views.map((v) => [v.session_key, v]));
  assert.equal(by.get(`${SID}.jsonl`)!.title, "Retry budget, found");
  assert.equal(by.get(`${SID}.jsonl`)!.title_source, "custom-title");
  // the ai-title outranks a summary written after it
  assert.equal(by.get(`${SID_OTHER}.jsonl`)!.title, "Second look");
  assert.equal(by.get(`${SID_OTHER}.jsonl`)!.title_source, "ai-title");
  const plain = by.get(`${SID_PLAIN}.jsonl`)!;
  assert.equal(plain.title_source, "prompt");
  assert.equal([...plain.title!].length, 80, "the first prompt is cut at 80 characters");
  assert.ok(plain.title!.startsWith("a plain session whose first prompt"));
  assert.equal(
    by.get(`${SID}/subagents/agent-a1.jsonl`)!.title,
    "list every caller of retryBudget",
  );
  // active time: 7 s of turns, then a 42-minute gap counted as ACTIVE_GAP_CAP_SECONDS
  assert.equal(by.get(`${SID}.jsonl`)!.duration_seconds, ACTIVE_GAP_CAP_SECONDS + 7);
  assert.equal(
    by.get(`${SID}.jsonl`)!.resume,
    `cd ${f.alpha} && claude --resume ${SID}`,
  );
  assert.equal(by.get(`${SID}/subagents/agent-a1.jsonl`)!.resume, null, "a sidecar has no resume");
  // --limit keeps the newest, under --json as in the human list
  assert.deepEqual(
    (await list(f, "--limit", "1")).map((v) => v.session_key),
    [`${SID_PLAIN}.jsonl`],
  );
  const newest = await f.w.run(["sessions", "--limit", "1"], f.at);
  assert.match(newest.out, new RegExp(`^#4 .*${SID_PLAIN}\\.jsonl`));
  assert.equal(newest.out.trim().split("\n").length, 1);
  const r = await f.w.run(["sessions"], f.at);
  assert.equal(r.code, 0, r.err);
  await golden("list.txt", r.out, f.alpha);

  // a name outranks everything Claude Code wrote
  const no = by.get(`${SID}.jsonl`)!.session_no;
  const named = await f.w.run(["sessions", "name", String(no), "My own name"], f.at);
  assert.equal(named.code, 0, named.err);
  const after = (await list(f)).find((v) => v.session_no === no)!;
  assert.equal(after.title, "My own name");
  assert.equal(after.title_source, "name");
  assert.equal((await f.w.run(["sessions", "name", String(no), "--clear"], f.at)).code, 0);
  assert.equal((await list(f)).find((v) => v.session_no === no)!.title, "Retry budget, found");
});

Deno.test("session references: number, #number, UUID, prefix, path; unknown, ambiguous and excluded", async () => {
  const f = await fixture();
  await using _ = f.w;
  const no = await numberOf(f, `${SID}.jsonl`);
  const sideNo = await numberOf(f, `${SID}/subagents/agent-a1.jsonl`);
  const shown = async (ref: string) => {
    const env = await f.w.json(["sessions", "show", ref], f.at);
    return (env.data as { session: View }).session.session_no;
  };
  assert.equal(await shown(String(no)), no);
  assert.equal(await shown(`#${no}`), no);
  assert.equal(await shown(SID), no);
  assert.equal(await shown(SID.toUpperCase()), no);
  assert.equal(await shown(SID.slice(0, 10)), no);
  assert.equal(await shown(f.file), no);
  assert.equal(await shown(join(f.w.sb.claude, "projects", "x", `${SID}.jsonl`)), no, "by key");
  assert.equal(
    await shown(join(f.file.slice(0, -6), "subagents", "agent-a1.jsonl")),
    sideNo,
    "a subagent by its path",
  );

  const ambiguous = await f.w.run(["sessions", "show", "5e0a1c"], f.at);
  assert.equal(ambiguous.code, 1);
  assert.equal(ambiguous.out, "");
  assert.match(ambiguous.err, /'5e0a1c' matches 2 sessions: .*5e0a1c2d.*5e0a1c99/);
  for (const ref of ["999", "#999", "abcdef12"]) {
    const r = await f.w.run(["sessions", "show", ref], f.at);
    assert.equal(r.code, 1, ref);
    assert.match(r.err, new RegExp(`no archived session matches '${ref}'`));
  }
  const json = await f.w.run(["sessions", "show", "999", "--json"], f.at);
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.out).ok, false);
  for (const ref of ["5e0a", "hello", "#x"]) {
    const r = await f.w.run(["sessions", "show", ref], f.at);
    assert.equal(r.code, 2, ref);
    assert.equal(r.out, "");
  }
  // an excluded project is never reachable, by number or by UUID
  await writeConfig(f.w.sb, `exclude = ["${f.alpha}"]\n`);
  for (const ref of [String(no), SID]) {
    const r = await f.w.run(["sessions", "show", ref], f.at);
    assert.equal(r.code, 1, ref);
    assert.doesNotMatch(r.out + r.err, /Retry budget/);
  }
  assert.equal((await f.w.run(["sessions", "tag", String(no), "x"], f.at)).code, 1);
});

Deno.test("sessions show: the conversation, folded results, escapes; --full and --json", async () => {
  const f = await fixture();
  await using _ = f.w;
  const no = await numberOf(f, `${SID}.jsonl`);
  const r = await f.w.run(["sessions", "show", String(no)], f.at);
  assert.equal(r.code, 0, r.err);
  assert.ok(!r.out.includes("\u001b"), "no raw ESC from the transcript, no styling off a TTY");
  assert.match(r.out, /\\u001b\[31m/);
  await golden("show.txt", r.out, f.alpha);
  const full = await f.w.run(["sessions", "show", String(no), "--full"], f.at);
  assert.match(full.out, /line 12 & <tag>/);
  assert.doesNotMatch(full.out, /more line\(s\)/);
  const env = await f.w.json(["sessions", "show", String(no)], f.at);
  const msgs = (env.data as { messages: Record<string, unknown>[] }).messages;
  assert.deepEqual(msgs.map((m) => m.type), [
    "prompt",
    "text",
    "tool_call",
    "tool_call",
    "compaction",
    "command",
    "subagent",
    "text",
  ]);
  const read = msgs[2] as { tool: string; result: { lines: number; folded: boolean } };
  assert.equal(read.tool, "Read");
  assert.equal(read.result.lines, 12);
  assert.equal(read.result.folded, true);
  assert.equal((msgs[3] as { result: { is_error: boolean } }).result.is_error, true);
  assert.equal(
    (msgs[6] as { session_no: number }).session_no,
    await numberOf(f, `${SID}/subagents/agent-a1.jsonl`),
  );
  assert.equal((msgs[5] as { text: string }).text, "/rename retry budget");
});

/** Runs the CLI under a pseudo-terminal (util-linux `script`), rows as given. */
async function onTty(
  f: Fixture,
  args: string[],
  env: Record<string, string | undefined>,
  rows = 0,
) {
  const { cliArgs } = await import("./helpers.ts");
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = [Deno.execPath(), ...cliArgs(args)].map(q).join(" ");
  const size = rows > 0 ? `stty rows ${rows} cols 120; ` : "stty rows 0 cols 0; ";
  const e: Record<string, string> = { ...f.w.sb.env };
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete e[k];
    else e[k] = v;
  }
  const o = await new Deno.Command("script", {
    args: ["-qec", size + cmd, "/dev/null"],
    cwd: f.alpha,
    env: e,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: o.code, out: new TextDecoder().decode(o.stdout).replaceAll("\r\n", "\n") };
}

const hasScript = (() => {
  try {
    return new Deno.Command("script", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();

Deno.test({
  name: "sessions show on a terminal: bold and dim roles, NO_COLOR plain, pager for long output",
  ignore: !hasScript,
  async fn() {
    const f = await fixture();
    await using _ = f.w;
    const no = String(await numberOf(f, `${SID}.jsonl`));
    const styled = await onTty(f, ["sessions", "show", no], { NO_COLOR: undefined });
    assert.equal(styled.code, 0, styled.out);
    assert.ok(styled.out.includes("\u001b[1myou\u001b[0m"), "the role is bold");
    assert.ok(styled.out.includes("\u001b[2m"), "times and tool lines are dim");
    assert.match(styled.out, /\\u001b\[31m/, "the transcript's own ESC is still escaped");
    await golden("show.tty.txt", styled.out, f.alpha);
    const plain = await onTty(f, ["sessions", "show", no], { NO_COLOR: "1" });
    assert.ok(!plain.out.includes("\u001b"));

    // taller than the screen: through $PAGER (here a program that keeps what it is given)
    const kept = join(f.w.sb.dir, "paged.txt");
    const pager = join(f.w.sb.dir, "pager.ts");
    await Deno.writeTextFile(
      pager,
      `const b = new Uint8Array(await new Response(Deno.stdin.readable).arrayBuffer());\n` +
        `Deno.writeFileSync(${JSON.stringify(kept)}, b);\n`,
    );
    // the runtime by its full path: the program may run itself only by that path
    const PAGER = `${Deno.execPath()} run --quiet --allow-write=${kept} ${pager}`;
    const paged = await onTty(f, ["sessions", "show", no], { NO_COLOR: "1", PAGER }, 10);
    assert.equal(paged.code, 0, paged.out);
    assert.match(await Deno.readTextFile(kept), /Retry budget, found/);
    assert.doesNotMatch(paged.out, /Retry budget, found/, "the pager had it, not the terminal");
    await Deno.remove(kept);
    const direct = await onTty(
      f,
      ["sessions", "show", no, "--no-pager"],
      { NO_COLOR: "1", PAGER },
      10,
    );
    assert.match(direct.out, /Retry budget, found/);
    const tall = await onTty(f, ["sessions", "show", no], { NO_COLOR: "1", PAGER }, 200);
    assert.match(tall.out, /Retry budget, found/, "output shorter than the screen is printed");
    assert.ok(!(await Deno.stat(kept).then(() => true, () => false)));
  },
});

Deno.test("sessions export: md, html and jsonl to stdout or a file", async () => {
  const f = await fixture();
  await using _ = f.w;
  const no = String(await numberOf(f, `${SID}.jsonl`));
  const md = await f.w.run(["sessions", "export", no, "--format", "md"], f.at);
  assert.equal(md.code, 0, md.err);
  await golden("export.md", md.out, f.alpha);
  const html = await f.w.run(["sessions", "export", no, "--format", "html"], f.at);
  assert.equal(html.code, 0, html.err);
  await golden("export.html", html.out, f.alpha);
  assert.doesNotMatch(html.out, /<script|src=|href=|url\(/i, "self-contained, no script");
  assert.doesNotMatch(html.out, /<b>please/);
  assert.match(html.out, /&lt;b&gt;please&lt;\/b&gt;/);
  assert.match(html.out, /<details class="tool">/);
  assert.match(html.out, /prefers-color-scheme: dark/);
  const jsonl = await f.w.run(["sessions", "export", no, "--format", "jsonl"], f.at);
  assert.deepEqual(jsonl.stdout, await Deno.readFile(f.file), "jsonl is the archive byte for byte");
  const target = join(f.w.sb.dir, "out.html");
  const env = await f.w.json(["sessions", "export", no, target, "--format", "html"], f.at);
  assert.equal((env.data as { path: string }).path, target);
  assert.equal(await Deno.readTextFile(target), html.out);
  assert.equal((await Deno.stat(target)).mode! & 0o777, 0o600);
  for (
    const bad of [["--format", "pdf"], [], ["--format", "jsonl", "--raw"], [
      "--format",
      "md",
      "--json",
    ]]
  ) {
    const r = await f.w.run(["sessions", "export", no, ...bad], f.at);
    assert.equal(r.code, 2, bad.join(" "));
    assert.equal(r.out, "");
  }
});

Deno.test("sessions export md/html follow redact_recall; --raw and jsonl do not", async () => {
  const f = await fixture(`[privacy]\nredact_recall = true\n`);
  await using _ = f.w;
  const secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
  const t = new Transcript({
    sessionId: "80000000-0000-4000-8000-000000000008",
    cwd: f.alpha,
    start: "2026-03-04T08:00:00.000Z",
  });
  t.user(`use the token ${secret} please`);
  const file = await put(f.w, t);
  await ingest(f.w);
  const ref = "80000000-0000-4000-8000-000000000008";
  for (const format of ["md", "html"]) {
    const r = await f.w.run(["sessions", "export", ref, "--format", format], f.at);
    assert.equal(r.code, 0, r.err);
    assert.ok(!r.out.includes(secret), format);
    const raw = await f.w.run(["sessions", "export", ref, "--format", format, "--raw"], f.at);
    assert.ok(raw.out.includes(secret), `${format} --raw`);
  }
  const shown = await f.w.run(["sessions", "show", ref], f.at);
  assert.ok(!shown.out.includes(secret), "show is filtered too");
  const jsonl = await f.w.run(["sessions", "export", ref, "--format", "jsonl"], f.at);
  assert.deepEqual(jsonl.stdout, await Deno.readFile(file));
});

Deno.test("sessions name/tag/untag: rules, --tag filter, bad input changes nothing", async () => {
  const f = await fixture();
  await using _ = f.w;
  const no = String(await numberOf(f, `${SID}.jsonl`));
  const other = String(await numberOf(f, `${SID_OTHER}.jsonl`));
  assert.equal(
    (await f.w.run(["sessions", "tag", no, "bughunt", "auth", "v1.2_x-y"], f.at)).code,
    0,
  );
  assert.equal((await f.w.run(["sessions", "tag", other, "auth"], f.at)).code, 0);
  const tagged = (await list(f)).find((v) => v.session_no === Number(no))!;
  assert.deepEqual(tagged.tags, ["auth", "bughunt", "v1.2_x-y"]);
  assert.deepEqual(
    (await list(f, "--tag", "auth")).map((v) => v.session_no).sort(),
    [Number(no), Number(other)].sort(),
  );
  assert.deepEqual((await list(f, "--tag", "auth", "--tag", "bughunt")).map((v) => v.session_no), [
    Number(no),
  ]);
  assert.equal((await f.w.run(["sessions", "untag", no, "auth"], f.at)).code, 0);
  assert.deepEqual((await list(f, "--tag", "auth")).map((v) => v.session_no), [Number(other)]);
  assert.equal((await f.w.run(["sessions", "name", no, "investigate auth flow"], f.at)).code, 0);

  const before = handles(f.w.sb.store);
  const bad: string[][] = [
    ["sessions", "tag", no, "ok", "has space"],
    ["sessions", "tag", no, "x".repeat(33)],
    ["sessions", "tag", no, "é"],
    ["sessions", "tag", no],
    ["sessions", "untag", no, "BAD ONE"],
    ["sessions", "name", no, "x".repeat(201)],
    ["sessions", "name", no, "two\nlines"],
    ["sessions", "name", no, "esc \u001b[31m"],
    ["sessions", "name", no, "c1 \u009b"],
    ["sessions", "name", no, "   "],
    ["sessions", "name", no],
    ["sessions", "name", no, "a", "b"],
    ["sessions", "--tag", "NO PE"],
    ["sessions", "show", no, "--tag", "x"],
    ["sessions", "bogus"],
    ["sessions", "--limit", "2", "show", no],
  ];
  for (const args of bad) {
    const r = await f.w.run(args, f.at);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.out, "", args.join(" "));
    assert.equal(r.err.split("\n")[0].startsWith("terminus: "), true, args.join(" "));
  }
  assert.equal((await f.w.run(["sessions", "tag", "999", "ok"], f.at)).code, 1);
  // capitals are lowercased rather than refused: one tag, one spelling
  const upper = await f.w.run(["sessions", "tag", other, "Upper"], f.at);
  assert.equal(upper.code, 0, upper.err);
  assert.deepEqual((await list(f, "--tag", "UPPER")).map((v) => v.session_no), [Number(other)]);
  await f.w.run(["sessions", "untag", other, "upper"], f.at);
  assert.equal(handles(f.w.sb.store), before, "no bad input changed a name or a tag");
  assert.equal(
    (await f.w.run(["sessions", "name", no, "x".repeat(200)], f.at)).code,
    0,
    "200 is allowed",
  );
  assert.equal(
    (await f.w.run(["sessions", "tag", no, "x".repeat(32)], f.at)).code,
    0,
    "32 is allowed",
  );
});

Deno.test("names and tags survive a snapshot, reindex, evict, compact and data move; delete takes them; usage counts them", async () => {
  const f = await fixture();
  await using _ = f.w;
  const no = String(await numberOf(f, `${SID}.jsonl`));
  const plain = String(await numberOf(f, `${SID_PLAIN}.jsonl`));
  await f.w.run(["sessions", "name", no, "kept name"], f.at);
  await f.w.run(["sessions", "tag", no, "keep", "me"], f.at);
  await f.w.run(["sessions", "tag", plain, "doomed"], f.at);
  const mine = async () => (await list(f)).find((v) => v.session_no === Number(no))!;
  const check = async (when: string) => {
    const v = await mine();
    assert.equal(v.title, "kept name", when);
    assert.deepEqual(v.tags, ["keep", "me"], when);
  };
  const usage = async () => (await f.w.json(["usage"], f.at)).data as Record<string, unknown>;
  assert.deepEqual((await usage()).handles, { named: 1, tagged: 2, tags: 3 });

  // a snapshot taken now carries them
  const snaps = join(f.w.sb.data, "snapshots");
  await Deno.remove(snaps, { recursive: true }).catch(() => {});
  await ingest(f.w);
  const [snap] = [...Deno.readDirSync(snaps)].map((e) => join(snaps, e.name));
  const sdb = new DatabaseSync(snap, { readOnly: true });
  try {
    assert.deepEqual(
      sdb.prepare("SELECT name FROM session_names").all().map((r) => r.name),
      ["kept name"],
    );
    assert.equal(
      (sdb.prepare("SELECT count(*) AS n FROM session_tags").get() as { n: number }).n,
      3,
    );
  } finally {
    sdb.close();
  }

  assert.equal((await f.w.run(["reindex"], f.at)).code, 0);
  await check("after reindex");
  assert.equal((await list(f)).find((v) => v.session_no === Number(plain))!.title_source, "prompt");

  await writeConfig(f.w.sb, `[retention]\naction = "evict"\nage_days = 1\n`);
  await ingest(f.w);
  assert.equal(
    ((await f.w.json(["sessions"], f.at)).data as { sessions: { evicted: boolean }[] }).sessions
      .every((s) => s.evicted),
    true,
  );
  await check("after evict");
  assert.equal((await mine()).title, "kept name");
  const evictedShow = await f.w.run(["sessions", "show", no], f.at);
  assert.equal(evictedShow.code, 0);
  assert.match(evictedShow.out, /evicted by retention/);
  assert.equal((await f.w.run(["compact"], f.at)).code, 0);
  await check("after compact");
  // a titled session keeps its transcript titles once its text is gone
  assert.equal(
    (await list(f)).find((v) => v.session_key === `${SID_OTHER}.jsonl`)!.title,
    "Second look",
  );

  const target = join(f.w.sb.dir, "moved");
  const moved = await f.w.run(["data", "move", target, "-y"], f.at);
  assert.equal(moved.code, 0, moved.err);
  f.w.sb.env.TERMINUS_DATA_DIR = target; // the sandbox names the data directory itself
  await check("after data move");

  // delete: only a session whose transcript is gone; its name and tags go with it
  await Deno.remove(join(f.w.sb.claude, "projects"), { recursive: true });
  await writeConfig(f.w.sb, `[retention]\naction = "delete"\nage_days = 1\n`);
  await ingest(f.w);
  assert.deepEqual(await list(f, "--project", "*"), []);
  assert.deepEqual((await usage()).handles, { named: 0, tagged: 0, tags: 0 });
  const db = new DatabaseSync(join(target, "terminus.db"), { readOnly: true });
  try {
    for (const t of ["session_names", "session_tags", "session_titles"]) {
      assert.equal((db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n, 0, t);
    }
  } finally {
    db.close();
  }
});

Deno.test("a store made before titles and names: readers cope, the next pass adds the tables and reads the titles", async () => {
  const f = await fixture();
  await using _ = f.w;
  // take the store back to the shape an earlier build left
  const db = new DatabaseSync(f.w.sb.store);
  db.exec(`DROP TABLE session_names; DROP TABLE session_tags; DROP TABLE session_titles;
    DELETE FROM meta WHERE key = 'sessions_schema';`);
  db.close();
  const old = await list(f);
  assert.equal(old.length, 4);
  assert.ok(old.every((v) => v.title === null && v.tags.length === 0));
  assert.deepEqual(await list(f, "--tag", "x"), []);
  assert.equal(
    ((await f.w.json(["usage"], f.at)).data as { handles: { named: number } }).handles.named,
    0,
  );
  await ingest(f.w);
  const now = await list(f);
  assert.equal(now.find((v) => v.session_key === `${SID}.jsonl`)!.title, "Retry budget, found");
  assert.equal(now.find((v) => v.session_key === `${SID_PLAIN}.jsonl`)!.title_source, "prompt");
  const st = await f.w.json(["status"], f.at);
  assert.match(JSON.stringify(st.data), /titles read for 4 session\(s\)/);
  assert.equal((await f.w.run(["sessions", "tag", "1", "now-works"], f.at)).code, 0);
});

Deno.test("search answers a session's title apart from its hits; every hit carries its session's number and title", async () => {
  const f = await fixture();
  await using _ = f.w;
  const no = await numberOf(f, `${SID}.jsonl`);
  type Hit = {
    turn_id: number;
    session_no: number;
    title: string | null;
    matched_on: { kind: string; value: string }[];
    excerpt: string;
  };
  type Title = { session_no: number; title: string };
  const answer = async (...words: string[]) =>
    (await f.w.json(["search", ...words], f.at)).data as { hits: Hit[]; titles?: Title[] };
  // "found" is in no turn, only in the /rename title: under the spec's rule (--strict) no turn
  // hit, one title; without it, the turns holding "budget" follow as further answers, marked
  const found = await answer("--strict", "budget", "found");
  assert.deepEqual(found.hits, []);
  const further = (await answer("budget", "found")).hits as (Hit & { match: string })[];
  assert.ok(further.length > 0 && further.every((h) => h.match === "any_word"));
  assert.deepEqual(found.titles, [{
    session_no: no,
    session_key: `${SID}.jsonl`,
    project: found.titles![0] && (found.titles![0] as unknown as { project: string }).project,
    ts: (found.titles![0] as unknown as { ts: string }).ts,
    title: "Retry budget, found",
    relevance: (found.titles![0] as unknown as { relevance: number }).relevance,
  }]);
  const human = await f.w.run(["search", "--strict", "budget", "found"], f.at);
  assert.match(human.out, /^ {4}title: Retry budget, found$/m);
  // a name set with `sessions name` is searchable at once
  await f.w.run(["sessions", "name", String(no), "zebra crossing"], f.at);
  const zebra = await answer("zebra");
  assert.deepEqual(zebra.hits, []);
  assert.deepEqual(zebra.titles?.map((t) => t.session_no), [no]);
  // another project's session titled alike is outside the scope (the current project's)
  const betaId = "b0000000-0000-4000-8000-00000000000b";
  const beta = new Transcript({
    sessionId: betaId,
    cwd: f.w.dir("beta"),
    start: "2026-03-04T08:00:00.000Z",
  });
  beta.state({ type: "ai-title", aiTitle: "Zebra stripes", sessionId: betaId });
  beta.user("count the stripes");
  await put(f.w, beta);
  await ingest(f.w);
  assert.deepEqual((await answer("zebra")).titles?.map((t) => t.session_no), [no]);
  const mixed = await answer("budget");
  assert.ok(mixed.hits.length > 1);
  assert.ok(mixed.hits.every((h) => h.title !== null && typeof h.session_no === "number"));
  assert.ok(mixed.hits.every((h) => h.matched_on.every((m) => m.kind !== "title")));
  // a filter that no title can meet leaves titles out
  const bash = (await f.w.json(["search", "zebra", "--tool", "Bash"], f.at)).data;
  assert.deepEqual(bash, { query: "zebra", truncated: false, hits: [] });
  // the first prompt is found as the turn it is, not a second time as a title
  const plain = await answer("plain", "session", "whose");
  assert.equal(plain.hits.length, 1);
  assert.equal(plain.titles, undefined);
});

Deno.test("a session opened with a slash command is titled by it; a harness-written record is not a title", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const sid = "a0000000-0000-4000-8000-00000000000a";
  const t = new Transcript({ sessionId: sid, cwd: alpha, start: "2026-03-05T08:00:00.000Z" });
  t.user("<local-command-caveat>Caveat: the messages below were generated</local-command-caveat>");
  t.user(
    "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>PR 12</command-args>",
  );
  t.user("# /review\n\nExpanded skill text", { isMeta: true });
  t.user("and then a typed prompt");
  await put(w, t);
  await ingest(w);
  const views = (await w.json(["sessions"], { cwd: alpha })).data.sessions as View[];
  assert.equal(views[0].title, "/review PR 12");
  assert.equal(views[0].title_source, "prompt");
});

Deno.test("name and tag wait for a pass when the derived tables predate this build", async () => {
  const f = await fixture();
  await using _ = f.w;
  const db = new DatabaseSync(f.w.sb.store);
  db.exec("UPDATE meta SET value = '0' WHERE key = 'derived_schema'");
  db.close();
  const before = handles(f.w.sb.store);
  const r = await f.w.run(["sessions", "tag", "1", "early"], f.at);
  assert.equal(r.code, 1);
  assert.match(r.err, /run terminus ingest once/);
  assert.equal(handles(f.w.sb.store), before);
  const tables = new DatabaseSync(f.w.sb.store, { readOnly: true });
  try {
    assert.ok(
      tables.prepare("SELECT 1 FROM sqlite_master WHERE name = 'turns'").get(),
      "untouched",
    );
  } finally {
    tables.close();
  }
  await ingest(f.w);
  assert.equal((await f.w.run(["sessions", "tag", "1", "early"], f.at)).code, 0);
});
