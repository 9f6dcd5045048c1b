/**
 * Spellings that mean something, and the order equal matches come in: a real store built by
 * `terminus ingest` from transcripts in Claude Code's shapes, the hook's own lookup in process.
 */
import assert from "node:assert/strict";
import { type Sandbox, sandbox } from "./helpers.ts";
import { daysAgo, ingestSettled, Session, sid, turnIdOf } from "./inject_helpers.ts";
import { openRead } from "../core/store/db.ts";
import { recall } from "../core/inject/prompt.ts";
import { spellings } from "../core/inject/spellings.ts";
import { THRESHOLDS } from "../core/inject/thresholds.ts";
import { structuralLookup } from "../core/recall/lookup.ts";
import { isFileName } from "../core/recall/structural.ts";

const P = "/nonexistent/terminus-spell/proj";
const OTHER = "7e57a11d-0000-4000-8000-0000000000ff";

interface World {
  registryRead: number;
  landCmdRead: number;
  settingsRead: number;
  appRead: number;
  /** src/a.py: its Read (oldest), a wc -l mention, a git add listing (newest). */
  aRead: number;
  aMention: number;
  aListing: number;
  /** src/t.py: two Reads, the older one's text carries the prompt's words. */
  tOld: number;
  tNew: number;
  /** src/b.py: one old Read, then many newer mentions. */
  bRead: number;
}

async function world(sb: Sandbox): Promise<World> {
  const a = new Session(sid(0x51), P, daysAgo(20));
  const [registryRead] = a.read(`${P}/src/pkg/registry.py`, "REGISTRY = {}");
  const [landCmdRead] = a.read(`${P}/src/erk/land_cmd.py`, "def land(): ...");
  const [settingsRead] = a.read(`${sb.home}/.claude/settings.json`, "{}");
  const [appRead] = a.read(`${P}/src/erk/tui/app.py`, "class App: ...");
  const [tOld] = [a.tool("Read", { file_path: `${P}/src/t.py` }, "checking the retry budget")];
  a.result("x = 1");
  // prose a commit message and a PR reply carried, stored as if they were paths
  a.tool("Bash", {
    command: 'git commit -m "use if/else rather than try/except; 1/1 fetching/updating"',
  });
  a.result("ok");
  // an edit of another file whose body names the stem of land_cmd.py
  a.tool("Edit", {
    file_path: `${P}/src/erk/land_learn.py`,
    old_string: "from land_cmd import land",
    new_string: "from land_cmd import land as land_cmd",
  });
  a.result("ok");
  // a relative path in another checkout's shape: only its tail is this project's
  a.tool("Bash", { command: "wc -l src/erk/tui/app.py" });
  a.result("3");
  await a.write(sb);

  const b = new Session(sid(0x52), P, daysAgo(10));
  const [aRead] = b.read(`${P}/src/a.py`, "A = 1");
  const aMention = b.tool("Bash", { command: `wc -l ${P}/src/a.py` });
  b.result("1");
  const aListing = b.tool("Bash", { command: `git add ${P}/src/a.py` });
  b.result("");
  const [bRead] = b.read(`${P}/src/b.py`, "B = 1");
  const mentions: string[] = [];
  for (let i = 0; i < 12; i++) {
    mentions.push(b.tool("Bash", { command: `wc -l ${P}/src/b.py # ${i}` }));
    b.result("1");
  }
  const tNew = b.tool("Read", { file_path: `${P}/src/t.py` }, "opening the module");
  b.result("x = 1");
  await b.write(sb);

  // GitHub in many sessions: a product name, too common to bring a turn alone
  for (let n = 0; n < 6; n++) {
    const s = new Session(sid(0x60 + n), P, daysAgo(5 - n / 10));
    s.tool("Bash", { command: `gh pr view --json url # GitHub ${n}` });
    s.result("{}");
    await s.write(sb);
  }
  await ingestSettled(sb);
  const id = (u: string) => turnIdOf(sb, u);
  return {
    registryRead: id(registryRead),
    landCmdRead: id(landCmdRead),
    settingsRead: id(settingsRead),
    appRead: id(appRead),
    aRead: id(aRead),
    aMention: id(aMention),
    aListing: id(aListing),
    tOld: id(tOld),
    tNew: id(tNew),
    bRead: id(bRead),
  };
}

function handed(sb: Sandbox, prompt: string): { ids: number[]; unheld: string[] } {
  const o = openRead(sb.store);
  assert.ok(o, "no store");
  try {
    const r = recall({
      db: o.db,
      vis: { project: P, exclude: [] },
      sessionId: OTHER,
      spellings: spellings(prompt, P, THRESHOLDS.max_candidates, sb.home),
      cwd: P,
      prompt,
      thresholds: THRESHOLDS,
      suppress: new Map(),
      owedKnown: null,
      promptChars: 4000,
      filter: (s) => s,
    });
    return { ids: r.injected.map((i) => i.id), unheld: r.unheld };
  } finally {
    o.db.close();
  }
}

