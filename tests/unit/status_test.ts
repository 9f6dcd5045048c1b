/**
 * core/status.ts (status's use case) called in process, and the terminal state a use case
 * reads from the Context's streams (core/terminal.ts) rather than the process's own.
 */
import assert from "node:assert/strict";
import { pass, unitBox } from "./world.ts";
import { Session } from "../inject_helpers.ts";
import { readStatus } from "../../core/status.ts";
import { terminalColumns, terminalStyle } from "../../core/output.ts";
import type { Context } from "../../core/context.ts";
import type { StreamName, Streams } from "../../core/streams.ts";

const PROJECT = "/nonexistent/terminus-unit/status";

Deno.test("readStatus: no store yet is no failure; a data directory that is a file is one", async () => {
  await using box = await unitBox();
  const none = await readStatus(box.ctx());
  assert.equal(none.store, null);
  if (none.store !== null) return;
  assert.equal(none.ok, true);
  assert.match(none.reason, /no store yet/);
  await Deno.writeTextFile(box.data, "not a folder");
  const blocked = await readStatus(box.ctx());
  assert.equal(blocked.store, null);
  if (blocked.store !== null) return;
  assert.equal(blocked.ok, false);
  assert.match(blocked.reason, /is not a folder/);
});

Deno.test("readStatus: counts and the last run as the pass recorded them, nothing in flight", async () => {
  await using box = await unitBox();
  const s = new Session("eeeeeeee-0000-4000-8000-000000000005", PROJECT, "2026-11-29T09:00:00Z");
  s.user("where is the kestrel budget");
  s.assistant("In the worker.");
  await s.write(box);
  await pass(box);
  const st = await readStatus(box.ctx());
  assert.notEqual(st.store, null);
  if (st.store === null) return;
  assert.equal(st.store, box.store);
  assert.equal(st.counts.sessions, 1);
  assert.ok(st.counts.turns >= 2, `turns: ${st.counts.turns}`);
  assert.ok(st.sizeBytes > 0);
  assert.equal(st.run?.startedAt, box.now.toISOString());
  assert.equal(st.run?.filesCommitted, 1);
  assert.equal(st.progress, null);
});

function streams(terminals: StreamName[], columns: number): Streams {
  return {
    isTerminal: (s) => terminals.includes(s),
    size: () => ({ columns, rows: 24 }),
    read: () => Promise.resolve(null),
    stdio: () => {
      throw new Error("not for this test");
    },
    screen: () => {
      throw new Error("not for this test");
    },
  };
}

Deno.test("terminal state comes from the Context: styling and width only when its stdout is a terminal", async () => {
  await using box = await unitBox();
  box.env.NO_COLOR = ""; // the box sets it; empty counts as unset
  const base: Context = box.ctx();
  assert.equal(terminalStyle(base), false, "no streams: no terminal");
  assert.equal(terminalColumns(base), null);
  const tty = { ...base, streams: streams(["stdout"], 57) };
  assert.equal(terminalStyle(tty), true);
  assert.equal(terminalColumns(tty), 57);
  const piped = { ...base, streams: streams(["stderr", "stdin"], 57) };
  assert.equal(terminalStyle(piped), false);
  assert.equal(terminalColumns(piped), null);
  box.env.NO_COLOR = "1";
  assert.equal(terminalStyle({ ...box.ctx(), streams: streams(["stdout"], 57) }), false);
});
