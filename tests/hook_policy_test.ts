/**
 * The hook's policy (core/inject/hook.ts) in process, on a real store built by `terminus
 * ingest`, with real state and queue files and an injected clock: what is recorded when the
 * answer was on time, late, or never written. Lateness comes from the clock, never a sleep.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Sandbox } from "./helpers.ts";
import {
  ALPHA,
  daysAgo,
  hookSandbox,
  ingestSettled,
  queued,
  Session,
  sid,
  turnIdOf,
} from "./inject_helpers.ts";
import { answerHook, type HookContext } from "../core/inject/hook.ts";
import { loadConfig } from "../core/config.ts";
import { openRead } from "../core/store/db.ts";
import { queueDecision, wasLate } from "../core/inject/queue.ts";
import { readState, type SessionState, writeState } from "../core/inject/state.ts";
import { StdinWait } from "../core/inject/stdin_wait.ts";
import { HOOK_DEADLINE_MS, HOOK_STDIN_WAIT_MS } from "../core/constants.ts";

/** A clock that stands still until `jump()`, then reads `by` ms later. */
function steppedClock() {
  let t = 1000;
  return { clock: () => t, jump: (by: number) => (t += by) };
}

function context(sb: Sandbox, clock: () => number, onRender?: () => void): HookContext {
  const env = (k: string) => sb.env[k];
  return {
    cfg: loadConfig(env),
    clock,
    now: () => new Date(),
    openStore: () => {
      const db = openRead(sb.store)?.db ?? null;
      // the lookup is done once the store is opened and queried: the test's moment to be late
      if (db && onRender) {
        const close = db.close.bind(db);
        db.close = () => {
          onRender();
          close();
        };
      }
      return db;
    },
    readState: (id) => readState(sb.data, id),
    writeState: (id, st) => writeState(sb.data, id, st),
    queueDecision: (doc) => queueDecision(sb.data, doc),
    home: sb.home,
  };
}

async function world(sb: Sandbox): Promise<{ readCall: number }> {
  const a = new Session(sid(0xa1), ALPHA, daysAgo(3));
  a.user("look at the retry budget in src/worker/S.ts");
  const [call] = a.read(`${ALPHA}/src/worker/S.ts`, "export const retryBudget = 3;");
  a.assistant("The retry budget lives in src/worker/S.ts; it is 3.");
  await a.write(sb);
  const b = new Session(sid(0xb2), ALPHA, daysAgo(2));
  b.user("what next?");
  b.assistant("Next, the parser.");
  await b.write(sb);
  await ingestSettled(sb);
  return { readCall: turnIdOf(sb, call) };
}

const prompt = (session: number) => ({
  session_id: sid(session),
  cwd: ALPHA,
  hook_event_name: "UserPromptSubmit",
  prompt: "why does src/worker/S.ts retry so often?",
});

const stateOf = (sb: Sandbox, session: number): SessionState => readState(sb.data, sid(session));

Deno.test("hook policy: an answer on time is recorded as handed over once written", async () => {
  await using sb = await hookSandbox();
  const w = await world(sb);
  const c = steppedClock();
  const a = answerHook("UserPromptSubmit", prompt(0xf1), context(sb, c.clock));
  assert.equal(a.late, false);
  assert.ok(a.text?.includes(`- turn ${w.readCall} (`), a.text ?? "no text");
  // nothing is written before the answer is
  assert.deepEqual(queued(sb), []);
  assert.deepEqual(stateOf(sb, 0xf1).injected, []);
  assert.deepEqual(a.record(true), []);
  assert.deepEqual(stateOf(sb, 0xf1).injected, [w.readCall]);
  const d = queued(sb).at(-1)!;
  assert.deepEqual((d.injected as { id: number }[]).map((i) => i.id), [w.readCall]);
  assert.equal(d.late, false);
  assert.equal(d.note, null);
});

