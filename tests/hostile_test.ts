/** Hostile surroundings (issue 16): C1 controls in archived text never reach the terminal raw. */
import assert from "node:assert/strict";
import { ingest, put, splitLines, Transcript, type World, world } from "./read_helpers.ts";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  archivedStreams,
  assertSameBytes,
  bytes,
  cliArgs,
  cliOk,
  prng,
  runCli,
  type Sandbox,
  sandbox,
  syntheticSession,
  uuidFrom,
  writeConfig,
  writeTranscript,
} from "./helpers.ts";
import { settle, setupBox } from "./setup_helpers.ts";
import {
  additionalContext,
  ALPHA,
  daysAgo,
  holdLock,
  hookOnTime,
  hookSandbox,
  ingestSettled,
  promptPayload,
  Session,
  sid,
  startPayload,
} from "./inject_helpers.ts";
import { shellWord } from "../core/setup/locations.ts";
import { MCP_MESSAGE_MAX_BYTES } from "../core/constants.ts";
import { leadingId, LineSplitter } from "../mcp/stdio.ts";

/** U+0080–U+009F: a terminal may act on these (U+009B is a one-character CSI). */
function rawC1(s: string): string[] {
  return [...s].filter((c) => {
    const n = c.charCodeAt(0);
    return n >= 0x80 && n <= 0x9f;
  });
}

Deno.test("C1 controls in cwd, gitBranch and text print as \\u00XX escapes", async (t) => {
  await using w = await world();
  // a real project folder whose name carries CSI and NEL
  const proj = w.dir("proj\u009b2Jx\u0085y");
  const sid = "c1c1c1c1-0000-4000-8000-000000000001";
  const tr = new Transcript({
    sessionId: sid,
    cwd: proj,
    start: "2026-01-01T10:00:00.000Z",
    branch: "br\u009b31m\u0090",
  });
  tr.user("zebrafish question \u009b1m here");
  tr.assistant("zebrafish answer \u0085 there");
  tr.user("third turn");
  tr.at("2026-01-01T11:00:00.000Z").assistant("done");
  await put(w, tr);
  await ingest(w);
  const at = { cwd: proj };
  const id = w.ids().get(tr.turns[0])!;

  const check = async (args: string[], skipLine?: number) => {
    const r = await w.run(args, at);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.err}`);
    const lines = splitLines(r.stdout).map((l) => new TextDecoder().decode(l));
    const shown = lines.filter((_, i) => i !== skipLine).join("\n");
    assert.deepEqual(rawC1(shown), [], `${args.join(" ")} stdout:\n${shown}`);
    assert.deepEqual(rawC1(r.err), [], `${args.join(" ")} stderr:\n${r.err}`);
    return shown;
  };

  await t.step("search, with and without --raw", async () => {
    const out = await check(["search", "zebrafish"]);
    assert.ok(out.includes("\\u009b"), out);
    assert.ok(out.includes("proj\\u009b2Jx\\u0085y"), out);
    await check(["search", "zebrafish", "--raw"]);
  });

  await t.step("show: header and context escaped, the record itself byte for byte", async () => {
    const r = await w.run(["show", String(id)], at);
    const record = new TextDecoder().decode(splitLines(r.stdout)[1]);
    assert.ok(record.includes("\u009b1m"), "the record line stays byte for byte");
    const out = await check(["show", String(id), "--after", "2"], 1);
    assert.ok(out.split("\n")[0].includes("proj\\u009b2Jx\\u0085y"), out);
  });

  await t.step("sessions, observations, usage", async () => {
    const s = await check(["sessions"]);
    assert.ok(s.includes("br\\u009b31m\\u0090") || s.includes("proj\\u009b2J"), s);
    await check(["observations"]);
    await check(["usage"]);
  });
});

/** `terminus mcp` as Claude Code starts it, spoken to line by line over real pipes. */
function mcpChild(sb: Sandbox) {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(["mcp"]),
    cwd: sb.dir,
    env: sb.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let pending = "";
  const replies: Record<string, unknown>[] = [];
  return {
    child,
    async send(line: string | Uint8Array) {
      await writer.write(typeof line === "string" ? new TextEncoder().encode(line) : line);
    },
    /** The next reply; fails when the server ended first. */
    async next(): Promise<Record<string, unknown>> {
      while (!pending.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the server ended; replies so far: ${JSON.stringify(replies)}`);
        pending += value;
      }
      const at = pending.indexOf("\n");
      const r = JSON.parse(pending.slice(0, at));
      pending = pending.slice(at + 1);
      replies.push(r);
      return r;
    },
    async end() {
      await writer.close();
      reader.releaseLock();
      await child.stdout.cancel().catch(() => {});
      const status = await child.status;
      const err = new TextDecoder().decode(
        await new Response(child.stderr).arrayBuffer().then((b) => new Uint8Array(b)),
      );
      return { code: status.code, err };
    },
  };
}

