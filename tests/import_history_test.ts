/**
 * terminus import-history: Claude Code's history.jsonl as history_prompt entries. Streamed,
 * broken lines counted and named, idempotent, scoped by project in search, marked as history,
 * and never handed to Claude by the hooks.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  cliOk,
  exists,
  fixture,
  fixtureText,
  parseEnvelope,
  runCli,
  type Sandbox,
  sandbox,
  writeConfig,
} from "./helpers.ts";
import { holdLock } from "./read_helpers.ts";
import {
  additionalContext,
  ALPHA,
  daysAgo,
  hookOnTime,
  hookSandbox,
  ingestSettled,
  promptPayload,
  Session,
  sid,
  startPayload,
} from "./inject_helpers.ts";

type Rec = Record<string, unknown>;

/** The long paste the fixture's last entry names by its hash, as Claude Code keeps it aside. */
const CACHED_PASTE = "paste-cache/da8eb72be5154502.txt";

/**
 * The fixture, its project placeholders filled in, written where Claude Code keeps it, with
 * its paste cache beside it.
 */
async function writeHistory(sb: Sandbox, alpha: string, beta: string): Promise<string> {
  const text = (await fixtureText("history/history.jsonl")).replaceAll("@ALPHA@", alpha)
    .replaceAll("@BETA@", beta);
  const file = join(sb.claude, "history.jsonl");
  await Deno.writeTextFile(file, text);
  await Deno.mkdir(join(sb.claude, "paste-cache"), { recursive: true });
  await Deno.writeFile(join(sb.claude, CACHED_PASTE), await fixture(`history/${CACHED_PASTE}`));
  return file;
}

async function importJson(sb: Sandbox, ...args: string[]): Promise<Rec> {
  const r = await cliOk(sb, ["import-history", ...args, "--json"]);
  assert.equal(r.err, "");
  return parseEnvelope(r.out).data;
}

function rows(store: string): Rec[] {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    return db.prepare("SELECT at, cwd, project, display FROM history_prompts ORDER BY at").all();
  } finally {
    db.close();
  }
}

async function projects(sb: Sandbox): Promise<{ alpha: string; beta: string }> {
  const alpha = join(sb.dir, "alpha");
  const beta = join(sb.dir, "beta");
  await Deno.mkdir(alpha);
  await Deno.mkdir(beta);
  return { alpha, beta };
}

Deno.test("import-history: every entry kept, broken lines counted and named, unknown fields fine, a second import adds nothing", async () => {
  await using sb = await sandbox();
  const { alpha, beta } = await projects(sb);
  const file = await writeHistory(sb, alpha, beta);

  // a dry run with no store: counts, and creates nothing
  const dry = await importJson(sb, "--dry-run");
  assert.equal(dry.added, 5);
  assert.equal(dry.dry_run, true);
  assert.equal(await exists(sb.data), false, "a dry run creates no store");

  const first = await importJson(sb);
  assert.deepEqual(first, {
    file,
    lines: 9,
    added: 5,
    already: 0,
    excluded: 0,
    skipped: 0,
    broken: 3,
    broken_lines: [
      { line: 4, reason: "not JSON" },
      { line: 6, reason: "not a JSON object" },
      { line: 7, reason: "no timestamp" },
    ],
    dry_run: false,
  });
  assert.deepEqual(rows(sb.store).map((r) => [r.at, r.project, r.display]), [
    ["2025-11-27T10:00:00.000Z", alpha, "fix the flaky kestrel upload test in src/upload.ts"],
    ["2025-11-27T11:00:00.000Z", alpha, "[Pasted text #1 +3 lines] why does this fail"],
    ["2025-11-27T12:00:00.000Z", beta, "kestrel in beta as well"],
    ["2025-11-27T13:00:00.000Z", alpha, "zebrafish with a field from a later version"],
    ["2025-11-27T14:00:00.000Z", alpha, "[Pasted text #1 +60 lines] look at the big paste"],
  ]);

  // human mode: the summary and each broken line on stderr, nothing on stdout
  const human = await runCli(sb, ["import-history"]);
  assert.equal(human.code, 0);
  assert.equal(human.out, "");
  assert.match(human.err, new RegExp(`${file}:4: skipped, not JSON`));
  assert.match(human.err, /0 prompt\(s\) added, 5 already imported/);
  assert.equal(rows(sb.store).length, 5, "a second import adds nothing");

  const dry2 = await importJson(sb, "--dry-run");
  assert.equal(dry2.added, 0);
  assert.equal(dry2.already, 5);

  // a prompt Claude Code appends later is the only one the next import adds
  await Deno.writeTextFile(
    file,
    JSON.stringify({
      display: "one more kestrel",
      pastedContents: {},
      timestamp: 1764255600000,
      project: alpha,
    }) + "\n",
    { append: true },
  );
  const third = await importJson(sb);
  assert.equal(third.added, 1);
  assert.equal(third.already, 5);
});

