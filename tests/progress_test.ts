/**
 * Progress on long work: drawn on a terminal's stderr (a real pseudo-terminal from `script`),
 * never when stderr is a pipe or under --json, and never on stdout.
 */
import assert from "node:assert/strict";
import {
  cliArgs,
  cliOk,
  prng,
  type Sandbox,
  sandbox,
  syntheticSession,
  writeTranscript,
} from "./helpers.ts";
import { Progress, progressLine } from "../core/progress.ts";

const decoder = new TextDecoder();
/** Carriage return, then erase to the end of the line: how a progress line is taken away. */
const ERASE = "\r\x1b[K";

function shellWord(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Runs the CLI with stdin, stdout and stderr on a pseudo-terminal; returns what it showed. */
async function onTerminal(sb: Sandbox, args: string[]): Promise<{ code: number; screen: string }> {
  const env = Object.entries(sb.env).map(([k, v]) => `${k}=${shellWord(v)}`).join(" ");
  const argv = [Deno.execPath(), ...cliArgs(args)].map(shellWord).join(" ");
  const out = await new Deno.Command("script", {
    args: ["-qefc", `env -i ${env} ${argv}`, "/dev/null"],
    cwd: sb.dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, screen: decoder.decode(out.stdout) };
}

async function tree(sb: Sandbox): Promise<void> {
  for (let i = 0; i < 6; i++) {
    const id = `c0ffee00-0000-4000-8000-00000000000${i}`;
    await writeTranscript(
      sb.claude,
      `/nonexistent/progress/p${i % 2}`,
      `${id}.jsonl`,
      syntheticSession({
        sessionId: id,
        cwd: `/nonexistent/progress/p${i % 2}`,
        bytes: 400_000,
        rand: prng(i + 1),
        start: new Date("2026-05-01T10:00:00Z"),
      }),
    );
  }
}

Deno.test("progress line: done of total, rate and ETA; redrawn at most 10 times a second; cleared at the end", () => {
  assert.equal(
    progressLine("archiving", "bytes", 25_000_000, 100_000_000, 1000),
    "archiving  25.0 of 100.0 MB  25.0 MB/s  ETA 0:03",
  );
  assert.equal(
    progressLine("reindexing", "sessions", 30, 90, 2000),
    "reindexing  30 of 90 sessions  15.0/s  ETA 0:04",
  );
  let t = 0;
  const drawn: (string | null)[] = [];
  const p = new Progress("archiving", 10_000_000, "bytes", (l) => drawn.push(l), () => t);
  p.add(1_000_000); // the first count draws at once
  t = 50;
  p.add(1_000_000); // 50 ms later: not again
  t = 100;
  p.add(1_000_000); // 100 ms after the last draw: again
  p.finish();
  assert.equal(drawn.length, 3);
  assert.match(drawn[0]!, /^archiving {2}1\.0 of 10\.0 MB/);
  assert.match(drawn[1]!, /^archiving {2}3\.0 of 10\.0 MB {2}30\.0 MB\/s {2}ETA 0:00$/);
  assert.equal(drawn[2], null);
});

Deno.test("ingest, reindex, observations regenerate, export and data move show progress on a terminal, and nothing on a pipe or under --json", async () => {
  await using sb = await sandbox();
  await tree(sb);
  const ingest = await onTerminal(sb, ["ingest"]);
  assert.equal(ingest.code, 0, ingest.screen);
  assert.match(ingest.screen, /\rarchiving {2}[\d.]+ of [\d.]+ MB {2}[\d.]+ MB\/s/);
  assert.ok(ingest.screen.includes(ERASE), "the line is taken away at the end");

  const reindex = await onTerminal(sb, ["reindex"]);
  assert.equal(reindex.code, 0, reindex.screen);
  assert.match(reindex.screen, /\rreindexing {2}\d+ of 6 sessions/);
  const regen = await onTerminal(sb, ["observations", "regenerate"]);
  assert.equal(regen.code, 0, regen.screen);
  assert.match(regen.screen, /\rregenerating {2}\d+ of 6 sessions/);
  const exported = await onTerminal(sb, ["export", `${sb.dir}/out`]);
  assert.equal(exported.code, 0, exported.screen);
  assert.match(exported.screen, /\rexporting {2}[\d.]+ of [\d.]+ MB/);

  // under --json, even on a terminal: the one JSON line and nothing drawn
  const json = await onTerminal(sb, ["reindex", "--json"]);
  assert.equal(json.code, 0, json.screen);
  assert.doesNotMatch(json.screen, /reindexing/);
  assert.ok(!json.screen.includes(ERASE));
  // on a pipe: the same commands draw nothing
  for (const args of [["reindex"], ["ingest"], ["export", `${sb.dir}/out2`]]) {
    const r = await cliOk(sb, args);
    assert.doesNotMatch(r.err + r.out, /MB\/s|sessions {2}/, args.join(" "));
    assert.ok(!(r.err + r.out).includes(ERASE), args.join(" "));
  }

  // data move copies the whole data directory: last, since the data is elsewhere after it
  const moved = await onTerminal(sb, ["data", "move", `${sb.dir}/moved`, "--yes"]);
  assert.equal(moved.code, 0, moved.screen);
  assert.match(moved.screen, /\rcopying {2}[\d.]+ of [\d.]+ MB {2}[\d.]+ MB\/s/);
  assert.ok(moved.screen.includes(ERASE), "the copy's line is taken away");
  // and on a pipe, in a second sandbox, nothing is drawn
  await using other = await sandbox();
  await tree(other);
  await cliOk(other, ["ingest"]);
  const piped = await cliOk(other, ["data", "move", `${other.dir}/moved`, "--yes"]);
  assert.doesNotMatch(piped.err + piped.out, /copying|MB\/s/);
  assert.ok(!(piped.err + piped.out).includes(ERASE));
});
