/**
 * terminus sessions search: one line per session, ranked by its best turn, with the listing's
 * filters; and, over genuine transcripts (TERMINUS_TEST_CORPUS, TERMINUS_TEST_REAL), known
 * items at session level ranked at least as high as `terminus search` ranks them.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";

import { cliOk, corpusRoots, parseEnvelope, runCli, sandbox, writeConfig } from "./helpers.ts";
import { ingest, put, Transcript, world } from "./read_helpers.ts";

const CORPUS = Deno.env.get("TERMINUS_TEST_CORPUS");
const REAL = Deno.env.get("TERMINUS_TEST_REAL");
if (!CORPUS) {
  console.warn(
    "sessions_search_test.ts: TERMINUS_TEST_CORPUS is not set; the corpus test is ignored",
  );
}
if (!REAL) {
  console.warn(
    "sessions_search_test.ts: TERMINUS_TEST_REAL (a folder holding the bench corpus's projects/) is not set; that test is ignored",
  );
}

interface SessionDoc {
  session_no: number;
  session_key: string;
  title: string | null;
  hits: number;
  tags: string[];
  best: { turn_id: number; excerpt: string; relevance: number };
}

const S1 = "11111111-0000-4000-8000-000000000001";
const S2 = "22222222-0000-4000-8000-000000000002";
const S3 = "33333333-0000-4000-8000-000000000003";

Deno.test("sessions search: one line per session, best turn first, hit counts, filters and --json", async () => {
  await using w = await world();
  const app = w.dir("app");
  const a = new Transcript({ sessionId: S1, cwd: app, start: "2026-03-01T09:00:00.000Z" });
  a.user("how does the auth flow refresh its token");
  a.assistant("The auth flow refreshes the token in src/auth/flow.ts before it expires.");
  a.user("and where does the auth flow store it");
  a.assistant("The auth flow stores it in the keychain.");
  await put(w, a);
  const b = new Transcript({ sessionId: S2, cwd: app, start: "2026-03-05T09:00:00.000Z" });
  b.user("a passing mention: the auth flow is out of scope today");
  b.assistant("Understood.");
  await put(w, b);
  const c = new Transcript({ sessionId: S3, cwd: app, start: "2026-03-09T09:00:00.000Z" });
  c.user("nothing about that here");
  await put(w, c);
  await ingest(w);
  await cliOk(w.sb, ["sessions", "tag", S2, "later"]);

  const env = await w.json(["sessions", "search", "auth", "flow"], { cwd: app });
  const got = (env.data as { sessions: SessionDoc[] }).sessions;
  assert.deepEqual(got.map((s) => s.session_key).sort(), [`${S1}.jsonl`, `${S2}.jsonl`]);
  const one = got.find((s) => s.session_key === `${S1}.jsonl`)!;
  assert.equal(one.hits, 4, "every matching turn of the session is counted");
  assert.equal(got.find((s) => s.session_key === `${S2}.jsonl`)!.hits, 1);
  assert.match(one.best.excerpt, /auth flow/i);

  // the order is `terminus search`'s order of each session's first hit
  const turns = await w.json(["search", "auth", "flow", "--limit", "50"], { cwd: app });
  const order: string[] = [];
  for (const h of (turns.data as { hits: { session_key: string }[] }).hits) {
    if (!order.includes(h.session_key)) order.push(h.session_key);
  }
  assert.deepEqual(got.map((s) => s.session_key), order);

  const human = await cliOk(w.sb, ["sessions", "search", "auth", "flow"], { cwd: app });
  const lines = human.out.split("\n").filter((l) => l.startsWith("#"));
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^#\d+ {2}2026-03-0\d {2}.+ {2}\d+ hit\(s\)$/);
  assert.match(human.err, /2 session\(s\)/);

  const tagged = await w.json(["sessions", "search", "auth", "flow", "--tag", "later"], {
    cwd: app,
  });
  assert.deepEqual(
    (tagged.data as { sessions: SessionDoc[] }).sessions.map((s) => s.session_key),
    [`${S2}.jsonl`],
  );
  const since = await w.json(["sessions", "search", "auth", "--since", "2026-03-04"], { cwd: app });
  assert.deepEqual(
    (since.data as { sessions: SessionDoc[] }).sessions.map((s) => s.session_key),
    [`${S2}.jsonl`],
  );
  const until = await w.json(["sessions", "search", "auth", "--until", "2026-03-02"], { cwd: app });
  assert.deepEqual(
    (until.data as { sessions: SessionDoc[] }).sessions.map((s) => s.session_key),
    [`${S1}.jsonl`],
  );
  const limited = await w.json(["sessions", "search", "auth", "--limit", "1"], { cwd: app });
  assert.equal((limited.data as { sessions: SessionDoc[] }).sessions.length, 1);
  const other = await w.json(["sessions", "search", "auth", "--project", w.dir("elsewhere")]);
  assert.deepEqual((other.data as { sessions: SessionDoc[] }).sessions, []);

  const none = await runCli(w.sb, ["sessions", "search"], { cwd: app });
  assert.equal(none.code, 2);
  assert.match(none.err, /sessions search needs words/);
  const zero = await runCli(w.sb, ["sessions", "search", "auth", "--limit", "0"], { cwd: app });
  assert.equal(zero.code, 2);
  const bad = await runCli(w.sb, ["sessions", "search", "auth", "--since", "2026-02-30"], {
    cwd: app,
  });
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--since/);
  const nothing = await cliOk(w.sb, ["sessions", "search", "///", "--json"], { cwd: app });
  assert.deepEqual(parseEnvelope(nothing.out).data, {
    query: "///",
    truncated: false,
    sessions: [],
  });
});

/**
 * Known items: for each top-level session, the three rarest long words of the first of its
 * quotable turns (prompts and replies) that has three, which that session is the one to find.
 */