Deno.test("mcp: a message of 10 MiB or more, malformed JSON, an invalid request and a wrong-typed name each get a JSON-RPC error, and the server stays up", async () => {
  await using sb = await sandbox();
  const s = mcpChild(sb);
  const req = (id: number, method: string, params: unknown = {}) =>
    JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n";
  await s.send(req(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "hostile", version: "0" },
  }));
  assert.equal((await s.next()).id, 1);
  await s.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");

  // exactly 10 MiB on the line (the newline not counted), sent in pieces
  const head =
    `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"recall_search","arguments":{"query":"`;
  const tail = `"}}}`;
  const big = new Uint8Array(MCP_MESSAGE_MAX_BYTES + 1).fill(0x61);
  big.set(new TextEncoder().encode(head));
  big.set(new TextEncoder().encode(tail), MCP_MESSAGE_MAX_BYTES - tail.length);
  big[MCP_MESSAGE_MAX_BYTES] = 0x0a;
  for (let at = 0; at < big.length; at += 1 << 20) await s.send(big.subarray(at, at + (1 << 20)));
  const tooBig = await s.next();
  assert.equal(tooBig.id, 2, JSON.stringify(tooBig));
  assert.equal((tooBig.error as { code: number }).code, -32600);
  assert.match((tooBig.error as { message: string }).message, /10485760 bytes/);

  // just under the limit: an ordinary request, answered
  const pad = "p".repeat(9_000_000);
  await s.send(req(3, "tools/list", { _meta: { pad } }));
  const list = await s.next();
  assert.equal(list.id, 3, JSON.stringify(list).slice(0, 300));
  assert.equal((list.result as { tools: unknown[] }).tools.length, 3);

  await s.send('{"jsonrpc":"2.0","id":4,"method":"tools/list"\n');
  const parse = await s.next();
  assert.equal(parse.id, null);
  assert.equal((parse.error as { code: number }).code, -32700);

  for (const [line, id] of [['{"jsonrpc":"2.0","id":5}', 5], ["[1,2]", null], ['"hi"', null]]) {
    await s.send(`${line}\n`);
    const bad = await s.next();
    assert.equal(bad.id, id, line as string);
    assert.equal((bad.error as { code: number }).code, -32600, line as string);
  }

  for (const [id, name, want] of [[6, 5, "not a number"], [7, null, "not null"]] as const) {
    await s.send(req(id, "tools/call", { name, arguments: { query: "x" } }));
    const wrong = await s.next();
    assert.equal(wrong.id, id);
    const e = wrong.error as { code: number; message: string };
    assert.equal(e.code, -32602);
    assert.equal(e.message, `tools/call name must be a string, ${want}`);
  }
  await s.send(req(8, "tools/call", { arguments: {} }));
  assert.equal(((await s.next()).error as { message: string }).message, "tools/call names no tool");

  // still up: a real call is answered
  await s.send(req(9, "tools/call", { name: "recall_search", arguments: { query: "anything" } }));
  const ok = await s.next();
  assert.equal(ok.id, 9);
  assert.equal((ok.result as { isError: boolean }).isError, false);

  const end = await s.end();
  assert.equal(end.code, 0, end.err);
});

/** Every folder and file below `root`, with its mode; links are not followed. */
async function modesUnder(root: string): Promise<Map<string, { dir: boolean; mode: number }>> {
  const out = new Map<string, { dir: boolean; mode: number }>();
  const walk = async (p: string) => {
    const st = await Deno.lstat(p);
    if (st.isSymlink) return;
    out.set(p, { dir: st.isDirectory, mode: st.mode! & 0o7777 });
    if (st.isDirectory) { for await (const e of Deno.readDir(p)) await walk(join(p, e.name)); }
  };
  await walk(root);
  return out;
}

