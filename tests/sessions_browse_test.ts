/**
 * terminus sessions browse, driven through a real terminal: tmux runs it at 80x24, send-keys
 * types, capture-pane reads the screen. Waits poll the screen a bounded number of times; no
 * assertion depends on how long anything took.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { cliArgs, exists } from "./helpers.ts";
import { ingest, put, Transcript, type World, world } from "./read_helpers.ts";
import { hasTmux, shq, Tmux as BaseTmux } from "./e2e/tmux.ts";

const TMUX = hasTmux();
if (!TMUX) console.warn("tmux was not found; the sessions browse tests are skipped");

const SIDS = [
  "b0000000-0000-4000-8000-000000000001",
  "b0000000-0000-4000-8000-000000000002",
  "b0000000-0000-4000-8000-000000000003",
];

async function threeSessions(): Promise<{ w: World; alpha: string; files: string[] }> {
  const w = await world();
  const alpha = w.dir("alpha");
  const talk = [
    ["fix the kestrel upload test", "The kestrel upload test was flaky: a timeout of 5 ms."],
    ["where is the retry budget set", "It is 3, set in src/worker.ts line 1."],
    ["rename the zebra module", "Renamed zebra to stripes everywhere."],
  ];
  const files: string[] = [];
  for (let i = 0; i < 3; i++) {
    const t = new Transcript({
      sessionId: SIDS[i],
      cwd: alpha,
      start: `2026-03-0${i + 1}T09:00:00.000Z`,
    });
    t.user(talk[i][0]);
    t.assistant(talk[i][1]);
    files.push(await put(w, t));
  }
  await ingest(w);
  return { w, alpha, files };
}

/** `terminus sessions browse` in a tmux pane; its stdout and exit code land in files. */
class Tmux extends BaseTmux {
  constructor(readonly dir: string) {
    super();
  }

  async start(env: Record<string, string>, cwd: string): Promise<void> {
    const script = join(this.dir, "browse.sh");
    await Deno.writeTextFile(
      script,
      [
        "#!/bin/sh",
        ...Object.entries({ ...env, TERM: "xterm-256color" }).map(([k, v]) =>
          `export ${k}=${shq(v)}`
        ),
        `cd ${shq(cwd)}`,
        `${shq(Deno.execPath())} ${cliArgs(["sessions", "browse"]).map(shq).join(" ")} > ${
          shq(join(this.dir, "out"))
        }`,
        `echo $? > ${shq(join(this.dir, "code"))}`,
        "sleep 30",
      ].join("\n") + "\n",
      { mode: 0o755 },
    );
    await this.run(script);
  }

