/**
 * A detached start leaves the caller's process group (Claude Code kills a hook's whole group on a
 * timeout), carries its environment, and runs at the niceness asked, by each route: bash's job
 * control (the hook's pass, which stays in the hook's session), setsid(1), and the runtime's own
 * detached start where neither is there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BASH, BASH_JOB, SETSID, spawnDetached } from "../core/spawn.ts";
import { BACKFILL_NICENESS, PASS_NICENESS } from "../core/constants.ts";
import { startBackfill, startFirstBackfill } from "../core/ingest/backfill.ts";

/** pid, ppid, process group, session and niceness from a /proc/<pid>/stat line. */
function statFields(line: string) {
  // the command name is in parentheses and may hold spaces: count fields after the last one
  const f = line.slice(line.lastIndexOf(")") + 2).trim().split(" ");
  return { ppid: Number(f[1]), pgrp: Number(f[2]), session: Number(f[3]), nice: Number(f[16]) };
}

async function waitFor(path: string): Promise<string> {
  for (let i = 0; i < 500; i++) {
    try {
      const t = await Deno.readTextFile(path);
      if (t.endsWith("\n")) return t;
    } catch { /* not written yet */ }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${path} was never written`);
}

/** A process's stat line, read by a plain child (the runtime won't read /proc itself). */
async function statOf(pid: number | "$$"): Promise<string> {
  const o = await new Deno.Command("sh", {
    args: ["-c", `read -r s < /proc/${pid}/stat; echo "$s"`],
  })
    .output();
  return new TextDecoder().decode(o.stdout);
}

/** The autogroup (Linux's per-session scheduling group) a process is in, read by a plain child. */
async function autogroupOf(pid: number | "$$"): Promise<string> {
  const o = await new Deno.Command("sh", {
    args: ["-c", `cat /proc/${pid}/autogroup 2>/dev/null || echo none`],
  }).output();
  return new TextDecoder().decode(o.stdout).trim();
}

type Via = { bash?: string | null; setsid?: string | null };
const ROUTES: [string, boolean, Via][] = [
  ["bash's job control (the hook's pass)", true, { bash: BASH }],
  ["setsid(1)", false, { setsid: SETSID }],
  ["setsid(1), for the hook's pass where there is no bash", true, {
    bash: "/nonexistent/bash",
    setsid: SETSID,
  }],
  ["the runtime's detached start (no setsid on PATH)", false, { setsid: "/nonexistent/setsid" }],
  ["the runtime's detached start (not Linux, no bash)", true, { bash: null, setsid: null }],
];

for (const [route, sameSession, via] of ROUTES) {
  // the bash route alone stays in the caller's session; every other one makes its own
  const staysInSession = sameSession && via.bash === BASH;
  Deno.test({
    name: `a detached start through ${route} leaves the caller's process group${
      staysInSession ? ", not its session or autogroup," : " and session,"
    } at the niceness asked`,
    ignore: Deno.build.os !== "linux",
    fn: async () => {
      const dir = await Deno.makeTempDir({ prefix: "terminus-spawn-" });
      const out = join(dir, "out");
      try {
        // sh names itself and the variable, then stays until the test is done looking at it
        const script =
          `printf '%s\\n%s\\n' "$$" "$TERMINUS_SPAWN_PROBE" > "$1.tmp" && mv "$1.tmp" "$1"
          n=0; while [ ! -e "$1.done" ] && [ -d "\${1%/*}" ] && [ $n -lt 1000 ]; do n=$((n+1)); sleep 0.02; done`;
        spawnDetached(["sh", "-c", script, "sh", out], {
          niceness: PASS_NICENESS,
          env: { TERMINUS_SPAWN_PROBE: "carried" },
          sameSession,
        }, via);
        const [pid, probe] = (await waitFor(out)).split("\n");
        assert.equal(probe, "carried");
        const mine = statFields(await statOf("$$"));
        // the runtime's own start sets the niceness just after the child starts: wait for it
        let its = statFields(await statOf(Number(pid)));
        for (let i = 0; i < 500 && its.nice !== PASS_NICENESS; i++) {
          await new Promise((r) => setTimeout(r, 20));
          its = statFields(await statOf(Number(pid)));
        }
        assert.equal(its.pgrp, Number(pid), "it leads a process group of its own");
        assert.notEqual(its.pgrp, mine.pgrp, "it left the caller's process group");
        const group = await autogroupOf(Number(pid));
        if (staysInSession) {
          assert.equal(its.session, mine.session, "it stayed in the caller's session");
          assert.equal(group, await autogroupOf("$$"));
        } else {
          assert.notEqual(its.session, mine.session, "it left the caller's session");
          assert.equal(its.session, Number(pid), "it leads its session");
          // setsid's route gives its session's scheduling group the niceness too, where
          // the kernel has autogroups; the runtime's own start cannot
          if (via.setsid === SETSID && group !== "none") {
            assert.match(group, new RegExp(` nice ${PASS_NICENESS}$`), group);
            assert.notEqual(group, await autogroupOf("$$"));
          }
        }
        assert.equal(its.nice, PASS_NICENESS);
      } finally {
        await Deno.writeTextFile(`${out}.done`, "");
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

/** Where `cmd` is on this machine's PATH. */
async function onPath(cmd: string): Promise<string> {
  const o = await new Deno.Command("sh", { args: ["-c", `command -v ${cmd}`] }).output();
  const path = new TextDecoder().decode(o.stdout).trim();
  assert.ok(path.startsWith("/"), `${cmd} on this machine's PATH`);
  return path;
}