Deno.test("install under umask 000 creates folders 0755 and files 0644 or 0755", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 0\n" });
  // the claude config folder is install's to create here too
  await Deno.remove(sb.claude, { recursive: true });
  const cmd = [
    "umask 000",
    "exec " + [Deno.execPath(), ...cliArgs(["install"])].map(shellWord).join(" "),
  ];
  const o = await new Deno.Command("/bin/sh", {
    args: ["-c", cmd.join("; ")],
    cwd: sb.dir,
    env: sb.env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(o.stderr);
  await settle(sb);
  // whether claude finished the MCP entry is not the point here: the files are placed either way
  assert.ok(o.code === 0 || o.code === 1, err);
  const local = await modesUnder(join(sb.home, ".local"));
  assert.ok([...local.keys()].some((p) => p === join(sb.home, ".local", "bin")), "bin placed");
  assert.ok([...local.keys()].some((p) => p.startsWith(sb.versions)), "versions placed");
  assert.ok(local.size > 50, `${local.size} entries`);
  const wrong = [...local]
    .filter(([, m]) => m.dir ? m.mode !== 0o755 : m.mode !== 0o644 && m.mode !== 0o755)
    .map(([p, m]) => `${p} ${m.mode.toString(8)}`);
  assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} wrong modes`);
  const claudeDir = await Deno.stat(sb.claude);
  assert.equal(claudeDir.mode! & 0o777, 0o755, "the claude config folder");
  assert.equal((await Deno.stat(sb.settings)).mode! & 0o777, 0o644, "settings.json");
});

/** A one-prompt session in a fresh project folder `name`. */
function onePrompt(w: World, name: string, prompt: string): Transcript {
  const tr = new Transcript({
    sessionId: crypto.randomUUID(),
    cwd: w.dir(name),
    start: "2026-01-01T10:00:00.000Z",
  });
  tr.user(prompt);
  return tr;
}

Deno.test("messages name the real cause", async (t) => {
  await using w = await world();
  const tr = onePrompt(w, "proj", "hello there");
  const proj = tr.o.cwd;
  const file = await put(w, tr);
  const gone = join(w.sb.dir, "nowhere", "gone.jsonl");
  const dangling = join(file, "..", "dddddddd-0000-4000-8000-00000000000d.jsonl");
  await Deno.symlink(gone, dangling);
  const ingested = await w.run(["ingest"]);

  await t.step("a dangling symlink is named as one, not as vanished", () => {
    assert.match(ingested.err, new RegExp(`is a symbolic link to ${gone}, which does not exist`));
    assert.doesNotMatch(ingested.err, /vanished/);
  });

  await t.step("a negative number is named as negative, not ambiguous", async () => {
    for (const args of [["search", "hello", "--limit", "-5"], ["show", "1", "--before", "-3"]]) {
      const r = await w.run(args, { cwd: proj });
      assert.equal(r.code, 2, r.err);
      const flag = args[args.length - 2];
      assert.match(
        r.err,
        new RegExp(`${flag} takes a whole number of \\d or more; '-\\d' is negative`),
      );
      assert.doesNotMatch(r.err, /ambiguous/);
    }
  });

  await t.step("a negative turn id is named as negative", async () => {
    const r = await w.run(["show", "-5"], { cwd: proj });
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /show: '-5' is a negative number/);
  });

  await t.step("a turn id too large for any turn is named as written", async () => {
    const r = await w.run(["show", "99999999999999999999999"], { cwd: proj });
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /'99999999999999999999999' is larger than any turn id can be/);
    assert.doesNotMatch(r.err, /e\+/);
  });

  await t.step("status with the data directory a file says so", async () => {
    const asFile = join(w.sb.dir, "data-file");
    await Deno.writeTextFile(asFile, "");
    const env = { TERMINUS_DATA_DIR: asFile };
    const r = await w.run(["status"], { env });
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, new RegExp(`the data directory ${asFile} is not a folder`));
    assert.doesNotMatch(r.err, /creates it/);
    const j = await w.run(["status", "--json"], { env });
    assert.equal(j.code, 1);
    assert.equal(JSON.parse(j.out).ok, false);
    const d = JSON.parse((await w.run(["doctor", "--json"], { env })).out).data;
    assert.equal(d.data_directory.state, "problem");
    assert.doesNotMatch(d.store.finding, /creates it/, d.store.finding);
    assert.doesNotMatch(d.last_run.finding, /no archive pass has run yet/, d.last_run.finding);
  });
});

/** A small tmpfs is a real full disk; mounting one needs root, so elsewhere the test is ignored. */
async function mountTmpfs(dir: string, size: string): Promise<boolean> {
  await Deno.mkdir(dir, { recursive: true });
  const m = await new Deno.Command("mount", {
    args: ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => null);
  return m?.code === 0;
}
async function umount(dir: string): Promise<void> {
  await new Deno.Command("umount", { args: [dir], stdout: "null", stderr: "null" }).output();
}
const TMPFS = await (async () => {
  const probe = await Deno.makeTempDir({ prefix: "terminus-tmpfs-probe-" });
  const ok = await mountTmpfs(probe, "1m");
  if (ok) await umount(probe);
  await Deno.remove(probe);
  return ok;
})();

async function freeBytes(dir: string): Promise<number> {
  const o = await new Deno.Command("df", { args: ["-B1", "--output=avail", dir] }).output();
  return Number(new TextDecoder().decode(o.stdout).trim().split("\n").pop());
}

Deno.test({
  name:
    "full disk: a failed snapshot's partial copy goes at once, the next pass still archives and records its run, and the first error is kept",
  ignore: !TMPFS,
  async fn() {
    await using sb = await sandbox();
    const mnt = join(sb.dir, "mnt");
    assert.ok(await mountTmpfs(mnt, "16m"));
    try {
      sb.env.TERMINUS_DATA_DIR = join(mnt, "data");
      const rand = prng(16);
      const cwd = join(sb.dir, "proj");
      await Deno.mkdir(cwd);
      const session = async (bytes: number, start?: Date) => {
        const sid = uuidFrom(rand);
        await writeTranscript(
          sb.claude,
          cwd,
          `${sid}.jsonl`,
          syntheticSession({ sessionId: sid, cwd, bytes, rand, start }),
        );
      };
      const status = async () => JSON.parse((await runCli(sb, ["status", "--json"])).out).data;
      for (let i = 0; i < 3; i++) await session(2_000_000, new Date("2026-01-01T00:00:00Z"));
      await writeConfig(sb, "[snapshot]\nenabled = false\n");
      await cliOk(sb, ["ingest"]);
      // leave room for a pass's new bytes, not for a copy of the store
      const store = (await Deno.stat(join(mnt, "data", "terminus.db"))).size;
      const filler = join(mnt, "filler");
      await Deno.writeFile(filler, new Uint8Array((await freeBytes(mnt)) - store / 2));
      await writeConfig(sb, "");

      await session(100_000);
      const first = await runCli(sb, ["ingest"]);
      assert.equal(first.code, 0, first.err);
      const snaps = [...Deno.readDirSync(join(mnt, "data", "snapshots"))].map((e) => e.name);
      assert.deepEqual(snaps, [], "no partial copy left behind");
      let s = await status();
      assert.equal(s.sessions, 4);
      assert.deepEqual(s.last_run.error, [
        "the snapshot could not be taken: database or disk is full",
      ]);
      assert.equal(s.last_run.files_committed, 1);

      await session(100_000);
      const second = await runCli(sb, ["ingest"]);
      assert.equal(second.code, 0, second.err);
      s = await status();
      assert.equal(s.sessions, 5, "the next pass archived");
      assert.equal(s.last_run.files_committed, 1, "and recorded its run");

      // now too little room for the new bytes themselves: the error says so
      await writeConfig(sb, "[snapshot]\nenabled = false\n");
      await Deno.writeFile(
        join(mnt, "filler2"),
        new Uint8Array(Math.max(0, (await freeBytes(mnt)) - 1_500_000)),
      );
      await session(4_000_000);
      const third = await runCli(sb, ["ingest"]);
      assert.match(third.err, /\.jsonl: database or disk is full/);
      assert.doesNotMatch(third.err, /cannot rollback/);
      s = await status();
      assert.equal(s.sessions, 5);
      assert.equal(s.last_run.files_failed, 1);
      assert.match(s.last_run.error[0], /database or disk is full$/);
    } finally {
      await umount(mnt);
    }
  },
});

Deno.test("a rewritten transcript is noticed, noted in status and archived again as a new lineage, never spliced", async (t) => {
  await using w = await world();
  const proj = w.dir("lineage");
  const make = (word: string, extra = 0) => {
    const tr = new Transcript({
      sessionId: "eeeeeeee-0000-4000-8000-00000000000e",
      cwd: proj,
      start: "2026-01-01T10:00:00.000Z",
    });
    tr.user(`first question about ${word}`);
    tr.assistant(`first answer about ${word}`);
    for (let i = 0; i < extra; i++) tr.user(`more turn ${i}`);
    return new TextEncoder().encode(tr.text());
  };
  const streams = () => archivedStreams(w.sb.store);
  const key = "eeeeeeee-0000-4000-8000-00000000000e.jsonl";
  const original = make("alpha");
  const file = await writeTranscript(w.sb.claude, proj, key, original);
  await ingest(w);
  const notes = async () => (await w.json(["status"])).data.last_run as { notes: string[] | null };

  const same = make("omega");
  const longer = make("gamma", 3);
  const regrown = make("delta", 6);
  await t.step("a same-length rewrite", async () => {
    assert.equal(same.length, original.length);
    assert.notDeepEqual(same, original);
    await Deno.writeFile(file, same);
    await ingest(w);
    const s = await streams();
    assertSameBytes(s.get(key), original, "the archive keeps what it held");
    assertSameBytes(s.get(`${key}#2`), same, "the new content is its own lineage");
    const n = (await notes()).notes ?? [];
    assert.ok(n.some((l) => l.startsWith(`${key}: the transcript was rewritten`)), n.join("\n"));
  });

  await t.step("a rewrite that also grows", async () => {
    await Deno.writeFile(file, longer);
    await ingest(w);
    const s = await streams();
    assertSameBytes(s.get(`${key}#2`), same, "lineage 2 is not spliced");
    assertSameBytes(s.get(`${key}#3`), longer, "lineage 3");
  });

  await t.step("truncated, then grown past the old length before a pass looked", async () => {
    await Deno.writeFile(file, regrown.subarray(0, 10));
    await Deno.writeFile(file, regrown);
    await ingest(w);
    const s = await streams();
    assertSameBytes(s.get(`${key}#3`), longer, "lineage 3 kept");
    assertSameBytes(s.get(`${key}#4`), regrown, "lineage 4");
  });

  await t.step("export writes each lineage as a .jsonl file of its own", async () => {
    const out = join(w.sb.dir, "exported");
    const r = await w.run(["export", out]);
    assert.equal(r.code, 0, r.err);
    const files = [...Deno.readDirSync(out)].map((e) => e.name).sort();
    const base = key.slice(0, -".jsonl".length);
    for (const n of ["", "#2", "#3", "#4"]) {
      assert.ok(files.includes(`${base}${n}.jsonl`), files.join());
    }
    assertSameBytes(await Deno.readFile(join(out, `${base}#2.jsonl`)), same, "lineage 2 exported");
  });

  await t.step("an unchanged file and a plain append stay one lineage", async () => {
    const before = await streams();
    await ingest(w);
    assert.deepEqual([...(await streams()).keys()].sort(), [...before.keys()].sort());
    const more = new TextEncoder().encode(
      JSON.stringify({ type: "user", uuid: crypto.randomUUID(), sessionId: "x", cwd: proj }) + "\n",
    );
    const appended = bytes(regrown, more);
    await Deno.writeFile(file, appended);
    await ingest(w);
    const s = await streams();
    assertSameBytes(s.get(`${key}#4`), appended, "appended in place");
    assert.ok(!s.has(`${key}#5`));
  });
});