Deno.test("import-history: search finds prompts and pasted text, scoped by project, with their time, marked as history", async () => {
  await using sb = await sandbox();
  const { alpha, beta } = await projects(sb);
  await writeHistory(sb, alpha, beta);
  await importJson(sb);

  const inAlpha = await cliOk(sb, ["search", "kestrel", "--json"], { cwd: alpha });
  const doc = parseEnvelope(inAlpha.out).data as { hits: Rec[]; history: Rec[] };
  assert.deepEqual(doc.hits, []);
  assert.deepEqual(doc.history.map((h) => [h.kind, h.ts, h.project, h.excerpt]), [
    [
      "history_prompt",
      "2025-11-27T10:00:00.000Z",
      alpha,
      "fix the flaky kestrel upload test in src/upload.ts",
    ],
  ]);
  const everywhere = parseEnvelope(
    (await cliOk(sb, ["search", "kestrel", "--project", "*", "--json"])).out,
  ).data as { history: Rec[] };
  assert.deepEqual(everywhere.history.map((h) => h.project).sort(), [alpha, beta].sort());

  // pasted text is searchable; the excerpt shows it
  const pasted = parseEnvelope(
    (await cliOk(sb, ["search", "quokka", "--json"], { cwd: alpha })).out,
  ).data as { history: Rec[] };
  assert.equal(pasted.history.length, 1);
  assert.match(String(pasted.history[0].excerpt), /quokka overflow/);
  // so is a long paste Claude Code kept aside in paste-cache, read in by its hash
  const cached = parseEnvelope(
    (await cliOk(sb, ["search", "capybara", "trace", "--json"], { cwd: alpha })).out,
  ).data as { history: Rec[] };
  assert.deepEqual(cached.history.map((h) => h.ts), ["2025-11-27T14:00:00.000Z"]);
  assert.match(String(cached.history[0].excerpt), /capybara-trace frame/);

  // human mode marks the hit as history and gives its time
  const human = await cliOk(sb, ["search", "zebrafish"], { cwd: alpha });
  assert.equal(
    human.out,
    `history  2025-11-27 13:00  ${alpha}\n    zebrafish with a field from a later version\n`,
  );
  // --kind history_prompt asks for history alone; another kind or a tool leaves it out
  const kinds = async (...args: string[]) =>
    (parseEnvelope((await cliOk(sb, ["search", "kestrel", ...args, "--json"], { cwd: alpha })).out)
      .data as { history: Rec[] }).history.length;
  assert.equal(await kinds("--kind", "history_prompt"), 1);
  assert.equal(await kinds("--kind", "user"), 0);
  assert.equal(await kinds("--tool", "Bash"), 0);
  assert.equal(await kinds("--since", "2025-11-28"), 0);
});

