/**
 * Prompt recall by rarity: which names a prompt looks up and which may bring a turn alone are
 * decided by how many of the scope's sessions hold them, never by their shape. A real store of
 * 50 sessions built by `terminus ingest` from transcripts in Claude Code's shapes; the hook's
 * own functions (spellings, recall) run in process.
 */
import assert from "node:assert/strict";
import { type Sandbox, sandbox } from "./helpers.ts";
import { daysAgo, ingestSettled, Session, sid, turnIdOf } from "./inject_helpers.ts";
import { openRead } from "../core/store/db.ts";
import { recall } from "../core/inject/prompt.ts";
import { spellings } from "../core/inject/spellings.ts";
import { THRESHOLDS } from "../core/inject/thresholds.ts";
import { RECALL_NAMES_SEEN } from "../core/constants.ts";

const P = "/nonexistent/terminus-rarity/widget-works";
const OTHER = "7e57a11d-0000-4000-8000-0000000000fe";
const SESSIONS = 50;

interface World {
  /** The Grep of `CleanupType`, the only session that holds it. */
  cleanupGrep: number;
  /** The Grep of `RareWidgetName`; nine doc files each Read in two other sessions. */
  widgetGrep: number;
  /** The Read of src/server/handler.go. */
  handlerRead: number;
  /** The Read of src/erk/cli/sync_cmd.py (no turn names `sync_cmd` as an identifier). */
  syncRead: number;
  /** src/app/widget.ts: its Read (older), then a commit that lists it (newer). */
  widgetRead: number;
  widgetCommit: number;
  /** src/app/gadget.ts: a `wc -l` of it (older), then `cd ... && git commit` of it (newer). */
  gadgetCount: number;
  gadgetCommit: number;
  /** One commit listing src/app/lonely.ts and src/app/pair.ts, nothing else naming them. */
  lonelyCommit: number;
  /** A pull request whose body alone names docs/PROTOCOL.md. */
  protocolPr: number;
}