Deno.test("hook policy: the late-hook race - a decision past the deadline records nothing as handed over and logs why", async () => {
  await using sb = await hookSandbox();
  const w = await world(sb);
  const c = steppedClock();
  const a = answerHook(
    "UserPromptSubmit",
    prompt(0xf2),
    context(sb, c.clock, () => c.jump(HOOK_DEADLINE_MS + 1)),
  );
  assert.equal(a.late, true);
  assert.equal(a.text, null);
  assert.equal(a.elapsedMs, HOOK_DEADLINE_MS + 1);
  // the caller writes nothing and still records: the decision is logged, the turn is not
  // suppressed for the rest of the session
  assert.deepEqual(a.record(true), []);
  assert.deepEqual(stateOf(sb, 0xf2).injected, []);
  const d = queued(sb).at(-1)!;
  assert.equal(d.late, true);
  assert.equal(wasLate(d), true);
  assert.match(String(d.note), new RegExp(`past the ${HOOK_DEADLINE_MS} ms deadline \\(51 ms\\)`));
  assert.deepEqual(d.injected, []);
  // what was found stays in the log, for replay and for the misses count
  assert.ok(
    (d.candidates as { id: number }[]).some((x) => x.id === w.readCall),
    JSON.stringify(d.candidates),
  );
  // the same prompt on time next hands the turn over: nothing was suppressed by the late one
  const again = answerHook("UserPromptSubmit", prompt(0xf2), context(sb, c.clock));
  assert.ok(again.text?.includes(`- turn ${w.readCall} (`), again.text ?? "no text");
});

Deno.test("hook policy: an answer that could not be written is not recorded as handed over", async () => {
  await using sb = await hookSandbox();
  await world(sb);
  const c = steppedClock();
  const a = answerHook("UserPromptSubmit", prompt(0xf3), context(sb, c.clock));
  assert.ok(a.text);
  assert.deepEqual(a.record(false), []);
  assert.deepEqual(stateOf(sb, 0xf3).injected, []);
  const d = queued(sb).at(-1)!;
  assert.deepEqual(d.injected, []);
  assert.match(String(d.note), /could not be written/);
  // recording twice writes once
  assert.deepEqual(a.record(true), []);
  assert.equal(queued(sb).length, 1);
});

Deno.test("hook policy: a late brief records no quoted ids, but still where the session started", async () => {
  await using sb = await hookSandbox();
  await world(sb);
  const start = { session_id: sid(0xf4), cwd: ALPHA, source: "startup" };
  const c = steppedClock();
  const late = answerHook(
    "SessionStart",
    start,
    context(sb, c.clock, () => c.jump(HOOK_DEADLINE_MS + 5)),
  );
  assert.equal(late.late, true);
  assert.equal(late.text, null);
  late.record(true);
  let st = stateOf(sb, 0xf4);
  assert.deepEqual(st.brief_quoted, []);
  assert.equal(st.start_project, ALPHA);
  assert.deepEqual(queued(sb), [], "SessionStart logs no decision");

  const onTime = answerHook("SessionStart", start, context(sb, c.clock));
  assert.ok(onTime.text);
  onTime.record(true);
  st = stateOf(sb, 0xf4);
  assert.ok(st.brief_quoted.length > 0, JSON.stringify(st));
});

Deno.test("hook policy: a failed state write is one problem and costs only that record", async () => {
  await using sb = await hookSandbox();
  const w = await world(sb);
  const c = steppedClock();
  const ctx = context(sb, c.clock);
  ctx.writeState = () => {
    throw new Error("No space left on device");
  };
  const a = answerHook("UserPromptSubmit", prompt(0xf5), ctx);
  assert.ok(a.text?.includes(`- turn ${w.readCall} (`));
  assert.deepEqual(a.record(true), [
    "the session state could not be written: No space left on device",
  ]);
  assert.equal(queued(sb).length, 1);
  assert.ok(!Deno.statSync(join(sb.data, "queue")).isFile);
});

Deno.test("stdin wait: a writer that never finishes is cut at the limit; a hook scheduled late still gets its ticks", () => {
  let t = 0;
  const idle = new StdinWait(() => t);
  let ticks = 0;
  do {
    t += idle.tickMs;
    ticks++;
  } while (!idle.tick());
  assert.equal(ticks, HOOK_STDIN_WAIT_MS / idle.tickMs);

  // the machine kept the process off the cores for 2 s: that counts as one tick's credit
  t = 0;
  const starved = new StdinWait(() => t);
  t += 2000;
  assert.equal(starved.tick(), false);
  assert.ok(starved.waited < HOOK_STDIN_WAIT_MS, String(starved.waited));
  // a clock that steps back is not negative waiting
  t -= 500;
  starved.tick();
  assert.ok(starved.waited >= 0);
});