Deno.test("import-history: a paste kept aside is read only under its own hash (missing, changed or oddly named, the prompt is kept alone); an image's data is not indexed", async () => {
  await using sb = await sandbox();
  const { alpha } = await projects(sb);
  const cache = join(sb.claude, "paste-cache");
  await Deno.mkdir(cache, { recursive: true });
  const hash = CACHED_PASTE.slice("paste-cache/".length, -".txt".length);
  // the right name, other text (the file was rewritten): not the paste
  await Deno.writeTextFile(join(cache, `${hash}.txt`), "wombat text that is not the paste\n");
  // a name Claude Code would never write, reaching out of the cache
  await Deno.writeTextFile(join(sb.claude, "outside.txt"), "wombat outside the cache\n");
  const entry = (t: number, display: string, contentHash: string) =>
    JSON.stringify({
      display,
      pastedContents: { "1": { id: 1, type: "text", contentHash } },
      timestamp: t,
      project: alpha,
      sessionId: sid(0x74),
    });
  await Deno.writeTextFile(
    join(sb.claude, "history.jsonl"),
    [
      entry(1764237600000, "[Pasted text #1 +60 lines] changed paste", hash),
      entry(1764237700000, "[Pasted text #1 +60 lines] gone paste", "0123456789abcdef"),
      entry(1764237800000, "[Pasted text #1 +60 lines] odd name", "../outside"),
      // an image an older CLI kept in the line: its data is not text to search
      JSON.stringify({
        display: "[Image #1] what is this wombat",
        pastedContents: {
          "1": { id: 1, type: "image", content: "wombat image data", mediaType: "image/png" },
        },
        timestamp: 1764237900000,
        project: alpha,
      }),
    ].join("\n") + "\n",
  );
  const r = await importJson(sb);
  assert.equal(r.added, 4);
  assert.equal(r.broken, 0);
  const s = await runCli(sb, ["search", "wombat", "--project", "*", "--json"]);
  assert.deepEqual(
    ((parseEnvelope(s.out).data as { history?: Rec[] }).history ?? []).map((h) => h.excerpt),
    ["[Image #1] what is this wombat"],
    "the prompt, not the cache's other text, the file outside it, or the image's data",
  );
  const data = await runCli(sb, ["search", "image", "data", "--project", "*", "--json"]);
  assert.deepEqual((parseEnvelope(data.out).data as { history?: Rec[] }).history ?? [], []);
  const kept = parseEnvelope(
    (await cliOk(sb, ["search", "pasted", "text", "--project", "*", "--json"])).out,
  ).data as { history: Rec[] };
  assert.equal(kept.history.length, 3, "each prompt is there, its paste named by hash alone");
});

Deno.test("import-history: excluded projects are not imported; a line too long to hold is named", async () => {
  await using sb = await sandbox();
  const { alpha, beta } = await projects(sb);
  await writeConfig(sb, `exclude = ["${beta}"]\n`);
  const file = await writeHistory(sb, alpha, beta);
  // 9 MiB on one line: more than an import holds in memory for a line
  const line = `{"display":"${"x".repeat(9 * 1024 * 1024)}","timestamp":1,"project":"${alpha}"}`;
  await Deno.writeTextFile(file, line + "\n", { append: true });
  const r = await importJson(sb);
  assert.equal(r.excluded, 1);
  assert.equal(r.added, 4);
  assert.equal(r.lines, 10);
  assert.deepEqual((r.broken_lines as Rec[]).at(-1), {
    line: 10,
    reason: `longer than ${8 * 1024 * 1024} bytes (${new TextEncoder().encode(line).length})`,
  });
  assert.equal(rows(sb.store).some((x) => x.project === beta), false);
  const s = await runCli(sb, ["search", "kestrel", "--project", beta, "--json"]);
  const data = parseEnvelope(s.out).data as { hits: Rec[]; history?: Rec[] };
  assert.deepEqual([data.hits, data.history ?? []], [[], []], "an excluded project shows nothing");
});

