/**
 * terminus search on a terminal (issue 14, item 6), run under a real pseudo-terminal with
 * util-linux `script`: one header per session, labelled hits, a record archived twice shown
 * once, excerpts cut on word boundaries, the query's words in bold unless NO_COLOR is set.
 * Piped, the output keeps its two plain lines per hit.
 */
import assert from "node:assert/strict";
import { cliArgs } from "./helpers.ts";
import { ingest, put, Transcript, type World, world } from "./read_helpers.ts";
import { onWordBoundaries } from "../commands/search.ts";

const SCRIPT = (() => {
  try {
    return Deno.statSync("/usr/bin/script").isFile ? "/usr/bin/script" : null;
  } catch {
    return null;
  }
})();

const ESC = "\x1b";
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs the CLI with its stdout on a pseudo-terminal; returns what the terminal received. */
async function onTerminal(w: World, args: string[], cwd: string, env: Record<string, string>) {
  const line = [Deno.execPath(), ...cliArgs(args)].map(q).join(" ") + " 2>/dev/null";
  const o = await new Deno.Command(SCRIPT!, {
    args: ["-qec", line, "/dev/null"],
    cwd,
    env: { ...w.sb.env, ...env },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: o.code, out: new TextDecoder().decode(o.stdout).replace(/\r\n/g, "\n") };
}

Deno.test("the excerpt drops the part-words it was cut through and marks the cuts", () => {
  assert.equal(
    onWordBoundaries("ager retry budget lives he", { start: true, end: true }),
    "\u2026retry budget lives\u2026",
  );
  assert.equal(onWordBoundaries("whole text", { start: false, end: false }), "whole text");
});

Deno.test({
  name: "search on a terminal: a header per session, labels, no duplicate, bold unless NO_COLOR",
  ignore: SCRIPT === null,
  async fn() {
    await using w = await world();
    const app = w.dir("app");
    const long = "lorem ipsum dolor sit amet ".repeat(20);
    const a = new Transcript({
      sessionId: "11111111-1111-4111-8111-111111111111",
      cwd: app,
      start: "2026-03-01T10:00:00.000Z",
    });
    a.user(`${long} where is the quokka config ${long}`);
    a.toolUse("Read", { file_path: `${app}/quokka.toml` });
    a.toolResult("quokka = true");
    await put(w, a);
    // a resumed session: Claude Code copies the earlier record (same uuid) into the new file
    const b = new Transcript({
      sessionId: "22222222-2222-4222-8222-222222222222",
      cwd: app,
      start: "2026-03-02T10:00:00.000Z",
    });
    const copied = JSON.parse(a.lines[0]);
    copied.sessionId = "22222222-2222-4222-8222-222222222222";
    b.lines.push(JSON.stringify(copied));
    b.assistant("the quokka lives in quokka.toml");
    await put(w, b);
    await ingest(w);

    const color = await onTerminal(w, ["search", "quokka"], app, { NO_COLOR: "" });
    assert.equal(color.code, 0, color.out);
    const plain = color.out.replaceAll(`${ESC}[1m`, "").replaceAll(`${ESC}[22m`, "");
    const headers = plain.split("\n").filter((l) => /^\S/.test(l));
    // each header: the session's number and title (what `sessions show` takes), file, project
    assert.equal(headers.length, 2);
    const title = "lorem ipsum dolor sit amet";
    assert.match(
      headers.sort()[0],
      new RegExp(
        `^#1 {2}${title} .*\u2026 {2}11111111-1111-4111-8111-111111111111\.jsonl {2}${app}$`,
      ),
    );
    assert.match(
      headers[1],
      new RegExp(`^#2 {2}${title} .* {2}22222222-2222-4222-8222-222222222222\.jsonl {2}${app}$`),
    );
    assert.match(plain, /^ {2}\d+ {2}2026-03-0\d {2}prompt$/m);
    assert.match(plain, /^ {2}\d+ {2}2026-03-01 {2}tool call Read$/m);
    assert.match(plain, /^ {2}\d+ {2}2026-03-01 {2}tool result$/m);
    assert.match(plain, /^ {2}\d+ {2}2026-03-02 {2}reply$/m);
    assert.equal(plain.match(/ prompt$/gm)?.length, 1, "the copied prompt appears once");
    assert.ok(color.out.includes(`${ESC}[1mquokka${ESC}[22m`), color.out);
    const excerpt = plain.split("\n").find((l) => l.includes("where is the"))!;
    assert.match(excerpt, /^ {6}\u2026(lorem|ipsum|dolor|sit|amet) /, "starts on a whole word");
    assert.match(excerpt, / (lorem|ipsum|dolor|sit|amet)\u2026$/, "ends on a whole word");

    const noColor = await onTerminal(w, ["search", "quokka"], app, { NO_COLOR: "1" });
    assert.equal(noColor.code, 0);
    assert.ok(!noColor.out.includes(ESC));
    assert.equal(noColor.out, plain);

    // piped: unchanged, two plain lines per hit, every hit
    const piped = await w.run(["search", "quokka"], { cwd: app });
    const lines = piped.out.trimEnd().split("\n");
    assert.equal(lines.length, 2 * 5);
    for (let i = 0; i < lines.length; i += 2) {
      assert.match(lines[i], /^\d+ {2}2026-03-0\d {2}#\d+ {2}[0-9a-f-]+\.jsonl {2}\S+$/);
      assert.match(lines[i + 1], /^ {4}\S/);
    }
    assert.ok(!piped.out.includes(ESC) && !piped.out.includes("\u2026"), piped.out);
  },
});
