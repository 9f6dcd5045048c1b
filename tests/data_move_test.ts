/**
 * terminus data move <path>: the move itself (copy under the ingest lock, record, delete),
 * the question and its answers, and every refusal the command reference lists, including a
 * path that changes while the question waits and a copy that fails part way.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  cliArgs,
  type CliResult,
  exists,
  fixture,
  runCli,
  type Sandbox,
  sandbox,
  writeTranscript,
} from "./helpers.ts";
import { tryIngestLock } from "../core/store/lock.ts";
import { networkFsType, parseMountinfo } from "../core/move/mounts.ts";
import { normalizeTarget } from "../core/move/target.ts";

const ALPHA = "/nonexistent/terminus-move/alpha";
const ID1 = "11111111-1111-4111-8111-111111111111";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface Moving {
  sb: Sandbox;
  /** The data directory as Terminus resolves it with TERMINUS_DATA_DIR unset. */
  data: string;
  /** The child's environment: the sandbox's, without TERMINUS_DATA_DIR. */
  env: Record<string, string>;
  locationFile: string;
}

/** A sandbox whose data directory is the platform default, holding an archived session. */
async function moving(opts: { populate?: boolean } = {}): Promise<Moving> {
  const sb = await sandbox();
  const env = { ...sb.env, XDG_DATA_HOME: join(sb.dir, "xdg") };
  delete (env as Record<string, string | undefined>).TERMINUS_DATA_DIR;
  const data = Deno.build.os === "darwin"
    ? join(sb.home, "Library", "Application Support", "terminus")
    : join(sb.dir, "xdg", "terminus");
  const m = { sb, data, env, locationFile: join(sb.config, "data-location") };
  if (opts.populate !== false) {
    await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, await fixture("every_record.jsonl"));
    const r = await cli(m, ["ingest"]);
    assert.equal(r.code, 0, r.err);
    assert.ok(await exists(join(data, "terminus.db")), "the store is in the default place");
  }
  return m;
}

function cli(m: Moving, args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  return runCli(m.sb, args, {
    env: { ...m.env, ...extraEnv, TERMINUS_DATA_DIR: extraEnv.TERMINUS_DATA_DIR },
  });
}