async function world(sb: Sandbox): Promise<World> {
  const at = (n: number) => daysAgo(SESSIONS + 5 - n);
  const s0 = new Session(sid(0x100), P, at(0));
  const cleanupGrep = s0.tool("Grep", { pattern: "class CleanupType", path: `${P}/src` });
  s0.result("src/cleanup.py");
  await s0.write(sb);

  const s1 = new Session(sid(0x101), P, at(1));
  // `GitHub` in this one session only
  s1.tool("Bash", { command: 'gh pr create --title "sync GitHub labels"' });
  s1.result("https://example.invalid/pr/1");
  // the project's own name, spelled as an identifier
  s1.tool("Bash", { command: 'git tag -a v2 -m "WidgetWorks 2.0"' });
  s1.result("");
  await s1.write(sb);

  // the guide's nine topics are read in two sessions each, as a project's docs are
  const s2 = new Session(sid(0x102), P, at(2));
  for (let i = 1; i <= 9; i++) s2.read(`${P}/docs/guide/topic_${i}.md`, `# Topic ${i}`);
  await s2.write(sb);
  const s2b = new Session(sid(0x1ff), P, at(2.5));
  for (let i = 1; i <= 9; i++) s2b.read(`docs/guide/topic_${i}.md`, `# Topic ${i}`);
  await s2b.write(sb);
  const s3 = new Session(sid(0x103), P, at(3));
  const widgetGrep = s3.tool("Grep", { pattern: "RareWidgetName", path: `${P}/src` });
  s3.result("src/app/rare.ts");
  await s3.write(sb);

  const s4 = new Session(sid(0x104), P, at(4));
  const [handlerRead] = s4.read(`${P}/src/server/handler.go`, "package server");
  await s4.write(sb);

  const s5 = new Session(sid(0x105), P, at(5));
  const [syncRead] = s5.read(`${P}/src/erk/cli/sync_cmd.py`, "def sync(): ...");
  await s5.write(sb);

  const s6 = new Session(sid(0x106), P, at(6));
  const [widgetRead] = s6.read(`${P}/src/app/widget.ts`, "export const widget = 1;");
  const gadgetCount = s6.tool("Bash", { command: `wc -l ${P}/src/app/gadget.ts` });
  s6.result("3");
  await s6.write(sb);
  const s7 = new Session(sid(0x107), P, at(7));
  const widgetCommit = s7.tool("Bash", {
    command: 'git add src/app/widget.ts && git commit -m "widget: one more"',
  });
  s7.result("[main 1234567] widget: one more");
  // a commit after a `cd`: stored as a mention of the path, like the `wc -l` above
  const gadgetCommit = s7.tool("Bash", {
    command: `cd ${P} && git add src/app/gadget.ts && git commit -m "gadget"`,
  });
  s7.result("[main 89abcde] gadget");
  // a folder named only by a Bash line
  s7.tool("Bash", { command: `ls ${P}/src/widgets/` });
  s7.result("a.ts");
  await s7.write(sb);

  // files only ever staged and committed, and a doc only a pull request's body names
  const s8 = new Session(sid(0x108), P, at(8));
  const lonelyCommit = s8.tool("Bash", {
    command: 'git add src/app/lonely.ts src/app/pair.ts && git commit -m "lonely and pair"',
  });
  s8.result("[main 2468ace] lonely and pair");
  const protocolPr = s8.tool("Bash", {
    command: "gh pr create --title protocol --body 'Adds docs/PROTOCOL.md for the schemas'",
  });
  s8.result("https://example.invalid/pr/2");
  await s8.write(sb);

  // every session runs the same check: `check_all` is held by all 50
  const all = [s0, s1, s2, s2b, s3, s4, s5, s6, s7, s8];
  for (let n = all.length; n < SESSIONS; n++) {
    const s = new Session(sid(0x100 + n), P, at(n));
    s.user(`session ${n}`);
    await s.write(sb);
    all.push(s);
  }
  for (const [n, s] of all.entries()) {
    s.tool("Bash", { command: `make check_all # ${n}` });
    s.result("ok");
    await s.write(sb);
  }
  await ingestSettled(sb);
  const id = (u: string) => turnIdOf(sb, u);
  return {
    cleanupGrep: id(cleanupGrep),
    widgetGrep: id(widgetGrep),
    handlerRead: id(handlerRead),
    syncRead: id(syncRead),
    widgetRead: id(widgetRead),
    widgetCommit: id(widgetCommit),
    gadgetCount: id(gadgetCount),
    gadgetCommit: id(gadgetCommit),
    lonelyCommit: id(lonelyCommit),
    protocolPr: id(protocolPr),
  };
}

function handed(sb: Sandbox, prompt: string) {
  const o = openRead(sb.store);
  assert.ok(o, "no store");
  try {
    const r = recall({
      db: o.db,
      vis: { project: P, exclude: [] },
      sessionId: OTHER,
      // as the hook reads them: every name, the lookup keeps the rarest 8
      spellings: spellings(prompt, P, RECALL_NAMES_SEEN, sb.home),
      cwd: P,
      prompt,
      thresholds: THRESHOLDS,
      suppress: new Map(),
      owedKnown: null,
      promptChars: 4000,
      filter: (s) => s,
    });
    return { ids: r.injected.map((i) => i.id), lookedUp: r.lookedUp, common: r.common, r };
  } finally {
    o.db.close();
  }
}