  /** Waits for the browser to exit; returns its stdout and exit code. */
  async exited(): Promise<{ out: string; code: number; err: string }> {
    const code = join(this.dir, "code");
    for (let i = 0; i < 600 && !(await exists(code)); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    return {
      code: Number((await Deno.readTextFile(code)).trim()),
      out: await Deno.readTextFile(join(this.dir, "out")),
      err: await this.screen(),
    };
  }
}

const lines = (screen: string) => screen.split("\n");

Deno.test({
  name:
    "browse at 80x24: typing filters before and after arrow keys, Tab previews, Enter prints the resume line; redraws on resize",
  ignore: !TMUX,
  async fn() {
    const { w, alpha } = await threeSessions();
    await using _ = w;
    await using t = new Tmux(w.sb.dir);
    await t.start(w.sb.env, alpha);
    let s = await t.until((x) => x.includes("3 found"), "three sessions");
    assert.ok(lines(s)[0].startsWith(`terminus sessions · ${alpha} · 3 found`), s);
    assert.ok(s.includes("rename the zebra module"));
    assert.ok(lines(s).every((l) => [...l].length <= 80), "nothing wider than the terminal");

    await t.type("retry");
    s = await t.until((x) => x.includes("1 found"), "one match for 'retry'");
    assert.ok(s.includes("search: retry"));
    assert.match(s, /> #\d+ {2}2026-03-02 {2}where is the retry budget set/);
    assert.doesNotMatch(s, /zebra/);

    await t.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace");
    s = await t.until((x) => x.includes("3 found"), "all three again");
    // arrows move, and typing after them still filters: letters are never commands
    await t.keys("Down", "Down", "Up");
    await t.type("zeb");
    s = await t.until((x) => x.includes("1 found"), "typing after the arrows filters");
    assert.ok(s.includes("search: zeb"), s);
    assert.match(s, /> #\d+ {2}2026-03-03 {2}rename the zebra module/);
    // p, a, q, r, e and t are text like any other
    await t.keys("C-u");
    await t.until((x) => x.includes("3 found"), "Ctrl-U clears the line");
    await t.type("paqret");
    s = await t.until((x) => x.includes("search: paqret"), "letters went to the search line");
    assert.ok(s.includes("0 found"), s);
    await t.keys("C-u");
    await t.until((x) => x.includes("3 found"), "cleared again");

    await t.keys("Down");
    await t.keys("Tab");
    s = await t.until((x) => x.includes("─".repeat(80)), "the preview pane");
    assert.match(s, /> #\d+ {2}2026-03-02 {2}where is the retry budget set/);
    assert.ok(s.includes("It is 3, set in src/worker.ts line 1."), s);
    assert.equal(lines(s).length >= 24, true);

    await t.keys("C-a");
    s = await t.until((x) => x.includes("terminus sessions · all projects"), "every project");
    await t.tmux("resize-window", "-t", "b", "-x", "100", "-y", "30");
    s = await t.until((x) => x.includes("─".repeat(100)), "a redraw at 100 columns");

    await t.keys("Enter");
    const r = await t.exited();
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `cd ${alpha} && claude --resume ${SIDS[1]}\n`);
  },
});

Deno.test({
  name: "browse: Ctrl-T tags, Ctrl-E exports; Esc and Ctrl-C leave with 130 printing nothing",
  ignore: !TMUX,
  async fn() {
    const { w, alpha } = await threeSessions();
    await using _ = w;
    {
      await using t = new Tmux(join(w.sb.dir));
      await t.start(w.sb.env, alpha);
      await t.until((x) => x.includes("3 found"), "three sessions");
      await t.type("zebra");
      await t.until((x) => x.includes("1 found"), "the zebra session");
      await t.keys("C-t");
      await t.until((x) => x.includes("tag #"), "the tag prompt");
      await t.type("bughunt");
      await t.keys("Enter");
      let s = await t.until((x) => x.includes("tags +bughunt"), "the tag confirmed");
      assert.match(s, /rename the zebra module {2}\+bughunt/);

      await t.keys("C-e");
      s = await t.until((x) => x.includes("exported to"), "the export confirmed");
      // into a folder of its own in the temp directory, never the project's working tree
      const md = (/exported to (\S*\/session-\d+\.md)/.exec(s) ?? [])[1] ?? "none";
      assert.ok(await exists(md), s);
      assert.ok(!md.startsWith(alpha), md);
      assert.deepEqual([...Deno.readDirSync(alpha)].filter((e) => e.name.endsWith(".md")), []);
      assert.match(await Deno.readTextFile(md), /rename the zebra module/);
      await Deno.remove(join(md, ".."), { recursive: true });
      await t.keys("C-c");
      const r = await t.exited();
      assert.equal(r.code, 130, r.err);
      assert.equal(r.out, "");
    }
    const db = new DatabaseSync(w.sb.store, { readOnly: true });
    try {
      assert.deepEqual(
        db.prepare("SELECT tag FROM session_tags").all().map((r) => r.tag),
        ["bughunt"],
      );
    } finally {
      db.close();
    }
    {
      // +tag in the search line filters; Esc leaves
      await using t = new Tmux(join(w.sb.dir, "alpha"));
      await t.start(w.sb.env, alpha);
      await t.until((x) => x.includes("3 found"), "three sessions");
      await t.type("+bughunt");
      await t.until((x) => x.includes("1 found"), "the tagged session");
      await t.keys("Escape");
      const r = await t.exited();
      assert.equal(r.code, 130, r.err);
      assert.equal(r.out, "");
    }
  },
});

Deno.test({
  name:
    "browse: a session whose transcript Claude Code deleted is marked, Enter offers Ctrl-R, which restores it for Enter to resume",
  ignore: !TMUX,
  async fn() {
    const { w, alpha, files } = await threeSessions();
    await using _ = w;
    await Deno.remove(files[2]);
    await using t = new Tmux(w.sb.dir);
    await t.start(w.sb.env, alpha);
    await t.type("zebra");
    let s = await t.until((x) => x.includes("1 found"), "the zebra session");
    assert.match(s, /rename the zebra module {2}\(deleted\)/);
    await t.keys("Enter");
    s = await t.until((x) => x.includes("Ctrl-R restores it"), "the offer to restore");
    assert.ok(!(await exists(join(w.sb.dir, "code"))), "Enter did not leave");
    await t.keys("C-r");
    s = await t.until((x) => x.includes("restored"), "the restore confirmed");
    assert.ok(await exists(files[2]), "the transcript is back");
    assert.doesNotMatch(s, /\(deleted\)/);
    await t.keys("Enter");
    const r = await t.exited();
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, `cd ${alpha} && claude --resume ${SIDS[2]}\n`);
  },
});

Deno.test({
  name: "browse at 80x24: wide characters count two columns, so a title never wraps the screen",
  ignore: !TMUX,
  async fn() {
    const w = await world();
    await using _ = w;
    const alpha = w.dir("alpha");
    const t = new Transcript({ sessionId: SIDS[0], cwd: alpha, start: "2026-03-01T09:00:00.000Z" });
    // the genuine corpus has prompts like this one: 40 wide characters are 80 columns
    t.user(
      "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください。変更点を全部まとめて報告して",
    );
    t.assistant("更新しました。");
    await put(w, t);
    await ingest(w);
    await using tm = new Tmux(w.sb.dir);
    await tm.start(w.sb.env, alpha);
    const s = await tm.until((x) => x.includes("1 found"), "the session");
    const ls = lines(s);
    assert.ok(ls[0].startsWith("terminus sessions · "), s);
    assert.ok(ls[1].startsWith("search: "), s);
    assert.match(ls[2], /^> #\d+ {2}2026-03-01 {2}\/orchestrator @CLAUDE\.md を.*…$/);
    const width = (l: string) =>
      [...l].reduce((n, c) => n + (/[\u3000-\u9fff\uff00-\uff60]/.test(c) ? 2 : 1), 0);
    assert.ok(ls.every((l) => width(l) <= 80), s);
    await tm.keys("Escape");
    assert.equal((await tm.exited()).code, 130);
  },
});

Deno.test("browse: without a terminal it says so and exits 1; --json is misuse", async () => {
  const { w, alpha } = await threeSessions();
  await using _ = w;
  const r = await w.run(["sessions", "browse"], { cwd: alpha });
  assert.equal(r.code, 1);
  assert.equal(r.out, "");
  assert.match(r.err, /sessions browse needs a terminal on stdin and stderr/);
  const j = await w.run(["sessions", "browse", "--json"], { cwd: alpha });
  assert.equal(j.code, 2);
  assert.match(j.err, /sessions browse is interactive; it takes no --json/);
});