/** Every file and folder below `dir`, relative, with its mode and (for files) bytes. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (d: string, rel: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      const info = await Deno.lstat(p);
      const mode = (info.mode! & 0o777).toString(8);
      if (info.isDirectory) {
        out.set(r, `dir ${mode}`);
        await walk(p, r);
      } else if (info.isFile) {
        const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(p));
        out.set(r, `file ${mode} ${info.size} ${new Uint8Array(digest).join(".")}`);
      } else {
        out.set(r, `other ${mode}`);
      }
    }
  };
  await walk(dir, "");
  return out;
}

function refused(r: CliResult, pattern: RegExp, what: string) {
  assert.equal(r.code, 1, `${what}: exit 1 (stdout ${r.out}; stderr ${r.err})`);
  assert.match(r.err, pattern, what);
}

async function nothingMoved(m: Moving, before: Map<string, string>, what: string) {
  assert.deepEqual(await snapshot(m.data), before, `${what}: the data directory is untouched`);
  assert.ok(!(await exists(m.locationFile)), `${what}: no location recorded`);
}

/** Runs with stdin piped: waits for the question, runs `during`, then answers. */
async function answering(
  m: Moving,
  args: string[],
  answer: string | null,
  during: () => Promise<void> = () => Promise.resolve(),
): Promise<CliResult> {
  const child = new Deno.Command(Deno.execPath(), {
    args: cliArgs(args),
    cwd: m.sb.dir,
    env: m.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const err = new Response(child.stderr).text();
  const reader = child.stdout.getReader();
  let out = "";
  while (!out.includes("[y/N] ")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += decoder.decode(value);
  }
  await during();
  const w = child.stdin.getWriter();
  if (answer !== null) await w.write(encoder.encode(answer));
  await w.close();
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    out += decoder.decode(value);
  }
  const status = await child.status;
  return {
    code: status.code,
    signal: status.signal,
    stdout: encoder.encode(out),
    out,
    err: await err,
  };
}

/** As root, drops the capabilities that let root list any folder (see backfill_test.ts). */
async function runAsUser(m: Moving, args: string[]): Promise<CliResult> {
  const argv = [Deno.execPath(), ...cliArgs(args)];
  const [cmd, ...rest] = Deno.uid() === 0
    ? ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--", ...argv]
    : argv;
  const o = await new Deno.Command(cmd, {
    args: rest,
    cwd: m.sb.dir,
    env: m.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: o.code,
    signal: o.signal,
    stdout: o.stdout,
    out: decoder.decode(o.stdout),
    err: decoder.decode(o.stderr),
  };
}

/* ---------- the move ---------- */

Deno.test("data move -y copies the data directory, records the new place 0600, then deletes the old", async () => {
  const m = await moving();
  await using _ = m.sb;
  const config = join(m.sb.dir, "fresh-config", "terminus");
  m.env.TERMINUS_CONFIG_DIR = config;
  m.locationFile = join(config, "data-location");
  const before = await snapshot(m.data);
  const target = join(m.sb.dir, "new", "place");
  const r = await cli(m, ["data", "move", target, "-y"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, new RegExp(`^data now +${m.data}$`, "m"));
  assert.match(r.out, new RegExp(`^moving to +${target}$`, "m"));
  assert.match(r.out, /^size +\d+ byte\(s\)/m);
  assert.match(r.out, /not safe on a network filesystem/);
  assert.match(r.err, /^deleted /m);
  assert.deepEqual(await snapshot(target), before, "the same files, bytes and modes");
  assert.ok(!(await exists(m.data)), "the old directory is gone");
  assert.equal(await Deno.readTextFile(m.locationFile), target + "\n");
  assert.equal((await Deno.stat(m.locationFile)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(config)).mode! & 0o777, 0o700, "the config dir is created 0700");
  assert.equal((await Deno.stat(target)).mode! & 0o777, 0o700, "the new path is created 0700");
  assert.equal((await Deno.stat(join(m.sb.dir, "new"))).mode! & 0o777, 0o700);
  // every command now finds the store in its new place
  const status = await cli(m, ["status", "--json"]);
  assert.equal(JSON.parse(status.out).data.store, join(target, "terminus.db"));
  assert.equal(JSON.parse(status.out).data.sessions, 1);
  const verify = await cli(m, ["verify", "--json"]);
  assert.equal(verify.code, 0, verify.err);
});

Deno.test("the question is answered from stdin: yes moves, no or an empty line keeps, no answer exits 1", async () => {
  for (
    const [answer, moved, code] of [
      ["y\n", true, 0],
      ["YES\n", true, 0],
      ["n\n", false, 0],
      ["\n", false, 0],
      ["maybe\n", false, 0],
      [null, false, 1],
    ] as const
  ) {
    const m = await moving();
    await using _ = m.sb;
    const before = await snapshot(m.data);
    const target = join(m.sb.dir, "target");
    const r = await answering(m, ["data", "move", target], answer);
    assert.equal(r.code, code, `answer ${JSON.stringify(answer)}: ${r.err}`);
    assert.equal(await exists(target), moved, `answer ${JSON.stringify(answer)}`);
    if (!moved) await nothingMoved(m, before, `answer ${JSON.stringify(answer)}`);
    if (answer === null) assert.match(r.err, /no answer to read/);
  }
});

Deno.test("with stdin closed and no -y nothing moves and the command exits 1", async () => {
  const m = await moving();
  await using _ = m.sb;
  const before = await snapshot(m.data);
  const r = await cli(m, ["data", "move", join(m.sb.dir, "target")]);
  refused(r, /no answer to read/, "stdin closed");
  assert.match(r.out, /\[y\/N\] /, "the question was asked once");
  assert.equal(r.out.split("[y/N]").length, 2);
  await nothingMoved(m, before, "stdin closed");
  assert.ok(!(await exists(join(m.sb.dir, "target"))), "the path is not created");
});

Deno.test("trailing slashes and . parts are dropped and the location recorded without them", async () => {
  const m = await moving();
  await using _ = m.sb;
  await Deno.mkdir(join(m.sb.dir, "work"));
  const r = await runCli(m.sb, ["data", "move", "./a/./b//", "--yes"], {
    env: { ...m.env, TERMINUS_DATA_DIR: undefined },
    cwd: join(m.sb.dir, "work"),
  });
  assert.equal(r.code, 0, r.err);
  const want = join(m.sb.dir, "work", "a", "b");
  assert.equal(await Deno.readTextFile(m.locationFile), want + "\n");
  assert.match(r.out, new RegExp(`^moving to +${want}$`, "m"));
  assert.equal(normalizeTarget("/x/./y//", "/"), "/x/y");
  assert.equal(normalizeTarget("y/.", "/x"), "/x/y");
});

Deno.test("an existing empty folder of the user's own with mode 0700 is accepted", async () => {
  const m = await moving();
  await using _ = m.sb;
  const target = join(m.sb.dir, "empty");
  await Deno.mkdir(target, { mode: 0o700 });
  await Deno.chmod(target, 0o700);
  const r = await cli(m, ["data", "move", target, "-y"]);
  assert.equal(r.code, 0, r.err);
  assert.ok(await exists(join(target, "terminus.db")));
  assert.equal((await Deno.stat(target)).mode! & 0o777, 0o700, "its mode is left alone");
});

Deno.test("TERMINUS_DATA_DIR set: the move still happens, with a warning that the variable still wins", async () => {
  const m = await moving();
  await using _ = m.sb;
  const target = join(m.sb.dir, "target");
  const r = await cli(m, ["data", "move", target, "-y"], { TERMINUS_DATA_DIR: m.data });
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /TERMINUS_DATA_DIR is set .* outranks the recorded location/);
  assert.match(r.err, /TERMINUS_DATA_DIR still names /);
  assert.equal(await Deno.readTextFile(m.locationFile), target + "\n");
});

/* ---------- refusals ---------- */

Deno.test("the data directory itself, or a path inside it, is refused", async () => {
  const m = await moving();
  await using _ = m.sb;
  const before = await snapshot(m.data);
  await Deno.symlink(m.data, join(m.sb.dir, "link-to-data"));
  const cases: [string, RegExp][] = [
    [m.data, /is the data directory itself/],
    [m.data + "/", /is the data directory itself/],
    [m.data + "/./", /is the data directory itself/],
    [join(m.data, "inner"), /is inside the data directory/],
    [join(m.data, "snapshots"), /is inside the data directory/],
    [join(m.sb.dir, "link-to-data", "inner"), /is inside the data directory/],
  ];
  for (const [target, pattern] of cases) {
    refused(await cli(m, ["data", "move", target, "-y"]), pattern, target);
  }
  await nothingMoved(m, before, "inside");
});

Deno.test("a symlink is refused, with or without a trailing slash", async () => {
  const m = await moving();
  await using _ = m.sb;
  const before = await snapshot(m.data);
  const real = join(m.sb.dir, "real");
  await Deno.mkdir(real, { mode: 0o700 });
  await Deno.chmod(real, 0o700);
  const link = join(m.sb.dir, "link");
  await Deno.symlink(real, link);
  for (const target of [link, link + "/", link + "//", link + "/."]) {
    refused(await cli(m, ["data", "move", target, "-y"]), /is a symbolic link/, target);
  }
  assert.deepEqual([...Deno.readDirSync(real)], []);
  await nothingMoved(m, before, "symlink");
});

Deno.test("a file is refused", async () => {
  const m = await moving();
  await using _ = m.sb;
  const before = await snapshot(m.data);
  const file = join(m.sb.dir, "file");
  await Deno.writeTextFile(file, "x", { mode: 0o600 });
  refused(await cli(m, ["data", "move", file, "-y"]), /is a file, not a folder/, "file");
  refused(
    await cli(m, ["data", "move", join(file, "below"), "-y"]),
    /cannot be (created|checked)/,
    "below a file",
  );
  await nothingMoved(m, before, "file");
});

Deno.test("a folder another user owns is refused", async () => {
  const m = await moving();
  await using _ = m.sb;
  const before = await snapshot(m.data);
  let target: string;
  if (Deno.uid() === 0) {
    target = join(m.sb.dir, "theirs");
    await Deno.mkdir(target, { mode: 0o700 });
    await Deno.chmod(target, 0o700);
    await Deno.chown(target, 65534, 65534);
  } else {
    target = "/"; // root's, and not the user's, wherever the tests run unprivileged
  }
  refused(await cli(m, ["data", "move", target, "-y"]), /is owned by another user/, target);
  await nothingMoved(m, before, "owner");
});

Deno.test("a folder with any group or world bit is refused with the chmod that narrows it", async () => {
  const m = await moving();
  await using _ = m.sb;
  const before = await snapshot(m.data);
  for (const mode of [0o755, 0o750, 0o710, 0o701, 0o770, 0o707]) {
    const target = join(m.sb.dir, `mode-${mode.toString(8)}`);
    await Deno.mkdir(target);
    await Deno.chmod(target, mode);
    const r = await cli(m, ["data", "move", target, "-y"]);
    refused(r, /has group or world permission bits/, mode.toString(8));
    assert.ok(r.err.includes(`chmod 700 ${target}`), `names the command: ${r.err}`);
    assert.equal((await Deno.stat(target)).mode! & 0o777, mode, "the mode is left alone");
  }
  await nothingMoved(m, before, "mode");
});

Deno.test("a folder that cannot be listed is refused", async () => {
  const m = await moving();
  await using _ = m.sb;
  const before = await snapshot(m.data);
  const target = join(m.sb.dir, "unlistable");
  await Deno.mkdir(target);
  await Deno.chmod(target, 0o300);
  try {
    refused(await runAsUser(m, ["data", "move", target, "-y"]), /cannot be listed/, "unlistable");
  } finally {
    await Deno.chmod(target, 0o700);
  }
  await nothingMoved(m, before, "unlistable");
});

Deno.test("a folder that already holds files is refused", async () => {
  const m = await moving();
  await using _ = m.sb;
  const before = await snapshot(m.data);
  for (const name of ["notes.txt", ".hidden", "sub"]) {
    const target = join(m.sb.dir, `holds-${name}`);
    await Deno.mkdir(target, { mode: 0o700 });
    await Deno.chmod(target, 0o700);
    if (name === "sub") await Deno.mkdir(join(target, name));
    else await Deno.writeTextFile(join(target, name), "mine");
    refused(await cli(m, ["data", "move", target, "-y"]), /already holds files/, name);
  }
  await nothingMoved(m, before, "not empty");
});

Deno.test("there being no data directory yet is refused", async () => {
  const m = await moving({ populate: false });
  await using _ = m.sb;
  const r = await cli(m, ["data", "move", join(m.sb.dir, "target"), "-y"]);
  refused(r, /no data directory at .* yet/, "none");
  assert.ok(!(await exists(join(m.sb.dir, "target"))));
  assert.ok(!(await exists(m.locationFile)));
});

Deno.test("while another process holds the ingest lock nothing moves", async () => {
  const m = await moving();
  await using _ = m.sb;
  const before = await snapshot(m.data);
  const lock = tryIngestLock(m.data);
  assert.ok(lock);
  try {
    const target = join(m.sb.dir, "target");
    refused(await cli(m, ["data", "move", target, "-y"]), /holds the ingest lock/, "lock");
    assert.ok(!(await exists(target)), "the path is not created");
  } finally {
    lock.release();
  }
  await nothingMoved(m, before, "lock");
});

Deno.test("a path created, removed, replaced or changed while the question waited is refused", async () => {
  const cases: [string, boolean, (t: string, dir: string) => Promise<void>, RegExp][] = [
    [
      "created",
      false,
      (t) => Deno.mkdir(t, { mode: 0o700 }),
      /was created while the question waited/,
    ],
    ["removed", true, (t) => Deno.remove(t), /was removed while the question waited/],
    ["replaced", true, async (t, dir) => {
      const other = join(dir, "other");
      await Deno.mkdir(other, { mode: 0o700 });
      await Deno.chmod(other, 0o700);
      await Deno.rename(other, t);
    }, /was replaced while the question waited/],
    ["changed", true, async (t) => {
      await Deno.writeTextFile(join(t, "x"), "x");
      await Deno.remove(join(t, "x"));
    }, /was changed while the question waited/],
    [
      "filled",
      true,
      (t) => Deno.writeTextFile(join(t, "x"), "x"),
      /already holds files .*changed while the question waited|was changed/,
    ],
    [
      "opened up",
      true,
      (t) => Deno.chmod(t, 0o755),
      /changed while the question waited|group or world/,
    ],
  ];
  for (const [what, existing, change, pattern] of cases) {
    const m = await moving();
    await using _ = m.sb;
    const before = await snapshot(m.data);
    const target = join(m.sb.dir, "target");
    if (existing) {
      await Deno.mkdir(target, { mode: 0o700 });
      await Deno.chmod(target, 0o700);
    }
    const r = await answering(m, ["data", "move", target], "y\n", () => change(target, m.sb.dir));
    refused(r, pattern, what);
    await nothingMoved(m, before, what);
  }
});

Deno.test("a data directory that is a symlink is moved from where it really is, and both go", async () => {
  const m = await moving();
  await using _ = m.sb;
  const real = join(m.sb.dir, "real-data");
  await Deno.rename(m.data, real);
  await Deno.symlink(real, m.data);
  const before = await snapshot(real);
  const target = join(m.sb.dir, "new", "place");
  const r = await cli(m, ["data", "move", target, "-y"]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(await snapshot(target), before, "the store itself was copied");
  assert.ok(!(await exists(real)), "the real folder is deleted, not left behind");
  assert.ok(!(await exists(m.data)), "the link is gone too");
  assert.match(r.out, new RegExp(`^data now +${m.data} \\(a link to ${real}\\)$`, "m"));
  assert.match(r.err, new RegExp(`^deleted ${real}, and the link ${m.data} to it$`, "m"));
  const status = await cli(m, ["status", "--json"]);
  assert.equal(JSON.parse(status.out).data.sessions, 1);
});

Deno.test("a move killed part way leaves no file under a real name, and a retry clears its own leftovers", async () => {
  // the runtime writes its own caches beside any program it runs (a CommonJS package's
  // compiled code on every run, other caches on a first run): under a file-size limit that
  // write would be the one killed. So the mover runs without the code cache, once unlimited
  // (the other caches are written then), and then under the limit, where only the move writes.
  const mover = (target: string) => {
    const [run, ...rest] = cliArgs(["data", "move", target, "-y"]);
    return [Deno.execPath(), run, "--no-code-cache", ...rest];
  };
  {
    const w = await moving();
    await using _w = w.sb;
    const [exe, ...args] = mover(join(w.sb.dir, "warm"));
    const warm = await new Deno.Command(exe, {
      args,
      cwd: w.sb.dir,
      env: w.env,
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(warm.code, 0, decoder.decode(warm.stderr));
  }
  const m = await moving();
  await using _ = m.sb;
  // a snapshot larger than the file-size limit the first try runs under
  const snap = join(m.data, "snapshots", "terminus-2026-01-01T00-00-00.000Z.db");
  await Deno.mkdir(join(m.data, "snapshots"), { recursive: true, mode: 0o700 });
  await Deno.writeFile(snap, new Uint8Array(8 << 20).fill(7), { mode: 0o600 });
  const before = await snapshot(m.data);
  const target = join(m.sb.dir, "new", "place");
  // RLIMIT_FSIZE: the kernel kills the mover (SIGXFSZ) as it writes past 1 MB
  const argv = mover(target);
  const killed = await new Deno.Command("/bin/sh", {
    args: ["-c", 'ulimit -f 2000; exec "$@"', "sh", ...argv],
    cwd: m.sb.dir,
    env: m.env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(killed.signal, "SIGXFSZ", decoder.decode(killed.stderr));
  const left = [...(await snapshot(target)).keys()];
  assert.ok(left.includes(".terminus-move.partial"), left.join(", "));
  assert.deepEqual(
    left.filter((p) => !p.startsWith(".terminus-move.partial") && !before.has(p)),
    [],
    "nothing but the staging folder and finished entries",
  );
  assert.ok(!left.includes("snapshots/terminus-2026-01-01T00-00-00.000Z.db"), left.join(", "));
  assert.deepEqual(await snapshot(m.data), before, "the data directory is untouched");
  assert.ok(!(await exists(m.locationFile)), "no location recorded");

  // a folder holding the staging folder and something the data directory never holds is not ours
  await Deno.writeTextFile(join(target, "mine.txt"), "x");
  refused(await cli(m, ["data", "move", target, "-y"]), /already holds files/, "foreign file");
  await Deno.remove(join(target, "mine.txt"));

  const r = await cli(m, ["data", "move", target, "-y"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /^cleared what an earlier move left in /m);
  assert.deepEqual(await snapshot(target), before, "exactly the data directory, nothing left over");
  assert.ok(!(await exists(m.data)));
});

Deno.test("a copy that fails deletes nothing and leaves the old location recorded", async () => {
  const m = await moving();
  await using _ = m.sb;
  // an earlier move recorded this place; the data directory is here because of it
  await Deno.writeTextFile(m.locationFile, m.data + "\n", { mode: 0o600 });
  // something in the data directory that is neither a file nor a folder stops the copy
  const fifo = join(m.data, "zz-pipe");
  const mk = await new Deno.Command("mkfifo", { args: [fifo] }).output();
  assert.equal(mk.code, 0);
  const before = await snapshot(m.data);
  const target = join(m.sb.dir, "new", "place");
  const r = await cli(m, ["data", "move", target, "-y"]);
  refused(r, /the copy to .* failed: .*zz-pipe.*untouched and still the data directory/, "copy");
  assert.deepEqual(await snapshot(m.data), before, "the old directory is whole");
  assert.equal(await Deno.readTextFile(m.locationFile), m.data + "\n", "the old place stays");
  assert.ok(!(await exists(join(m.sb.dir, "new"))), "the partial copy is cleared away");
});

Deno.test("data move is misuse without a path, with --json, or with another subcommand: exit 2", async () => {
  const m = await moving({ populate: false });
  await using _ = m.sb;
  for (
    const args of [
      ["data"],
      ["data", "move"],
      ["data", "move", ""],
      ["data", "move", "/tmp/x", "--json"],
      ["data", "move", "--json"],
      ["data", "copy", "/tmp/x"],
      ["data", "move", "/tmp/x", "/tmp/y"],
      ["data", "move", "/tmp/x", "--force"],
    ]
  ) {
    const r = await cli(m, args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.equal(r.out, "");
    assert.match(r.err, /^terminus: /);
  }
});

/* ---------- network filesystems ---------- */

Deno.test("mountinfo: the longest mount point holding the path names its type", () => {
  const text = [
    "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
    "40 22 0:35 / /mnt/nas rw,relatime shared:20 - nfs4 server:/export rw,vers=4.2",
    "41 40 0:36 / /mnt/nas/local rw shared:21 - ext4 /dev/sdb1 rw",
    "42 22 0:37 / /home/me/remote\\040box rw,nosuid - fuse.sshfs me@box:/ rw",
    "43 22 0:38 / /srv/share rw - cifs //host/share rw",
    "44 22 0:39 / /srv/opt rw master:3 - smb3 //h/s rw",
    "",
  ].join("\n");
  assert.equal(parseMountinfo(text).length, 6);
  assert.equal(networkFsType("/mnt/nas/terminus", text), "nfs4");
  assert.equal(networkFsType("/mnt/nas", text), "nfs4");
  assert.equal(networkFsType("/mnt/nas/local/terminus", text), null);
  assert.equal(networkFsType("/mnt/nasty", text), null);
  assert.equal(networkFsType("/home/me/remote box/t", text), "fuse.sshfs");
  assert.equal(networkFsType("/srv/share/t", text), "cifs");
  assert.equal(networkFsType("/srv/opt/t", text), "smb3");
  assert.equal(networkFsType("/home/me", text), null);
});

Deno.test("a move killed after its copy was whole but before it was recorded is recognised and redone", async () => {
  const m = await moving();
  await using _ = m.sb;
  const before = await snapshot(m.data);
  // What the move leaves at that instant: every entry renamed into place, the emptied staging
  // folder still there (it goes only once the new location is recorded), nothing recorded.
  const target = join(m.sb.dir, "new", "place");
  await Deno.mkdir(join(target, ".terminus-move.partial"), { recursive: true, mode: 0o700 });
  const cp = await new Deno.Command("cp", { args: ["-a", `${m.data}/.`, target] }).output();
  assert.equal(cp.code, 0);
  assert.ok(!(await exists(m.locationFile)));
  const r = await cli(m, ["data", "move", target, "-y"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /^cleared what an earlier move left in /m);
  assert.deepEqual(await snapshot(target), before, "exactly the data directory, nothing left over");
});
