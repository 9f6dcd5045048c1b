/**
 * What a person sees in an 80-column terminal, run under tmux: `sessions`, `search`,
 * `sessions changes`, `doctor` and `status` each fit (no line wraps: the pane is read with
 * wrapped lines joined, so a line wider than the pane shows as one), and no escape sequence
 * shows as text, in colour and under NO_COLOR. The session list fits through the pager too.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliArgs } from "./helpers.ts";
import { ingest, put, Transcript, type World, world } from "./read_helpers.ts";
import { hasTmux, shq, Tmux } from "./e2e/tmux.ts";
import { width } from "../core/width.ts";

const TMUX = hasTmux();
if (!TMUX) console.warn("tmux was not found; the 80-column terminal tests are skipped");

const COLS = 80;
/** A long project path, branch and title: what made the list 90-95 columns wide. */
const PROJECT_DIR = "a-project-folder-with-a-rather-long-name/and-a-nested-worktree-folder";

async function archive(): Promise<{ w: World; app: string }> {
  const w = await world();
  const app = w.dir(PROJECT_DIR);
  for (let i = 0; i < 25; i++) {
    const day = String(1 + (i % 28)).padStart(2, "0");
    const t = new Transcript({
      sessionId: `80808080-0000-4000-8000-${String(i).padStart(12, "0")}`,
      cwd: app,
      start: `2026-03-${day}T09:00:00.000Z`,
      branch: `plnd/a-long-branch-name-as-erk-makes-them-03-${day}-0620`,
    });
    t.user(`/erk:plan-implement ${8400 + i} and a long first prompt about the toast notification`);
    t.toolUse("Edit", {
      file_path: join(app, "src/check.py"),
      old_string: "  check=False,",
      new_string:
        "  check=True,  # a failed command must stop the run here rather than be noticed three steps later",
    });
    t.toolResult("The file has been updated.");
    t.assistant(
      "The toast notification now waits for the check, which is strict: a failed command stops the run where it failed, and the message says which command it was.",
    );
    await put(w, t);
  }
  await ingest(w);
  return { w, app };
}

/**
 * Runs `terminus <args>` in a tmux pane COLS wide; returns the screen with wrapped lines joined
 * (`-J`) and the same with its escape sequences (`-e`). `keys` are sent once `ready` shows
 * (a pager's `q`), and the run ends when the command has.
 */
async function onScreen(
  w: World,
  cwd: string,
  args: string[],
  env: Record<string, string>,
  o: { rows?: number; ready?: RegExp; keys?: string[] } = {},
): Promise<{ joined: string; escaped: string; code: number }> {
  await using t = new Tmux();
  const script = join(w.sb.dir, `fit-${crypto.randomUUID().slice(0, 8)}.sh`);
  const done = `${script}.done`;
  await Deno.writeTextFile(
    script,
    [
      "#!/bin/sh",
      ...Object.entries({ ...w.sb.env, TERM: "xterm-256color", ...env }).map(([k, v]) =>
        `export ${k}=${shq(v)}`
      ),
      `cd ${shq(cwd)}`,
      `${shq(Deno.execPath())} ${cliArgs(args).map(shq).join(" ")}`,
      `echo $? > ${shq(done)}`,
      "sleep 30",
    ].join("\n") + "\n",
    { mode: 0o755 },
  );
  await t.run(script, COLS, o.rows ?? 200);
  let joined = "";
  let escaped = "";
  if (o.ready) {
    await t.until((s) => o.ready!.test(s), String(o.ready));
    // what the pager shows, before it is left
    joined = await t.tmux("capture-pane", "-p", "-J", "-t", "b");
    escaped = await t.tmux("capture-pane", "-p", "-e", "-t", "b");
    for (const k of o.keys ?? []) await t.keys(k);
  }
  let code = -1;
  for (let i = 0; i < 600; i++) {
    try {
      code = Number((await Deno.readTextFile(done)).trim());
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  if (!o.ready) {
    joined = await t.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "b");
    escaped = await t.tmux("capture-pane", "-p", "-e", "-S", "-", "-t", "b");
  }
  return { joined, escaped, code };
}

function assertFits(what: string, screen: string) {
  const lines = screen.split("\n").map((l) => l.trimEnd()).filter((l) => l !== "");
  assert.ok(lines.length > 0, `${what}: printed something`);
  for (const l of lines) assert.ok(width(l) <= COLS, `${what}: ${width(l)} columns: ${l}`);
}

function assertNoEscapeText(what: string, screen: string) {
  // an escape the renderer escaped again shows as \u001b; one half-written shows as [31m
  assert.doesNotMatch(screen, /\\u001b|\\x1b|\[\d+(;\d+)*m/, `${what}: escape as text`);
}

Deno.test({
  name:
    "at 80 columns sessions, search, sessions changes, doctor and status fit, escapes never shown as text",
  ignore: !TMUX,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { w, app } = await archive();
    await using _ = w;
    const runs: [string, string[]][] = [
      ["sessions", ["sessions"]],
      ["sessions --all", ["sessions", "--all"]],
      ["search", ["search", "toast", "notification", "--limit", "5"]],
      ["sessions search", ["sessions", "search", "toast", "--limit", "5"]],
      ["sessions changes", ["sessions", "changes", "3"]],
      ["doctor", ["doctor"]],
      ["status", ["status"]],
      ["sessions --help", ["sessions", "--help"]],
    ];
    for (const colour of [{ NO_COLOR: "" }, { NO_COLOR: "1" }]) {
      for (const [what, args] of runs) {
        const r = await onScreen(w, app, args, { ...colour, PAGER: "cat" });
        assert.ok(r.code === 0 || (what === "doctor" && r.code === 1), `${what}: exit ${r.code}`);
        assertFits(`${what} (NO_COLOR=${colour.NO_COLOR})`, r.joined);
        assertNoEscapeText(what, r.joined);
        if (colour.NO_COLOR === "1") {
          assert.ok(!r.escaped.includes("\x1b[3"), `${what}: no colour under NO_COLOR`);
        }
      }
    }
    // the list keeps the number and day whole and cuts the title last
    const list = await onScreen(w, app, ["sessions"], { PAGER: "cat" });
    const rows = list.joined.split("\n").filter((l) => l.startsWith("#"));
    assert.equal(rows.length, 20, "a page");
    for (const l of rows) assert.match(l, /^#\d+ +2026-03-\d\d {2}\/erk:plan-implement 84\d\d/);
    assert.doesNotMatch(list.joined, /\.jsonl/, "the file name gave way first");
    assert.match(list.joined, /20 of 25 session\(s\), the newest; --limit <n> or --all lists more/);
    // the diff's colours reach the terminal as colours
    const changes = await onScreen(w, app, ["sessions", "changes", "3"], {
      NO_COLOR: "",
      PAGER: "cat",
    });
    assert.ok(changes.escaped.includes("\x1b[31m"), "red for the removed line");
  },
});

Deno.test({
  name: "through the pager at 80x24 the session list still fits, and its styling passes through",
  ignore: !TMUX,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const { w, app } = await archive();
    await using _ = w;
    const r = await onScreen(w, app, ["sessions", "--all"], { PAGER: "less -R", NO_COLOR: "" }, {
      rows: 24,
      ready: /^#\d+ /m,
      keys: ["q"],
    });
    assert.equal(r.code, 0);
    const rows = r.joined.split("\n").filter((l) => l.startsWith("#"));
    assert.ok(rows.length >= 20, `the pager showed a screenful:\n${r.joined}`);
    assertFits("sessions --all in less", r.joined);
    assertNoEscapeText("sessions --all in less", r.joined);
  },
});