Deno.test("import-history: the hooks never hand a history prompt to Claude", async () => {
  await using sb = await hookSandbox();
  const s = new Session(sid(0x71), ALPHA, daysAgo(3));
  s.user("look at the retry budget in src/worker/S.ts");
  s.read(`${ALPHA}/src/worker/S.ts`, "export const retryBudget = 3;");
  s.assistant("The retry budget lives in src/worker/S.ts; it is 3.");
  await s.write(sb);
  await ingestSettled(sb);
  await Deno.writeTextFile(
    join(sb.claude, "history.jsonl"),
    [
      { display: "history-only-marker: src/worker/S.ts retryBudget", t: 1764237600000 },
      { display: "history-only-marker again about retryBudget", t: 1764237700000 },
    ].map((h) =>
      JSON.stringify({ display: h.display, pastedContents: {}, timestamp: h.t, project: ALPHA })
    ).join("\n") + "\n",
  );
  assert.equal((await importJson(sb)).added, 2);
  // the history is there to find by a person
  const found = parseEnvelope(
    (await cliOk(sb, ["search", "history", "only", "marker", "--project", ALPHA, "--json"])).out,
  ).data as { history: Rec[] };
  assert.equal(found.history.length, 2);

  // hookOnTime runs it again when a loaded machine pushed it past its 50 ms deadline
  const r = await hookOnTime(sb, ["UserPromptSubmit"], {
    stdin: promptPayload(sid(0x72), ALPHA, "what is retryBudget in src/worker/S.ts now?"),
  });
  assert.equal(r.code, 0, r.err);
  const ctx = additionalContext(r, "UserPromptSubmit");
  assert.ok(ctx && ctx.startsWith("Terminus recall"), "recall fired: the prompt named a path");
  assert.ok(!ctx!.includes("history-only-marker"), "no history prompt was handed over");
  const start = await hookOnTime(sb, ["SessionStart"], { stdin: startPayload(sid(0x73), ALPHA) });
  assert.equal(start.code, 0, start.err);
  assert.match(additionalContext(start, "SessionStart") ?? "", /Terminus resume brief/);
  assert.ok(!start.out.includes("history-only-marker"), "nor in the brief");
});

Deno.test("import-history: while another process holds the ingest lock it imports nothing and says so; --dry-run still counts", async () => {
  await using sb = await sandbox();
  const { alpha, beta } = await projects(sb);
  await writeHistory(sb, alpha, beta);
  await cliOk(sb, ["import-history", "--dry-run"]);
  await Deno.mkdir(sb.data, { recursive: true });
  const lock = await holdLock(sb.data);
  try {
    const r = await runCli(sb, ["import-history", "--json"]);
    assert.equal(r.code, 1);
    const doc = parseEnvelope(r.out);
    assert.match(doc.reason!, /holds the ingest lock.*run import-history again/);
    assert.equal(doc.data.added, 0);
    const dry = await importJson(sb, "--dry-run");
    assert.equal(dry.added, 5);
  } finally {
    lock.release();
  }
  assert.equal((await importJson(sb)).added, 5);
});

Deno.test("import-history: prompts rank by BM25; an index from before positions is remade by the next import", async () => {
  await using sb = await sandbox();
  const { alpha, beta } = await projects(sb);
  await writeHistory(sb, alpha, beta);
  await importJson(sb);
  const kestrel = async () =>
    (parseEnvelope((await cliOk(sb, ["search", "kestrel", "--project", "*", "--json"])).out)
      .data as { history: Rec[] }).history;
  const ranked = await kestrel();
  assert.ok(ranked.length >= 2);
  assert.ok(ranked.every((h) => (h.relevance as number) > 0), "a real text score");
  // the index as the build before made it: no positions, BM25 0 everywhere, rows kept
  const db = new DatabaseSync(sb.store);
  const n = (db.prepare("SELECT count(*) AS n FROM history_prompts").get() as { n: number }).n;
  db.exec(`DROP TABLE history_fts;
    CREATE VIRTUAL TABLE history_fts USING fts5(body, content='', contentless_delete=1,
      tokenize='unicode61', detail=column)`);
  db.close();
  assert.deepEqual(await kestrel(), [], "nothing indexed in the old-shaped table");
  const again = await importJson(sb);
  assert.equal(again.added, 0);
  const check = new DatabaseSync(sb.store, { readOnly: true });
  try {
    const ddl =
      (check.prepare("SELECT sql FROM sqlite_master WHERE name = 'history_fts'").get() as {
        sql: string;
      }).sql;
    assert.doesNotMatch(ddl, /detail=/);
    assert.equal(
      (check.prepare("SELECT count(*) AS n FROM history_fts_docsize").get() as { n: number }).n,
      n,
    );
  } finally {
    check.close();
  }
  assert.deepEqual(await kestrel(), ranked);
});