/** A test on Linux alone, given a temp folder and the path of the file its program writes. */
function linuxTest(name: string, fn: (dir: string, out: string) => Promise<void>) {
  Deno.test({
    name,
    ignore: Deno.build.os !== "linux",
    fn: async () => {
      const dir = await Deno.makeTempDir({ prefix: "terminus-spawn-" });
      try {
        await fn(dir, join(dir, "out"));
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}

linuxTest(
  "bash's route starts the program no sooner than the delay asked (the hook's pass)",
  async (_dir, out) => {
    const t0 = Date.now();
    spawnDetached(["sh", "-c", `date +%s%3N > "$1.tmp" && mv "$1.tmp" "$1"`, "sh", out], {
      sameSession: true,
      delayMs: 300,
    }, { bash: BASH });
    const started = Number((await waitFor(out)).trim());
    // a lower bound only: a slow machine starts it later, never sooner
    assert.ok(started - t0 >= 300, `started ${started - t0} ms after the spawn`);
  },
);

linuxTest(
  "bash's job, given a process to wait for, starts the program only once that process has exited",
  async (_dir, out) => {
    // the hook's case: the job is started first, and the process it names (the hook) goes on
    const lives = 600;
    const t0 = Date.now();
    const hook = new Deno.Command("sleep", { args: [(lives / 1000).toFixed(3)] }).spawn();
    const program = ["sh", "-c", `date +%s%3N > "$1.tmp" && mv "$1.tmp" "$1"`, "sh", out];
    const job = await new Deno.Command(BASH, {
      args: ["-c", BASH_JOB, "terminus", "0", "", String(hook.pid), ...program],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    assert.equal(job.code, 0, "bash returns at once, the job in the background");
    await hook.status;
    const started = Number((await waitFor(out)).trim());
    // with no delay asked, only the wait for the named process holds the program back
    assert.ok(started - t0 >= lives, `started ${started - t0} ms after the process it waited for`);
  },
);

// each route by its program's path (the runtime looks a command up on the PATH it is given),
// then builtins only: the PATH the program gets holds nothing
const PATHLESS: [string, string, (path: string) => Via, boolean][] = [
  [
    "bash's route without nice, sleep, timeout or tail on the job's PATH",
    BASH,
    (bash) => ({ bash, setsid: null }),
    true,
  ],
  ["setsid's route without nice on PATH", SETSID, (setsid) => ({ setsid }), false],
];
for (const [route, cmd, via, sameSession] of PATHLESS) {
  linuxTest(`${route} still starts the program`, async (dir, out) => {
    spawnDetached(["/bin/sh", "-c", `printf '%s\\n' "$$" > "$1"`, "sh", out], {
      niceness: PASS_NICENESS,
      sameSession,
      delayMs: 50,
      // this process outlives the test: with no tail to wait on it, the job must not hang
      afterExit: true,
      env: { PATH: join(dir, "nothing-here") },
    }, via(await onPath(cmd)));
    const pid = Number((await waitFor(out)).trim());
    assert.ok(pid > 1, "the program ran");
  });
}

linuxTest(
  "the backfill's worker starts in a session of its own at BACKFILL_NICENESS, its scheduling group too",
  async (_dir, out) => {
    // the worker's argv is `<self> backfill --work`: here self is a probe that names itself
    // and waits ($1 is its file; the worker's own words come after it)
    const script = `printf '%s\\n%s %s\\n' "$$" "$2" "$3" > "$1.tmp" && mv "$1.tmp" "$1"
      n=0; while [ ! -e "$1.done" ] && [ $n -lt 1000 ]; do n=$((n+1)); sleep 0.02; done`;
    try {
      startBackfill(["sh", "-c", script, "sh", out]);
      const [pid, words] = (await waitFor(out)).split("\n");
      assert.equal(words, "backfill --work");
      const its = statFields(await statOf(Number(pid)));
      const mine = statFields(await statOf("$$"));
      assert.notEqual(its.session, mine.session, "it left the caller's session");
      assert.equal(its.nice, BACKFILL_NICENESS);
      const group = await autogroupOf(Number(pid));
      if (group !== "none") assert.match(group, new RegExp(` nice ${BACKFILL_NICENESS}$`), group);
    } finally {
      await Deno.writeTextFile(`${out}.done`, "");
    }
  },
);

linuxTest(
  "install's first backfill starts at normal priority, and says --first so the worker keeps it",
  async (_dir, out) => {
    const script = `printf '%s\\n%s %s %s\\n' "$$" "$2" "$3" "$4" > "$1.tmp" && mv "$1.tmp" "$1"
      n=0; while [ ! -e "$1.done" ] && [ $n -lt 1000 ]; do n=$((n+1)); sleep 0.02; done`;
    try {
      startFirstBackfill(["sh", "-c", script, "sh", out]);
      const [pid, words] = (await waitFor(out)).split("\n");
      assert.equal(words, "backfill --work --first");
      const its = statFields(await statOf(Number(pid)));
      const mine = statFields(await statOf("$$"));
      assert.notEqual(its.session, mine.session, "it left the caller's session");
      assert.equal(its.nice, mine.nice, "the caller's own priority, not the lowest");
    } finally {
      await Deno.writeTextFile(`${out}.done`, "");
    }
  },
);
