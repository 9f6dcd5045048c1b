/**
 * terminus sessions restore: the archived transcript and its sidecars written back where Claude
 * Code looks, byte for byte, 0600 in 0700 folders; refusals that name their reason; and the
 * next pass seeing the restored file as the session it already holds.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { encodeCwd, exists, parseEnvelope } from "./helpers.ts";
import { ingest, put, Transcript, type World, world } from "./read_helpers.ts";

const SID = "4e570e00-1111-4222-8333-444455556666";

interface Made {
  w: World;
  alpha: string;
  file: string;
  side: string;
  meta: string;
  bytes: Uint8Array;
  sideBytes: Uint8Array;
}

async function made(toml?: string, start = "2026-03-01T09:00:00.000Z"): Promise<Made> {
  const w = await world(toml);
  const alpha = w.dir("alpha");
  const s = new Transcript({ sessionId: SID, cwd: alpha, start });
  s.user("where is the restore budget set");
  s.toolUse("Read", { file_path: join(alpha, "src/budget.ts") });
  s.toolResult("export const budget = 3;");
  s.assistant("It is 3, in src/budget.ts.");
  const file = await put(w, s);
  const sub = new Transcript({ sessionId: SID, cwd: alpha, start, sidechain: true });
  sub.user("list callers of budget");
  sub.assistant("One caller.");
  const side = await put(w, sub, `${SID}/subagents/agent-b1.jsonl`);
  const meta = side.replace(/\.jsonl$/, ".meta.json");
  await Deno.writeTextFile(meta, '{"agentType":"general-purpose"}');
  await ingest(w);
  return {
    w,
    alpha,
    file,
    side,
    meta,
    bytes: await Deno.readFile(file),
    sideBytes: await Deno.readFile(side),
  };
}

function storeFacts(store: string) {
  const db = new DatabaseSync(store, { readOnly: true });
  try {
    return {
      sessions: db.prepare("SELECT session_no, session_key FROM sessions ORDER BY 1").all(),
      diverged: (db.prepare("SELECT count(*) AS n FROM session_meta WHERE transcript_diverged = 1")
        .get() as { n: number }).n,
      turns: (db.prepare("SELECT count(*) AS n FROM turns").get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

/** Every entry below `dir`, relative, sorted: to show nothing else was left behind. */
async function tree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string) => {
    for await (const e of Deno.readDir(d)) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(r);
      if (e.isDirectory) await walk(join(d, e.name), r);
    }
  };
  if (await exists(dir)) await walk(dir, "");
  return out.sort();
}

Deno.test("restore: byte for byte with sidecars, 0600 in 0700, the resume line, and the next pass sees the same session", async () => {
  const m = await made();
  await using _ = m.w;
  const before = storeFacts(m.w.sb.store);
  const folder = join(m.w.sb.claude, "projects", encodeCwd(m.alpha));
  await Deno.remove(folder, { recursive: true }); // Claude Code's cleanup took the whole folder
  const r = await m.w.run(["sessions", "restore", SID], { cwd: m.alpha });
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `cd ${m.alpha} && claude --resume ${SID}\n`);
  assert.match(r.err, new RegExp(`restored: ${m.file} \\(${m.bytes.length} byte\\(s\\)\\)`));
  assert.deepEqual(await Deno.readFile(m.file), m.bytes);
  assert.deepEqual(await Deno.readFile(m.side), m.sideBytes);
  // the pass no longer reads a sidecar's .meta.json, so there is none to put back
  assert.equal(await exists(m.meta), false);
  for (const f of [m.file, m.side]) {
    assert.equal((await Deno.stat(f)).mode! & 0o777, 0o600, f);
  }
  for (const d of [folder, join(folder, SID), join(folder, SID, "subagents")]) {
    assert.equal((await Deno.stat(d)).mode! & 0o777, 0o700, d);
  }
  assert.deepEqual(await tree(folder), [
    `${SID}`,
    `${SID}.jsonl`,
    `${SID}/subagents`,
    `${SID}/subagents/agent-b1.jsonl`,
  ]);
  // the next pass: the same sessions, no new turns, nothing flagged as diverged
  await ingest(m.w);
  assert.deepEqual(storeFacts(m.w.sb.store), before);
  const status = parseEnvelope((await m.w.run(["status", "--json"])).out);
  assert.doesNotMatch(JSON.stringify(status.data), /diverged/);
  // and the session goes on: a line Claude Code appends is archived onto it, not as a copy
  await Deno.writeTextFile(
    m.file,
    JSON.stringify({
      type: "user",
      sessionId: SID,
      uuid: "9a9a9a9a-0000-4000-8000-000000000001",
      cwd: m.alpha,
      timestamp: "2026-03-01T10:00:00.000Z",
      message: { role: "user", content: "one more question" },
    }) + "\n",
    { append: true },
  );
  await ingest(m.w);
  const after = storeFacts(m.w.sb.store);
  assert.deepEqual(after.sessions, before.sessions);
  assert.equal(after.diverged, 0);
  assert.equal(after.turns, before.turns + 1);
});

