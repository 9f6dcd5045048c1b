/**
 * The contract where a walkthrough against the spec found it bent: session numbers in time
 * order and JSON in number order, digit-only references, exactly two time-bound forms, one
 * line per absent id, a person's own `"hooks": {}` kept by uninstall, MCP reasons in the
 * tool's own words, the export format message, and `deno task terminus mcp`'s folder.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseBound } from "../core/time.ts";
import { hookEntry, withoutEntries } from "../core/setup/settings.ts";
import type { SetupHookEvent } from "../core/setup/locations.ts";
import { recallSearch } from "../core/recall/tools.ts";
import { loadConfig } from "../core/config.ts";
import { REPO_DIR, runCli } from "./helpers.ts";
import { CLAUDE, install, settle, setupBox } from "./setup_helpers.ts";
import { ingest, put, Transcript, world } from "./read_helpers.ts";

/** A sandbox with one archived session in `folder`: a prompt, and a reply when given. */
async function oneSession(id: string, prompt: string, reply?: string, folder = "alpha") {
  const w = await world();
  const dir = w.dir(folder);
  const t = new Transcript({ sessionId: id, cwd: dir, start: "2026-01-05T09:00:00.000Z" });
  t.user(prompt);
  if (reply !== undefined) t.assistant(reply);
  await put(w, t);
  await ingest(w);
  return { w, dir };
}

Deno.test("time bounds: exactly YYYY-MM-DD and YYYY-MM-DDTHH:MM:SS.mmmZ", () => {
  assert.equal(parseBound("2026-01-05", "start"), "2026-01-05T00:00:00.000Z");
  assert.equal(parseBound("2026-01-05", "end"), "2026-01-05T23:59:59.999Z");
  assert.equal(parseBound("2026-01-05T10:00:09.120Z", "start"), "2026-01-05T10:00:09.120Z");
  assert.equal(parseBound("2024-02-29T23:59:59.999Z", "end"), "2024-02-29T23:59:59.999Z");
  for (
    const bad of [
      "2026-11-20T10:00:09Z", // no milliseconds
      "2026-11-20T10:00:09.5Z", // one fraction digit
      "2026-11-20T10:00:09.0000Z",
      "2026-11-20T10:00:09.000+02:00", // an offset
      "2026-11-20T10:00:09.000-00:00",
      "2026-11-20t10:00:09.000Z", // lowercase t
      "2026-11-20T10:00:09.000z", // lowercase z
      "2026-11-20T10:00:09.000",
      "2026-02-30",
      "2026-01-05T24:00:00.000Z",
    ]
  ) {
    assert.equal(parseBound(bad, "start"), null, bad);
    assert.equal(parseBound(bad, "end"), null, bad);
  }
});

Deno.test("time bounds: the CLI refuses other forms with exit 2 and names only the two", async () => {
  await using w = await world();
  for (const v of ["2026-11-20T10:00:09Z", "2026-11-20T12:00:00.000+02:00"]) {
    const r = await w.run(["sessions", "--since", v, "--json"]);
    assert.equal(r.code, 2, r.err);
    assert.equal(r.out, "");
    assert.match(r.err, /--since takes YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS\.mmmZ/);
    assert.doesNotMatch(r.err, /offset/);
  }
});

Deno.test("MCP since takes the same two forms, and a no-project reason names the argument project", async () => {
  const { w, dir: alpha } = await oneSession(
    "71717171-0000-4000-8000-000000000001",
    "the retry budget",
  );
  await using _ = w;
  const env = (n: string) => w.sb.env[n];
  const toolEnv = (cwd: string) => () => ({
    cfg: loadConfig(env),
    store: w.sb.store,
    cwd,
  });
  const bad = await recallSearch(toolEnv(alpha), {
    query: "retry",
    since: "2026-01-05T10:00:00Z",
  });
  assert.equal(bad.misuse, true);
  assert.match(String(bad.doc.reason), /since takes YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS\.mmmZ/);
  const good = await recallSearch(toolEnv(alpha), {
    query: "retry",
    since: "2026-01-05T08:00:00.000Z",
  });
  assert.equal(good.misuse, false);
  assert.equal((good.doc.hits as unknown[]).length, 1);

  const nowhere = await recallSearch(toolEnv(w.sb.dir), { query: "retry" });
  const reason = String(nowhere.doc.reason);
  assert.match(reason, /no archived project covers/);
  assert.match(reason, /project: "\*"/);
  assert.doesNotMatch(reason, /--project/);
});

