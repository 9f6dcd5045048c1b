/**
 * A closed stdout ends a command quietly, as `rg` and `gh` do: `terminus search x | head -1`
 * prints no BrokenPipe stack trace and exits as it would have. Every command that prints more
 * than one line is run twice against a real pipe: once with the reader gone before the command
 * writes, and once (for output larger than the pipe holds) with it closed after one line.
 */
import assert from "node:assert/strict";
import { cliArgs, type Sandbox } from "./helpers.ts";
import { ingest, put, Transcript, world } from "./read_helpers.ts";

/** Runs the CLI with stdout a pipe this side closes: at once, or after the first line. */
async function closedPipe(
  sb: Sandbox,
  args: string[],
  cwd: string,
  after: "start" | "one line",
): Promise<{ code: number; err: string; first: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(args),
    cwd,
    env: sb.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let first = "";
  if (after === "start") await child.stdout.cancel();
  else {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    while (!first.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      first += value;
    }
    await reader.cancel();
  }
  const err = new TextDecoder().decode(
    new Uint8Array(await new Response(child.stderr).arrayBuffer()),
  );
  const st = await child.status;
  return { code: st.code, err, first: first.split("\n")[0] };
}

async function normal(sb: Sandbox, args: string[], cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: cliArgs(args),
    cwd,
    env: sb.env,
    clearEnv: true,
    stdin: "null",
  }).output();
  return { code: out.code, out: new TextDecoder().decode(out.stdout) };
}

const trace = /BrokenPipe|Broken pipe|error: Uncaught|\bat .*\.ts:\d+/;

Deno.test("a closed stdout ends every command that prints more than one line quietly", async () => {
  await using w = await world();
  const alpha = w.dir("alpha");
  for (let s = 0; s < 3; s++) {
    const t = new Transcript({
      sessionId: `7878787${s}-0000-4000-8000-000000000001`,
      cwd: alpha,
      start: `2026-04-0${s + 1}T10:00:00.000Z`,
    });
    for (let i = 0; i < 40; i++) {
      t.user(`retry budget question ${i} ${"padding ".repeat(400)}`);
      t.assistant(`the retry budget answer ${i} ${"more text ".repeat(400)}`);
    }
    await put(w, t);
  }
  await ingest(w);
  const id = String(2 ** 24);
  const probes: string[][] = [
    ["--help"],
    ["help"],
    ["help", "search"],
    ["search", "retry", "--limit", "50"],
    ["search", "retry", "--json"],
    ["show", id, String(2 ** 24 + 1), "--after", "25"],
    ["sessions"],
    ["sessions", "show", "1", "--full", "--no-pager"],
    ["sessions", "export", "1", "--format", "md"],
    ["sessions", "export", "1", "--format", "jsonl"],
    ["status"],
    ["usage"],
    ["stats"],
    ["doctor"],
    ["observations"],
    ["replay"],
    ["retention"],
  ];
  let multi = 0;
  let streamed = 0;
  for (const args of probes) {
    const n = await normal(w.sb, args, alpha);
    if (n.out.split("\n").filter((l) => l !== "").length < 2 && !args.includes("--json")) continue;
    multi++;
    const at = await closedPipe(w.sb, args, alpha, "start");
    assert.doesNotMatch(at.err, trace, `${args.join(" ")} (reader gone at once): ${at.err}`);
    assert.equal(at.code, n.code, `${args.join(" ")}: the exit code of a normal run`);
    if (n.out.length > 256 * 1024) {
      streamed++;
      const one = await closedPipe(w.sb, args, alpha, "one line");
      assert.doesNotMatch(one.err, trace, `${args.join(" ")} (after one line): ${one.err}`);
      assert.equal(one.code, n.code, args.join(" "));
      assert.equal(one.first, n.out.split("\n")[0]);
    }
  }
  assert.ok(multi >= 12, `${multi} commands printed more than one line`);
  assert.ok(streamed >= 2, `${streamed} outputs were larger than a pipe holds`);
});