Deno.test("restore: identical files are already present; a different file is named and left alone; --dry-run writes nothing", async () => {
  const m = await made();
  await using _ = m.w;
  const again = parseEnvelope(
    (await m.w.run(["sessions", "restore", SID, "--json"], { cwd: m.alpha })).out,
  );
  const files = (again.data as { files: { path: string; status: string }[] }).files;
  assert.deepEqual(files.map((f) => f.status), ["already present", "already present"]);
  assert.deepEqual(files.map((f) => f.path), [m.file, m.side]);

  await Deno.writeTextFile(m.side, "something else\n");
  const r = await m.w.run(["sessions", "restore", SID], { cwd: m.alpha });
  assert.equal(r.code, 1);
  assert.equal(r.out, "");
  assert.match(r.err, new RegExp(`${m.side} already exists and differs`));
  assert.equal(await Deno.readTextFile(m.side), "something else\n");

  await Deno.remove(m.side);
  await Deno.remove(m.file);
  const listing = await tree(m.w.sb.claude);
  const dry = await m.w.run(["sessions", "restore", SID, "--dry-run", "--json"], { cwd: m.alpha });
  assert.equal(dry.code, 0, dry.err);
  const d = parseEnvelope(dry.out).data as { files: { status: string }[]; dry_run: boolean };
  assert.equal(d.dry_run, true);
  assert.deepEqual(d.files.map((f) => f.status), ["would restore", "would restore"]);
  assert.deepEqual(await tree(m.w.sb.claude), listing, "a dry run writes nothing");
});

Deno.test("restore: --to another config folder; a missing or read-only one is a clear error and leaves nothing", async () => {
  const m = await made();
  await using _ = m.w;
  const other = join(m.w.sb.dir, "other-claude");
  const missing = await m.w.run(["sessions", "restore", SID, "--to", other], { cwd: m.alpha });
  assert.equal(missing.code, 1);
  assert.match(missing.err, new RegExp(`--to ${other} does not exist`));
  assert.equal(await exists(other), false, "restore never makes the config folder itself");

  await Deno.mkdir(other);
  await Deno.chmod(other, 0o500);
  try {
    const ro = await m.w.run(["sessions", "restore", SID, "--to", other], {
      cwd: m.alpha,
      asUser: true,
    });
    assert.equal(ro.code, 1);
    assert.match(ro.err, new RegExp(`cannot restore into ${other}`));
    assert.deepEqual(await tree(other), []);
    // the folders exist but the last one is read-only: no partial file, no folder left behind
    await Deno.chmod(other, 0o700);
    const sub = join(other, "projects", encodeCwd(m.alpha), SID, "subagents");
    await Deno.mkdir(sub, { recursive: true });
    await Deno.chmod(sub, 0o500);
    const half = await m.w.run(["sessions", "restore", SID, "--to", other], {
      cwd: m.alpha,
      asUser: true,
    });
    assert.equal(half.code, 1);
    assert.deepEqual(await tree(other), [
      "projects",
      `projects/${encodeCwd(m.alpha)}`,
      `projects/${encodeCwd(m.alpha)}/${SID}`,
      `projects/${encodeCwd(m.alpha)}/${SID}/subagents`,
    ], "the main transcript was not left without its sidecar");
    await Deno.chmod(sub, 0o700);
    const ok = await m.w.run(["sessions", "restore", SID, "--to", other], { cwd: m.alpha });
    assert.equal(ok.code, 0, ok.err);
    const target = join(other, "projects", encodeCwd(m.alpha), `${SID}.jsonl`);
    assert.deepEqual(await Deno.readFile(target), m.bytes);
  } finally {
    await Deno.chmod(other, 0o700).catch(() => {});
  }
});

Deno.test("restore: refused, with the reason, under capture lean and for an evicted session", async () => {
  {
    const m = await made('[capture]\nmode = "lean"\n');
    await using _ = m.w;
    await Deno.remove(m.file);
    const r = await m.w.run(["sessions", "restore", SID], { cwd: m.alpha });
    assert.equal(r.code, 1);
    assert.match(r.err, /archived under capture = lean/);
    assert.equal(await exists(m.file), false);
  }
  {
    const m = await made(
      '[retention]\naction = "evict"\nage_days = 1\n',
      "2026-01-01T10:00:00.000Z",
    );
    await using _ = m.w;
    await Deno.remove(m.file);
    const r = await m.w.run(["sessions", "restore", SID], { cwd: m.alpha });
    assert.equal(r.code, 1);
    assert.match(r.err, /evicted by retention/);
    assert.equal(await exists(m.file), false);
  }
  {
    const m = await made();
    await using _ = m.w;
    const r = await m.w.run(["sessions", "restore", m.side], { cwd: m.alpha });
    assert.equal(r.code, 1);
    assert.match(r.err, /is a subagent's sidecar; restore its parent session/);
    const u = await m.w.run(["sessions", "restore"], { cwd: m.alpha });
    assert.equal(u.code, 2);
    assert.match(u.err, /sessions restore needs a session/);
  }
});