/** Three sessions whose file names sort against their start times. */
async function outOfOrder(w: Awaited<ReturnType<typeof world>>, alpha: string) {
  const ids = [
    ["ffffffff-0000-4000-8000-000000000001", "2026-03-01T09:00:00.000Z"], // oldest
    ["88888888-0000-4000-8000-000000000002", "2026-03-03T09:00:00.000Z"], // newest
    ["11111111-0000-4000-8000-000000000003", "2026-03-02T09:00:00.000Z"],
  ];
  for (const [id, start] of ids) {
    const t = new Transcript({ sessionId: id, cwd: alpha, start });
    // a state record first, as Claude Code writes, so the head is more than one turn
    t.state({ type: "summary", summary: "earlier", leafUuid: "x" });
    t.user(`session starting ${start}`);
    t.assistant("ok");
    await put(w, t);
  }
  return ids;
}

Deno.test("a backfill numbers sessions by first turn; --json lists by number; the human list is newest first", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const ids = await outOfOrder(w, alpha);
  await ingest(w);
  type S = { session_no: number; session_id: string; first_turn_at: string };
  const all = (await w.json(["sessions"], { cwd: alpha })).data as { sessions: S[] };
  assert.deepEqual(all.sessions.map((s) => s.session_no), [1, 2, 3]);
  assert.deepEqual(
    all.sessions.map((s) => s.session_id),
    [ids[0][0], ids[2][0], ids[1][0]],
    "#1 is the oldest session",
  );
  const firsts = all.sessions.map((s) => s.first_turn_at);
  assert.deepEqual(firsts, [...firsts].sort());
  const two = (await w.json(["sessions", "--limit", "2"], { cwd: alpha })).data as {
    sessions: S[];
  };
  assert.deepEqual(two.sessions.map((s) => s.session_no), [2, 3], "the newest n, in that order");

  const human = await w.run(["sessions"], { cwd: alpha });
  assert.equal(human.code, 0, human.err);
  const nos = human.out.trim().split("\n").map((l) => /#(\d+)/.exec(l)![1]);
  assert.deepEqual(nos, ["3", "2", "1"]);
  // a later pass over a store that holds them keeps every number
  const late = new Transcript({
    sessionId: "00000000-0000-4000-8000-000000000004",
    cwd: alpha,
    start: "2026-01-01T09:00:00.000Z",
  });
  late.user("an old session found late");
  await put(w, late);
  await ingest(w);
  const again = (await w.json(["sessions"], { cwd: alpha })).data as { sessions: S[] };
  assert.deepEqual(again.sessions.map((s) => [s.session_no, s.session_id]), [
    [1, ids[0][0]],
    [2, ids[2][0]],
    [3, ids[1][0]],
    [4, late.o.sessionId],
  ]);
});

Deno.test("a reference of digits alone: a UUID prefix when it starts with 0 or is long enough, #N a number", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const zero = "04842520-0000-4000-8000-000000000001";
  const digits = "12345678-0000-4000-8000-000000000002";
  for (
    const [id, start] of [[zero, "2026-03-01T09:00:00.000Z"], [digits, "2026-03-02T09:00:00.000Z"]]
  ) {
    const t = new Transcript({ sessionId: id, cwd: alpha, start });
    t.user(`hello ${id}`);
    await put(w, t);
  }
  await ingest(w);
  const idOf = async (ref: string) => {
    const d = (await w.json(["sessions", "show", ref], { cwd: alpha })).data as {
      session: { session_id: string };
    };
    return d.session.session_id;
  };
  assert.equal(await idOf("048425"), zero, "a leading zero is a prefix");
  assert.equal(await idOf("123456"), digits, "six digits no session number has");
  assert.equal(await idOf("1"), zero, "a short number is the number");
  assert.equal(await idOf("#2"), digits);
  const none = await w.run(["sessions", "show", "#123456"], { cwd: alpha });
  assert.equal(none.code, 1, "#N is only ever the number");
});

Deno.test("show: an absent id is said once on stderr, and with --json only in absent", async () => {
  const { w, dir: alpha } = await oneSession("72727272-0000-4000-8000-000000000001", "hello");
  await using _ = w;
  const missing = String(2 ** 24 + 999);
  const r = await w.run(["show", missing], { cwd: alpha });
  assert.equal(r.code, 0, r.err);
  const lines = r.err.trim().split("\n");
  assert.equal(lines.length, 1, r.err);
  assert.ok(lines[0].includes(missing), r.err);
  const j = await w.run(["show", missing, "--json"], { cwd: alpha });
  assert.equal(j.err, "");
  const doc = JSON.parse(j.out);
  assert.equal(doc.data.absent.length, 1);
  assert.ok(String(doc.data.absent[0].reason).includes(missing));
  const out = await w.run(["show", missing], { cwd: w.sb.dir });
  assert.equal(out.err.trim().split("\n").length, 1, `outside every project: ${out.err}`);
});