Deno.test("a session archived before tails were kept gets one on the next pass, and a later rewrite is noticed", async () => {
  await using w = await world();
  const tr = onePrompt(w, "older", "question about alpha");
  const proj = tr.o.cwd;
  const original = new TextEncoder().encode(tr.text());
  const key = `${tr.o.sessionId}.jsonl`;
  const file = await writeTranscript(w.sb.claude, proj, key, original);
  await ingest(w);
  // as a store from an earlier build: no tails at all
  const db = new DatabaseSync(w.sb.store);
  db.exec("DROP TABLE file_tails");
  db.close();
  await ingest(w);
  await Deno.writeFile(file, new TextEncoder().encode(tr.text().replace("alpha", "omega")));
  await ingest(w);
  const s = await archivedStreams(w.sb.store);
  assertSameBytes(s.get(key), original, "kept");
  assert.ok(s.has(`${key}#2`), [...s.keys()].join(", "));
});

/** As root, drops the capabilities that let root write anywhere, so a 0500 folder is read-only. */
function asUser(argv: string[]): string[] {
  return Deno.uid() === 0
    ? ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--", ...argv]
    : argv;
}

Deno.test("a data directory whose state and queue cannot be written still hands over the brief and the recall", async (t) => {
  await using sb = await hookSandbox();
  const a = new Session(sid(0xa1), ALPHA, daysAgo(3));
  a.user("look at the retry budget in src/worker/S.ts");
  a.read(`${ALPHA}/src/worker/S.ts`, "export const retryBudget = 3;");
  a.assistant("The retry budget lives in src/worker/S.ts; it is 3.");
  await a.write(sb);
  await ingestSettled(sb);
  const lock = await holdLock(sb); // the hooks' own passes stay out of the way
  try {
    const ask = (o: { run?: (argv: string[]) => string[] } = {}) => (event: string) =>
      hookOnTime(sb, [event], {
        stdin: event === "SessionStart"
          ? startPayload(sid(0xf1), ALPHA)
          : promptPayload(sid(0xf1), ALPHA, "why does src/worker/S.ts retry so often?"),
        argv: o.run,
      });

    const state = join(sb.data, "state");
    const queue = join(sb.data, "queue");
    const filesInTheWay = async () => {
      const start = await ask()("SessionStart");
      assert.equal(start.code, 0);
      assert.ok(additionalContext(start, "SessionStart"), `no brief: ${start.err}`);
      assert.ok(start.errLines.some((l) => /the session state could not be written/.test(l)));
      const prompt = await ask()("UserPromptSubmit");
      assert.equal(prompt.code, 0);
      assert.ok(additionalContext(prompt, "UserPromptSubmit"), `no recall: ${prompt.err}`);
      assert.ok(prompt.errLines.some((l) => /the decision log could not be written/.test(l)));
    };
    await t.step("state and queue are files, not folders", async () => {
      await Deno.remove(state, { recursive: true }).catch(() => {});
      await Deno.remove(queue, { recursive: true }).catch(() => {});
      await Deno.writeTextFile(state, "");
      await Deno.writeTextFile(queue, "");
      try {
        await filesInTheWay();
      } finally {
        await Deno.remove(state);
        await Deno.remove(queue);
      }
    });

    await t.step("a read-only data directory", async () => {
      await Deno.chmod(sb.data, 0o500);
      try {
        const start = await ask({ run: asUser })("SessionStart");
        assert.equal(start.code, 0, start.err);
        assert.ok(additionalContext(start, "SessionStart"), `no brief: ${start.err}`);
        const prompt = await ask({ run: asUser })("UserPromptSubmit");
        assert.equal(prompt.code, 0, prompt.err);
        assert.ok(additionalContext(prompt, "UserPromptSubmit"), `no recall: ${prompt.err}`);
        assert.ok(prompt.errLines.some((l) => /the decision log could not be written/.test(l)));
      } finally {
        await Deno.chmod(sb.data, 0o700);
      }
    });
  } finally {
    lock.release();
  }
});

Deno.test("mcp line splitter: any chunking gives the same lines, and an oversized line is skipped to its newline", () => {
  const enc = new TextEncoder();
  const lines = ["a", "", "bb", "x".repeat(40), "ccc", "y".repeat(15), "dd"];
  const stream = enc.encode(lines.join("\n") + "\n");
  const rand = prng(5);
  for (let round = 0; round < 200; round++) {
    const split = new LineSplitter(16);
    const got: string[] = [];
    for (let at = 0; at < stream.length;) {
      const n = 1 + Math.floor(rand() * 12);
      for (const e of split.push(stream.slice(at, at + n))) {
        got.push("line" in e ? new TextDecoder().decode(e.line) : `too large: ${e.tooLarge}`);
      }
      at += n;
    }
    assert.deepEqual(got, ["a", "", "bb", "too large: 40", "ccc", "y".repeat(15), "dd"]);
  }
  assert.equal(leadingId(enc.encode('{"jsonrpc":"2.0","id":7,"method":"x","params":{')), 7);
  assert.equal(leadingId(enc.encode('{"method":"x","id":"a-1","params":{')), "a-1");
  assert.equal(leadingId(enc.encode('{"params":{"id":3},"id":4')), null);
});
