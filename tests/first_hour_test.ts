/**
 * The first hour's small things: a transcript Claude Code deleted is marked and offered a
 * restore; the sessions table fits the terminal (the title is cut, the number and date never);
 * doctor and status states are coloured on a terminal only; "no store yet" names backfill;
 * help hides --work; --prompts leaves out compaction summaries.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { table, width } from "../core/table.ts";
import { painted } from "../core/output.ts";
import { cliArgs, runCli, sandbox } from "./helpers.ts";
import { ingest, put, Transcript, world } from "./read_helpers.ts";
import { hasTmux, shq, Tmux } from "./e2e/tmux.ts";

const TMUX = hasTmux();

Deno.test("a deleted transcript: marked in the list, no resume line, show offers restore", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const id = "79797979-0000-4000-8000-000000000001";
  const t = new Transcript({ sessionId: id, cwd: alpha, start: "2026-03-01T09:00:00.000Z" });
  t.user("a session Claude Code will sweep");
  t.assistant("ok");
  const file = await put(w, t);
  await ingest(w);
  type V = { resume: string | null; transcript_present: boolean | null };
  const view = async () =>
    ((await w.json(["sessions"], { cwd: alpha })).data as { sessions: V[] }).sessions[0];
  assert.equal((await view()).transcript_present, true);
  assert.ok((await view()).resume);
  await Deno.remove(file);
  assert.equal((await view()).transcript_present, false);
  assert.equal((await view()).resume, null, "no claude --resume line that would fail");
  const list = await w.run(["sessions"], { cwd: alpha });
  assert.match(list.out, /\(deleted\)/);
  const show = await w.run(["sessions", "show", "1", "--no-pager"], { cwd: alpha });
  assert.equal(show.code, 0, show.err);
  assert.match(
    show.out,
    /restore +the transcript was deleted by Claude Code; terminus sessions restore 1 brings it back/,
  );
  assert.doesNotMatch(show.out, /claude --resume/);
  const restored = await w.run(["sessions", "restore", "1"], { cwd: alpha });
  assert.equal(restored.code, 0, restored.err);
  assert.equal((await view()).transcript_present, true);
  assert.match((await view()).resume ?? "", /claude --resume 79797979/);
  assert.doesNotMatch((await w.run(["sessions"], { cwd: alpha })).out, /\(deleted\)/);
});

Deno.test("table: the cuttable columns give way in order; the others never do", () => {
  const rows = [
    [
      "#12",
      "2026-03-01",
      "a long title that goes on and on and on",
      "f.jsonl",
      "/a/very/long/project",
    ],
    ["#3", "2026-03-02", "short", "g.jsonl", "/p"],
  ];
  const cols = [{}, {}, { cut: 1, min: 8 }, {}, { cut: 2, min: 4 }];
  const wide = table(rows, cols, null);
  assert.equal(wide[0].indexOf("f.jsonl"), wide[1].indexOf("g.jsonl"), "aligned");
  assert.ok(wide[0].includes("a long title that goes on and on and on"));
  const narrow = table(rows, cols, 60);
  for (const l of narrow) assert.ok(width(l) <= 60, l);
  assert.ok(narrow[0].startsWith("#12  2026-03-01  "), "number and date whole");
  assert.match(narrow[0], /…/);
  assert.ok(narrow[0].includes("/a/very/long/project"), "the title gave way first");
  const tight = table(rows, cols, 30);
  assert.ok(tight[0].startsWith("#12  2026-03-01  "), "never the number or the date");
  assert.ok(tight[1].startsWith("#3   2026-03-02  "));
});

/** Runs `args` in a tmux pane `cols` wide; returns the screen and the raw bytes with escapes. */
async function inPane(
  env: Record<string, string>,
  cwd: string,
  args: string[],
  cols: number,
  dir: string,
): Promise<{ screen: string; escaped: string }> {
  await using t = new Tmux();
  const script = join(dir, `run-${crypto.randomUUID().slice(0, 6)}.sh`);
  const done = `${script}.done`;
  await Deno.writeTextFile(
    script,
    [
      "#!/bin/sh",
      `cd ${shq(cwd)}`,
      // exactly `env`, nothing of the caller's (tmux hands its panes the caller's environment):
      // a NO_COLOR exported by whoever runs the tests must not reach the program
      `env -i ${
        Object.entries({ ...env, TERM: "xterm-256color", PAGER: "cat" }).map(([k, v]) =>
          `${k}=${shq(v)}`
        ).join(" ")
      } ${shq(Deno.execPath())} ${cliArgs(args).map(shq).join(" ")}`,
      `touch ${shq(done)}`,
      "sleep 30",
    ].join("\n") + "\n",
    { mode: 0o755 },
  );
  await t.run(script, cols, 50);
  for (let i = 0; i < 600; i++) {
    try {
      await Deno.stat(done);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    screen: await t.screen(),
    escaped: await t.tmux("capture-pane", "-p", "-e", "-t", "b"),
  };
}

Deno.test({
  name:
    "on a terminal: the sessions list fits the width; doctor and status states are coloured unless NO_COLOR",
  ignore: !TMUX,
  async fn() {
    await using w = await world();
    const alpha = w.dir("a-project-folder-with-a-rather-long-name");
    for (let i = 0; i < 3; i++) {
      const t = new Transcript({
        sessionId: `7a7a7a7${i}-0000-4000-8000-000000000001`,
        cwd: alpha,
        start: `2026-03-0${i + 1}T09:00:00.000Z`,
      });
      t.user(`a first prompt long enough to need cutting at eighty columns, number ${i}`);
      t.assistant("ok");
      await put(w, t);
    }
    await ingest(w);
    const env = { ...w.sb.env };
    const list = await inPane(env, alpha, ["sessions"], 80, w.sb.dir);
    const rows = list.screen.split("\n").filter((l) => l.startsWith("#"));
    assert.equal(rows.length, 3, list.screen);
    for (const l of rows) {
      assert.ok(width(l) <= 80, `fits: ${l}`);
      assert.match(l, /^#\d {2}2026-03-0\d {2}/);
    }
    assert.match(rows[0], /…/, "the title was cut");
    assert.equal(rows[0].indexOf("turn(s)"), rows[2].indexOf("turn(s)"), "columns aligned");

    delete env.NO_COLOR;
    const doc = await inPane(env, alpha, ["doctor"], 120, w.sb.dir);
    assert.ok(doc.escaped.includes("\x1b[32mok"), "ok is green");
    assert.ok(
      ["\x1b[31mproblem", "\x1b[33mnote"].some((c) => doc.escaped.includes(c)),
      "a problem or note is coloured",
    );
    const plain = await inPane({ ...env, NO_COLOR: "1" }, alpha, ["doctor"], 120, w.sb.dir);
    assert.ok(
      !["\x1b[31m", "\x1b[32m", "\x1b[33m"].some((c) => plain.escaped.includes(c)),
      "NO_COLOR: no colour",
    );
    const piped = await runCli(w.sb, ["doctor"], { cwd: alpha, env: { NO_COLOR: "" } });
    assert.ok(!piped.out.includes("\x1b"), "a pipe gets no colour");
  },
});

Deno.test("the small things: no store names backfill; help hides --work; --prompts skips compaction summaries", async () => {
  await using sb = await sandbox();
  const r = await runCli(sb, ["sessions"]);
  assert.equal(r.code, 0);
  assert.match(
    r.err,
    /no store yet at .*; terminus backfill archives the transcripts already on disk/,
  );
  const h = await runCli(sb, ["help", "backfill"]);
  assert.doesNotMatch(h.out + h.err, /--work/);

  await using w = await world();
  const alpha = w.dir("alpha");
  const t = new Transcript({
    sessionId: "7b7b7b7b-0000-4000-8000-000000000001",
    cwd: alpha,
    start: "2026-03-01T09:00:00.000Z",
  });
  t.user("find the flamingo config");
  t.assistant("the flamingo config is in etc");
  t.user("This session is being continued from a previous conversation. flamingo summary", {
    isCompactSummary: true,
  });
  t.user("and the flamingo tests");
  await put(w, t);
  await ingest(w);
  const hits = (await w.json(["search", "flamingo", "--prompts"], { cwd: alpha })).data as {
    hits: { excerpt: string }[];
  };
  assert.equal(hits.hits.length, 2, JSON.stringify(hits));
  assert.ok(hits.hits.every((x) => !x.excerpt.includes("continued from")));
});

Deno.test("painted: state words in colour on a terminal, archived controls still escaped, plain otherwise", () => {
  const parts: (string | [string, string])[] = ["  ", ["problem", "problem"], " a\u001b[2Jb\n"];
  const styled = painted(parts, true);
  assert.ok(styled instanceof Uint8Array, "bytes, so the renderer writes the codes as they are");
  const text = new TextDecoder().decode(styled);
  assert.ok(text.includes("\x1b[31mproblem\x1b[0m"));
  assert.ok(text.includes("a\\u001b[2Jb"), "a control from the data is escaped");
  assert.equal(painted(parts, false), "  problem a\\u001b[2Jb\n");
});