Deno.test("uninstall puts back a pre-existing empty hooks object and event list", () => {
  const link = "/home/you/.local/bin/terminus";
  const entry = (event: SetupHookEvent) => ({ matcher: "", hooks: [hookEntry(link, event)] });
  const installed = {
    model: "opus",
    hooks: {
      SessionStart: [entry("SessionStart")],
      UserPromptSubmit: [entry("UserPromptSubmit")],
      SessionEnd: [entry("SessionEnd")],
      PostCompact: [entry("PostCompact")],
    },
  };
  const removed = withoutEntries(structuredClone(installed), link);
  assert.equal(removed.removed, 4);
  assert.deepEqual(removed.doc, { model: "opus" }, "no copy: an emptied object goes");
  assert.deepEqual(
    withoutEntries(structuredClone(installed), link, { model: "opus", hooks: {} }).doc,
    { model: "opus", hooks: {} },
  );
  assert.deepEqual(
    withoutEntries(structuredClone(installed), link, { hooks: { SessionEnd: [] } }).doc,
    { model: "opus", hooks: { SessionEnd: [] } },
  );
});

Deno.test("sessions export --format pdf names the three formats once each", async () => {
  await using w = await world();
  const r = await w.run(["sessions", "export", "1", "--format", "pdf"]);
  assert.equal(r.code, 2);
  assert.match(r.err, /--format takes md, html or jsonl; 'pdf' is none of them/);
});

Deno.test("`deno task terminus mcp` answers for the folder it was typed in", async () => {
  const { w, dir: there } = await oneSession(
    "73737373-0000-4000-8000-000000000001",
    "the folder marker zanzibar",
    undefined,
    "there",
  );
  await using _ = w;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "-q", "--config", join(REPO_DIR, "deno.json"), "terminus", "mcp"],
    cwd: there,
    env: { ...w.sb.env },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const msgs = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "0" },
      },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "recall_search", arguments: { query: "zanzibar" } },
    },
  ];
  const wr = child.stdin.getWriter();
  await wr.write(new TextEncoder().encode(msgs.map((m) => JSON.stringify(m) + "\n").join("")));
  // read until the answer to the call arrives, then close stdin so the server ends
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  let answer: { result: { content: { text: string }[] } } | null = null;
  while (answer === null) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    for (const line of buf.split("\n").slice(0, -1)) {
      const m = JSON.parse(line);
      if (m.id === 2) answer = m;
    }
  }
  await wr.close();
  await reader.cancel();
  const st = await child.status;
  await child.stderr.cancel();
  assert.ok(answer, "the call was answered");
  const doc = JSON.parse(answer.result.content[0].text);
  assert.equal(doc.hits.length, 1, answer.result.content[0].text);
  assert.equal(st.code, 0);
});

/** A search hit's keys in the spec; a recall_search hit is the same less matched_on. */
const SEARCH_HIT = [
  "turn_id",
  "session_key",
  "project",
  "record_type",
  "ts",
  "sidechain",
  "relevance",
  "entity_score",
  "matched_on",
  "excerpt",
];

/** The keys the specification documents, per document (and per item of its list). */
const SPEC_KEYS: Record<string, string[]> = {
  "sessions": ["sessions"],
  "sessions items": [
    "session_key",
    "session_no",
    "project",
    "project_pre_worktree",
    "branch",
    "first_turn_at",
    "last_turn_at",
    "turns",
    "watermark",
    "sidecar",
    "evicted",
  ],
  "search": ["query", "truncated", "hits"],
  "search hits": SEARCH_HIT,
  "recall_search": ["hits", "reason"],
  "recall_search hits": SEARCH_HIT.filter((k) => k !== "matched_on"),
  "usage": ["sessions", "archive_bytes", "by_project", "by_month", "file_bytes", "footprint"],
};

/** The extensions docs/guide/scripting.md lists, keyed as SPEC_KEYS is. */
async function documentedExtensions(): Promise<Record<string, string[]>> {
  const text = await Deno.readTextFile(join(REPO_DIR, "docs", "guide", "scripting.md"));
  const section = text.slice(text.indexOf("## Keys beyond the contract"));
  const out: Record<string, string[]> = {};
  for (const m of section.matchAll(/^\| `([a-z_]+)`( hits)? \| `([a-z_]+)` \|/gm)) {
    const doc = m[1] + (m[2] ?? "");
    (out[doc] ??= []).push(m[3]);
  }
  return out;
}

