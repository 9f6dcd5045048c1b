/**
 * A detached start leaves the caller's session and process group (Claude Code kills a hook's
 * whole group on a timeout), carries its environment, and runs at the niceness asked: through
 * setsid(1), and through the runtime's own detached start where there is no setsid.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { SETSID, spawnDetached } from "../core/spawn.ts";
import { PASS_NICENESS } from "../core/constants.ts";

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

for (
  const [route, setsid] of [
    ["setsid(1)", SETSID],
    ["the runtime's detached start (no setsid on PATH)", "/nonexistent/setsid"],
    ["the runtime's detached start (not Linux)", null],
  ] as const
) {
  Deno.test({
    name: `a detached start, through ${route}, is a session of its own at the niceness asked`,
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
        }, setsid);
        const [pid, probe] = (await waitFor(out)).split("\n");
        assert.equal(probe, "carried");
        const mine = statFields(await statOf("$$"));
        // the runtime's own start sets the niceness just after the child starts: wait for it
        let its = statFields(await statOf(Number(pid)));
        for (let i = 0; i < 500 && its.nice !== PASS_NICENESS; i++) {
          await new Promise((r) => setTimeout(r, 20));
          its = statFields(await statOf(Number(pid)));
        }
        assert.notEqual(its.session, mine.session, "it left the caller's session");
        assert.equal(its.pgrp, its.session, "it leads its own process group");
        assert.notEqual(its.pgrp, mine.pgrp);
        assert.equal(its.nice, PASS_NICENESS);
      } finally {
        await Deno.writeTextFile(`${out}.done`, "");
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