Deno.test("recall by rarity: short names fire when rare, everyday and everywhere names never alone; the 8 names go to the rarest; pasted paths, stems and direct actions", async (t) => {
  await using sb = await sandbox();
  const w = await world(sb);

  await t.step("a short PascalCase name held by 1 session of 50 fires", () => {
    const r = handed(sb, "where is CleanupType defined and who uses it?");
    assert.deepEqual(r.ids, [w.cleanupGrep]);
    assert.deepEqual(r.common, []);
  });

  await t.step(
    "an everyday word does not, however rare (nor the project's own name); nor a name every session holds",
    () => {
      const gh = handed(sb, "push it to GitHub when done");
      assert.deepEqual(gh.ids, []);
      assert.deepEqual(gh.common, ["GitHub"]);
      const own = handed(sb, "what does WidgetWorks 2.0 change?");
      assert.deepEqual(own.ids, []);
      assert.deepEqual(own.common, ["WidgetWorks"]);
      const every = handed(sb, "does check_all pass now?");
      assert.deepEqual(every.ids, []);
      assert.deepEqual(every.common, ["check_all"]);
      // a rare name beside them still brings its turn
      assert.deepEqual(handed(sb, "GitHub says CleanupType broke check_all").ids, [w.cleanupGrep]);
    },
  );

  await t.step("a plan listing 9 doc paths and one rare identifier still looks it up", () => {
    const docs = Array.from({ length: 9 }, (_, i) => `- docs/guide/topic_${i + 1}.md`);
    const plan = ["# Plan: tidy the guide", "", "Read first:", ...docs, "", "Then rename"]
      .join("\n") + " RareWidgetName everywhere.";
    const r = handed(sb, plan);
    // named last, held by the fewest sessions: looked up first, and its Grep handed over first
    assert.equal(r.lookedUp[0], "RareWidgetName");
    assert.equal(r.lookedUp.length, THRESHOLDS.max_candidates);
    assert.equal(r.ids[0], w.widgetGrep);
  });

  await t.step("dotted calls and names never archived take no slot", () => {
    const calls = "erk.cli.ensure source_wt.resolve .show ctx.git.fetch repo.root_path " +
      "self.assertEqual os.path.join json.dumps zz_never_seen_anywhere";
    const r = handed(sb, `call ${calls} and then fix RareWidgetName`);
    assert.deepEqual(r.lookedUp, ["RareWidgetName"]);
    assert.deepEqual(r.ids, [w.widgetGrep]);
    assert.ok(r.r.unheld.includes("erk.cli.ensure"), JSON.stringify(r.r.unheld));
  });

  await t.step("`@path`, `path:N-M` and `@/abs/path:N-M` are the path", () => {
    for (
      const p of [
        "look at src/server/handler.go",
        "look at @src/server/handler.go",
        "look at src/server/handler.go:680-706",
        `look at @${P}/src/server/handler.go:680-706 please`,
        "see src/server/handler.go#L680-L706",
      ]
    ) assert.deepEqual(handed(sb, p).ids, [w.handlerRead], p);
  });

  await t.step("a file stem finds the stored file it names", () => {
    assert.deepEqual(handed(sb, "why does sync_cmd skip the remote?").ids, [w.syncRead]);
    // its stem with a different tail is another name, never archived
    assert.deepEqual(handed(sb, "why does sync_cmd_v2 skip the remote?").ids, []);
  });

  await t.step("a line that only stages, commits or opens a PR for one name brings nothing", () => {
    // the Read of the file is handed over, the newer commit that lists it is not
    assert.deepEqual(handed(sb, "what changed in src/app/widget.ts?").ids, [w.widgetRead]);
    // nor a commit run after a `cd` (stored as a mention: its text tells)
    assert.deepEqual(handed(sb, "what changed in src/app/gadget.ts?").ids, [w.gadgetCount]);
    // a file only ever committed, a doc only a pull request's body names: nothing at all
    assert.deepEqual(handed(sb, "please review src/app/lonely.ts").ids, []);
    const pr = handed(sb, "does docs/PROTOCOL.md cover the schemas?");
    assert.deepEqual(pr.lookedUp, [`${P}/docs/PROTOCOL.md`]);
    assert.deepEqual(pr.ids, []);
    // beside a second name the commit matched, it is two distinct matches, and it stays
    const both = handed(sb, "review src/app/lonely.ts against src/app/pair.ts");
    assert.deepEqual(both.ids, [w.lonelyCommit]);
  });

  await t.step("a folder a Bash line only named brings nothing alone", () => {
    const r = handed(sb, "what is in src/widgets?");
    assert.deepEqual(r.ids, []);
    assert.deepEqual(r.common, [`${P}/src/widgets`]);
  });
});