function knownItems(store: string, max: number): { key: string; words: string[] }[] {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    const texts = db.prepare(
      `SELECT s.session_key AS key, x.text AS text FROM turn_text x
         JOIN turns t ON t.id = x.turn_id JOIN sessions s ON s.session_no = t.session_no
       ORDER BY t.id`,
    ).all() as { key: string; text: string }[];
    const df = new Map<string, Set<string>>();
    for (const r of texts) {
      for (const w of new Set(r.text.toLowerCase().match(/[a-z]{6,}/g) ?? [])) {
        const s = df.get(w) ?? new Set();
        s.add(r.key);
        df.set(w, s);
      }
    }
    const firstPrompt = new Map<string, string>();
    for (const r of texts) {
      const long = new Set(r.text.toLowerCase().match(/[a-z]{6,}/g) ?? []);
      if (!firstPrompt.has(r.key) && long.size >= 3) firstPrompt.set(r.key, r.text);
    }
    const out: { key: string; words: string[] }[] = [];
    for (const [key, text] of firstPrompt) {
      if (key.includes("/")) continue; // a sidecar's prompt is its parent's instructions
      const words = [...new Set(text.toLowerCase().match(/[a-z]{6,}/g) ?? [])]
        .sort((x, y) => df.get(x)!.size - df.get(y)!.size || (x < y ? -1 : 1))
        .slice(0, 3);
      if (words.length === 3) out.push({ key, words });
      if (out.length >= max) break;
    }
    return out;
  } finally {
    db.close();
  }
}

async function knownItemsAtSessionLevel(roots: string[], max: number): Promise<void> {
  await using sb = await sandbox();
  await writeConfig(sb, `roots = ${JSON.stringify(roots)}\n`);
  await cliOk(sb, ["ingest"]);
  const items = knownItems(sb.store, max);
  assert.ok(items.length >= 3, `enough known items: ${items.length}`);
  let found = 0;
  for (const it of items) {
    const q = [...it.words, "--project", "*", "--json"];
    const s = parseEnvelope((await cliOk(sb, ["sessions", "search", ...q])).out);
    const t = parseEnvelope((await cliOk(sb, ["search", ...q, "--limit", "50"])).out);
    const sessionsRank = (s.data as { sessions: SessionDoc[] }).sessions.findIndex((x) =>
      x.session_key === it.key
    );
    const order: string[] = [];
    for (const h of (t.data as { hits: { session_key: string }[] }).hits) {
      if (!order.includes(h.session_key)) order.push(h.session_key);
    }
    const turnsRank = order.indexOf(it.key);
    if (turnsRank < 0) continue; // terminus search does not find it: nothing to be at least as high as
    found++;
    assert.ok(
      sessionsRank >= 0 && sessionsRank <= turnsRank,
      `${it.words.join(" ")}: ${it.key} is #${sessionsRank + 1} in sessions search, #${
        turnsRank + 1
      } in terminus search`,
    );
  }
  // not vacuous: enough items that terminus search places somewhere in its 50 hits
  assert.ok(found >= 3, `terminus search finds ${found} of ${items.length} items`);
}

Deno.test({
  name:
    "sessions search: known items in the shared corpus rank at least as high as in terminus search",
  ignore: !CORPUS,
  fn: () => knownItemsAtSessionLevel(corpusRoots(CORPUS!), 20),
});

Deno.test({
  name:
    "sessions search: known items in the bench corpus rank at least as high as in terminus search",
  ignore: !REAL,
  fn: () => knownItemsAtSessionLevel([REAL!], 25),
});