Deno.test("spellings: slashes alone, number fractions and sentence words are no paths; bare file names and ~ are", () => {
  const s = (p: string) => spellings(p, P, THRESHOLDS.max_candidates, "/home/u");
  assert.deepEqual(s("is it 1/1 or 2/2 or 3/4/5 now / and //"), []);
  // one part under the root and no file: markup and slash commands, not paths
  assert.deepEqual(s("see <summary>x</summary> here, then /erk:plan-save"), []);
  // a code sample's escapes are not part of a path
  assert.deepEqual(s('join with "\\n".join(parts) and Rules:\\n'), []);
  // word-shaped ones last, so the cap keeps the files
  assert.deepEqual(s("src/erk_cli then app.py"), ["app.py", `${P}/src/erk_cli`]);
  assert.deepEqual(s("edit pyproject.toml and registry.py, then land_cmd.py"), [
    "pyproject.toml",
    "registry.py",
    "land_cmd.py",
  ]);
  assert.deepEqual(s("e.g. this, i.e. that"), []);
  // as people paste them: a file mention, a line, an IDE selection's range
  assert.deepEqual(s("see @src/a.py, src/b.py:12 and @/abs/c.go:680-706 then dd.ts#L3-L9"), [
    `${P}/src/a.py`,
    `${P}/src/b.py`,
    "/abs/c.go",
    "dd.ts",
  ]);
  // a Windows working directory is not resolved against: the path is looked up as typed
  assert.deepEqual(spellings("@src/config/segment_types.go", "D:\\oh-my-posh", 8), [
    "src/config/segment_types.go",
  ]);
  // nor is the stem of a file the prompt names beside it
  assert.deepEqual(s("integration_test in integration_test.go"), ["integration_test.go"]);
  assert.deepEqual(s("check ~/.claude/settings.json"), ["/home/u/.claude/settings.json"]);
  assert.ok(isFileName("S.ts") && isFileName(".env") && !isFileName("e.g", true));
  assert.ok(!isFileName("self.assertEqual", true));
});

Deno.test("recall: junk path words and product names bring nothing, even where a commit message stored them", async () => {
  await using sb = await sandbox();
  await world(sb);
  for (
    const p of [
      "should this be an if/else or a try/except?",
      "1/1 tests pass, 2/2 checks green",
      "the fetching/updating step",
      "fold the </summary> block",
      "push it to GitHub when done",
    ]
  ) assert.deepEqual(handed(sb, p).ids, [], p);
  assert.ok(handed(sb, "should this be an if/else?").unheld.includes(`${P}/if/else`));
});

Deno.test("recall: a bare file name is looked up as a path's last part, and names the file, not its stem", async () => {
  await using sb = await sandbox();
  const w = await world(sb);
  assert.deepEqual(handed(sb, "what does registry.py register?").ids, [w.registryRead]);
  // the Read of land_cmd.py, never the Edit of land_learn.py whose body names `land_cmd`
  assert.deepEqual(handed(sb, "why does land_cmd.py fail").ids, [w.landCmdRead]);
});

Deno.test("recall: a ~ path resolves under HOME, not the working directory", async () => {
  await using sb = await sandbox();
  const w = await world(sb);
  assert.deepEqual(handed(sb, "check ~/.claude/settings.json").ids, [w.settingsRead]);
});

Deno.test("recall: an absolute path under another root matches only an equal stored path, never by tail", async () => {
  await using sb = await sandbox();
  const w = await world(sb);
  assert.deepEqual(handed(sb, "/Users/me/code/erk/src/erk/tui/app.py is broken").ids, []);
  // this project's own spelling of it still finds the Read (and the relative Bash line)
  assert.ok(handed(sb, "src/erk/tui/app.py is broken").ids.includes(w.appRead));
});

Deno.test("recall ranking: equal matches go to the Read, then a mention (a git listing of the one name never); then the prompt's words; then recency", async () => {
  await using sb = await sandbox();
  const w = await world(sb);
  // `git add src/a.py` only lists the one name the prompt holds: it is not handed over
  const a = handed(sb, "look at src/a.py");
  assert.deepEqual(a.ids, [w.aRead, w.aMention]);
  // two Reads of src/t.py: the older one's words are the prompt's
  assert.deepEqual(handed(sb, "the retry budget in src/t.py").ids.slice(0, 2), [w.tOld, w.tNew]);
  // with no words in common, the newer first
  assert.deepEqual(handed(sb, "open src/t.py").ids.slice(0, 2), [w.tNew, w.tOld]);
});

Deno.test("recall lookup: reads at most its cap per key, direct actions first, however many turns name it", async () => {
  await using sb = await sandbox();
  const w = await world(sb);
  const o = openRead(sb.store)!;
  try {
    const cap = 4;
    const r = structuralLookup(o.db, {
      spellings: [`${P}/src/b.py`],
      vis: { project: P, exclude: [] },
      cwd: P,
      limit: 10,
      cap,
    });
    assert.ok(r.reads.length > 0);
    for (const n of r.reads) assert.ok(n <= cap, `read ${n} rows, cap ${cap}`);
    // 13 turns name src/b.py; the oldest, the Read, still comes first
    assert.equal(r.hits[0].turn_id, w.bRead);
    assert.ok(r.hits.length <= cap, String(r.hits.length));
  } finally {
    o.db.close();
  }
});
