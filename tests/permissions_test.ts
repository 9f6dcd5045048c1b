/**
 * The program's permissions: no network, no FFI, never everything. The flags are read from
 * where they are defined, and a program run under them is shown to be refused the network.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  COMPILED_PERMISSION_FLAGS,
  PERMISSION_FLAGS,
  permissionFlags,
  selfCommand,
} from "../core/context.ts";
import { REPO_DIR } from "./helpers.ts";

const FORBIDDEN = [
  /^--allow-net(=|$)/,
  /^--allow-ffi(=|$)/,
  /^--allow-all$/,
  /^-A$/,
  /^-[a-zA-Z]*A/,
];

function assertNoForbidden(flags: string[], where: string) {
  for (const f of flags) {
    for (const re of FORBIDDEN) assert.doesNotMatch(f, re, `${where} carries ${f}`);
  }
}

Deno.test("PERMISSION_FLAGS and the terminus/install tasks grant no net, no ffi and never -A", async () => {
  assertNoForbidden(PERMISSION_FLAGS, "PERMISSION_FLAGS");
  assertNoForbidden(COMPILED_PERMISSION_FLAGS, "COMPILED_PERMISSION_FLAGS");
  assert.ok(PERMISSION_FLAGS.includes("--no-prompt"), "never prompts");
  const manifest = JSON.parse(await Deno.readTextFile(join(REPO_DIR, "deno.json")));
  for (const task of ["terminus", "install"]) {
    const line = manifest.tasks[task] as string;
    assert.equal(typeof line, "string", `deno.json has a ${task} task`);
    const words = line.split(/\s+/);
    assertNoForbidden(words, `the ${task} task`);
    // the task runs the program with exactly the flags the program uses for itself
    for (const f of PERMISSION_FLAGS) assert.ok(words.includes(f), `the ${task} task has ${f}`);
    const run = words.indexOf("run");
    const flags = words.slice(run + 1).filter((w) => w.startsWith("-"));
    assert.deepEqual(flags.sort(), [...PERMISSION_FLAGS].sort(), `the ${task} task adds no flag`);
  }
  // the detached self-spawn carries the same flags, and no others
  const self = selfCommand();
  assertNoForbidden(self, "selfCommand()");
});

/** Tries the network and FFI; prints which attempts the permission system refused. */
const PROBE = `
const results: Record<string, string> = {};
const denied = (e: unknown) =>
  e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied
    ? "denied"
    : "not denied";
const attempt = async (name: string, f: () => unknown) => {
  try {
    await f();
    results[name] = "not denied";
  } catch (e) {
    results[name] = denied(e);
  }
};
// port 9 is on fetch's blocked-port list, which would refuse it with or without permission
await attempt("fetch", () => fetch("http://127.0.0.1:47/"));
await attempt("connect", async () => (await Deno.connect({ hostname: "127.0.0.1", port: 9 })).close());
await attempt("listen", () => Deno.listen({ hostname: "127.0.0.1", port: 0 }).close());
await attempt("ffi", () => Deno.dlopen("libc.so.6", {}));
console.log(JSON.stringify(results));
`;

async function probe(flags: string[]): Promise<Record<string, string>> {
  const dir = await Deno.makeTempDir({ prefix: "terminus-perm-" });
  try {
    const script = join(dir, "probe.ts");
    await Deno.writeTextFile(script, PROBE);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...flags, script],
      cwd: dir,
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a program run with PERMISSION_FLAGS is refused the network and FFI", async () => {
  assert.deepEqual(await probe(PERMISSION_FLAGS), {
    fetch: "denied",
    connect: "denied",
    listen: "denied",
    ffi: "denied",
  });
  // the same probe granted net and ffi is not refused, so the refusal above is the flags'
  assert.deepEqual(await probe([...PERMISSION_FLAGS, "--allow-net", "--allow-ffi"]), {
    fetch: "not denied",
    connect: "not denied",
    listen: "not denied",
    ffi: "not denied",
  });
});

Deno.test("runtimePath names the runtime by the full path the permissions granted, never by bare name", async () => {
  const dir = await Deno.makeTempDir({ prefix: "terminus-runtime-" });
  try {
    // deno on PATH as a link to the real binary, granted by name as the tasks do
    const bin = join(dir, "bin");
    await Deno.mkdir(bin);
    const link = join(bin, "deno");
    await Deno.symlink(Deno.execPath(), link);
    const script = join(dir, "probe.ts");
    const context = new URL("../core/context.ts", import.meta.url).href;
    await Deno.writeTextFile(
      script,
      `import { runtimePath } from ${JSON.stringify(context)};
const p = runtimePath();
const o = await new Deno.Command(p, { args: ["--version"], stdout: "null" }).output();
console.log(JSON.stringify({ p, code: o.code }));`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...permissionFlags("deno"), script],
      cwd: dir,
      env: { PATH: bin, DENO_NO_UPDATE_CHECK: "1", HOME: dir, DENO_DIR: join(dir, "cache") },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    const real = await Deno.realPath(Deno.execPath());
    // the real binary when it is the one granted, else the PATH entry that was
    assert.ok(r.p === link || r.p === real, r.p);
    assert.ok(r.p.startsWith("/"));
    assert.equal(r.code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "a program run with PERMISSION_FLAGS can lower its own priority (the backfill's worker, the hook's pass)",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "terminus-nice-" });
    try {
      const script = join(dir, "probe.ts");
      const spawn = new URL("../core/spawn.ts", import.meta.url).href;
      const constants = new URL("../core/constants.ts", import.meta.url).href;
      await Deno.writeTextFile(
        script,
        `import { lowerOwnPriority } from ${JSON.stringify(spawn)};
import { BACKFILL_NICENESS } from ${JSON.stringify(constants)};
await lowerOwnPriority(BACKFILL_NICENESS);
console.log(Deno.pid);
// held until the test has read its niceness
for await (const _ of Deno.stdin.readable) { /* until closed */ }`,
      );
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", ...PERMISSION_FLAGS, script],
        cwd: dir,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      }).spawn();
      const reader = child.stdout.getReader();
      let said = "";
      while (!said.includes("\n")) {
        const r = await reader.read();
        if (r.done) break;
        said += new TextDecoder().decode(r.value);
      }
      reader.releaseLock();
      // /proc is closed to the permissions; ps reads the niceness of the process's main thread
      const ni = said.trim() === "" ? "" : new TextDecoder().decode(
        (await new Deno.Command("ps", { args: ["-o", "ni=", "-p", said.trim()], stdout: "piped" })
          .output()).stdout,
      ).trim();
      await child.stdin.close();
      const out = await child.output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      assert.equal(ni, "19");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
