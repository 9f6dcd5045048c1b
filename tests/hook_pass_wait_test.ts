/**
 * The pass a hook starts waits out the hook's deadline before it loads (HOOK_PASS_WAIT_MS):
 * the hook marks it, and a marked `terminus ingest` still archives as any pass does.
 */
import assert from "node:assert/strict";
import { ingestSpawn } from "../hooks/run.ts";
import { HOOK_PASS_VAR, takeEnv } from "../core/context.ts";
import { HOOK_DEADLINE_MS, HOOK_PASS_WAIT_MS, PASS_NICENESS } from "../core/constants.ts";
import { cliCommand, cliOk, prng, sandbox, syntheticSession, writeTranscript } from "./helpers.ts";
import { DatabaseSync } from "node:sqlite";

Deno.test("the hook's pass is `ingest`, at the lowest priority, marked to wait out the hook", () => {
  const now = 1_764_633_600_000;
  const [argv, o] = ingestSpawn({ self: ["/opt/deno", "run", "/opt/terminus/mod.ts"] }, now);
  assert.deepEqual(argv, ["/opt/deno", "run", "/opt/terminus/mod.ts", "ingest"]);
  assert.equal(o.niceness, PASS_NICENESS);
  // marked with when it was started, and started late where the route can: both wait it out
  assert.deepEqual(o.env, { [HOOK_PASS_VAR]: String(now) });
  assert.equal(o.delayMs, HOOK_PASS_WAIT_MS);
  // and where the route can wait on the hook's process, it starts once the hook has exited
  assert.equal(o.afterExit, true);
  // out of the hook's group, in its session: the niceness then counts in the hook's autogroup
  assert.equal(o.sameSession, true);
  // it waits no less than the hook has: a shorter wait would start the walk beside the lookup
  assert.ok(HOOK_PASS_WAIT_MS >= HOOK_DEADLINE_MS);
});

Deno.test("a marked `terminus ingest` archives what an unmarked one does", async () => {
  await using sb = await sandbox();
  const cwd = "/home/me/app";
  const id = "0b6c3c1e-6d0e-4a57-9d0f-3f3a0a5b1c2d";
  await writeTranscript(
    sb.claude,
    cwd,
    `${id}.jsonl`,
    syntheticSession({ sessionId: id, cwd, bytes: 20_000, rand: prng(7) }),
  );
  await cliOk(sb, ["ingest"], { env: { [HOOK_PASS_VAR]: "1" } });
  const db = new DatabaseSync(sb.store, { readOnly: true });
  try {
    const keys = db.prepare("SELECT session_key FROM sessions").all().map((r) => r.session_key);
    assert.deepEqual(keys, [`${id}.jsonl`]);
  } finally {
    db.close();
  }
});

Deno.test("the mark is taken out of the environment as it is read, so nothing the pass starts inherits it", () => {
  Deno.env.set(HOOK_PASS_VAR, "1");
  try {
    assert.equal(takeEnv(HOOK_PASS_VAR), "1");
    assert.equal(Deno.env.get(HOOK_PASS_VAR), undefined);
    assert.equal(takeEnv(HOOK_PASS_VAR), undefined);
  } finally {
    Deno.env.delete(HOOK_PASS_VAR);
  }
});

Deno.test({
  name:
    "the pass a hook starts outlives a kill of the hook's process group (Claude Code's timeout)",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    await using sb = await sandbox();
    const cwd = "/home/me/app";
    const id = "5d0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b";
    const path = await writeTranscript(
      sb.claude,
      cwd,
      `${id}.jsonl`,
      syntheticSession({ sessionId: id, cwd, bytes: 20_000, rand: prng(11) }),
    );
    // as Claude Code starts a hook: the leader of a process group (and session) of its own
    const child = cliCommand(sb, ["hook", "SessionStart"], { stdin: "piped", detached: true })
      .spawn();
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(JSON.stringify({
      session_id: id,
      transcript_path: path,
      cwd,
      hook_event_name: "SessionStart",
      source: "startup",
    })));
    await w.close();
    const out = await child.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    // the pass waits out the hook's deadline, so it is alive here: kill the hook's group
    try {
      Deno.kill(-child.pid, "SIGKILL");
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e; // the group is empty: nothing left in it
    }
    let keys: unknown[] = [];
    for (let i = 0; i < 400 && keys.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      try {
        const db = new DatabaseSync(sb.store, { readOnly: true });
        try {
          keys = db.prepare("SELECT session_key FROM sessions").all().map((r) => r.session_key);
        } finally {
          db.close();
        }
      } catch { /* no store yet */ }
    }
    assert.deepEqual(keys, [`${id}.jsonl`], "the pass archived the session after the kill");
  },
});