Deno.test("every spec key is in each document, and every other key is listed in scripting.md", async () => {
  const { w, dir: alpha } = await oneSession(
    "75757575-0000-4000-8000-000000000001",
    "the retry budget",
    "the retry budget lives here",
  );
  await using _ = w;
  const hist = join(w.sb.claude, "history.jsonl");
  await Deno.writeTextFile(
    hist,
    JSON.stringify({ display: "retry budget again", timestamp: 1767600000000, project: alpha }) +
      "\n",
  );
  const docs: Record<string, Record<string, unknown>> = {
    sessions: (await w.json(["sessions"], { cwd: alpha })).data as Record<string, unknown>,
    usage: (await w.json(["usage"], { cwd: alpha })).data as Record<string, unknown>,
    recall_search: (await recallSearch(() => ({
      cfg: loadConfig((n) => w.sb.env[n]),
      store: w.sb.store,
      cwd: alpha,
    }), { query: "retry" })).doc,
  };
  const imported = await w.run(["import-history"], { cwd: alpha });
  assert.equal(imported.code, 0, imported.err);
  // a name holding the word: the session comes back under titles too
  const named = await w.run(["sessions", "name", "1", "retry work"], { cwd: alpha });
  assert.equal(named.code, 0, named.err);
  docs.search = (await w.json(["search", "retry"], { cwd: alpha })).data as Record<
    string,
    unknown
  >;
  assert.ok(Array.isArray(docs.search.history), "history appears once prompts are imported");
  assert.ok(Array.isArray(docs.search.titles), "titles appear when a title holds the words");
  const ext = await documentedExtensions();
  const check = (name: string, obj: Record<string, unknown>) => {
    const spec = SPEC_KEYS[name];
    for (const k of spec) assert.ok(k in obj, `${name}: the spec's ${k} is missing`);
    for (const k of Object.keys(obj)) {
      assert.ok(
        spec.includes(k) || (ext[name === "sessions items" ? "sessions" : name] ?? []).includes(k),
        `${name}: ${k} is neither a spec key nor listed in docs/guide/scripting.md`,
      );
    }
  };
  for (const [name, doc] of Object.entries(docs)) {
    if (name !== "sessions") check(name, doc);
    else assert.deepEqual(Object.keys(doc), ["sessions"]);
    const list = doc[name === "usage" ? "" : name === "sessions" ? "sessions" : "hits"];
    if (Array.isArray(list)) {
      assert.ok(list.length > 0, `${name} has an item to check`);
      check(`${name} ${name === "sessions" ? "items" : "hits"}`, list[0]);
    }
  }
  // a listed extension that no document carries is a stale line in the guide
  for (const [name, keys] of Object.entries(ext)) {
    const doc = name.endsWith(" hits")
      ? (docs[name.slice(0, -5)].hits as Record<string, unknown>[])[0]
      : name === "sessions"
      ? (docs.sessions.sessions as Record<string, unknown>[])[0]
      : docs[name];
    for (const k of keys) {
      assert.ok(k in doc, `scripting.md lists ${name} ${k}, which is not there`);
    }
  }
});

Deno.test({
  name:
    "uninstall after install gives back settings.json with its own empty hooks object, edited or not",
  ignore: !CLAUDE,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    for (const edit of [false, true]) {
      await using sb = await setupBox();
      const original = JSON.stringify({ model: "opus", hooks: {} }, null, 2) + "\n";
      await Deno.writeTextFile(sb.settings, original);
      const i = await install(sb);
      assert.equal(i.code, 0, i.out + i.err);
      await settle(sb);
      if (edit) {
        const doc = JSON.parse(await Deno.readTextFile(sb.settings));
        doc.theme = "dark"; // a change of the person's own since install
        await Deno.writeTextFile(sb.settings, JSON.stringify(doc, null, 2) + "\n");
      }
      const u = await runCli(sb, ["uninstall"]);
      assert.equal(u.code, 0, u.out + u.err);
      const after = await Deno.readTextFile(sb.settings);
      if (edit) assert.deepEqual(JSON.parse(after), { model: "opus", hooks: {}, theme: "dark" });
      else assert.equal(after, original, "the copy install kept was put back");
    }
  },
});
