/**
 * terminus uninstall against the real Claude Code CLI: it takes out exactly what install
 * added, puts settings.json back byte for byte when nothing else changed, keeps the versions
 * folder and the archive, and --purge refuses to delete anything it should not.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { exists, runCli } from "./helpers.ts";
import {
  CLAUDE,
  install,
  mcpEntry,
  oneTurnTranscript,
  runWithInput,
  settle,
  type SetupBox,
  setupBox,
} from "./setup_helpers.ts";
import { tryIngestLock } from "../core/store/lock.ts";

const real = { ignore: !CLAUDE, sanitizeResources: false, sanitizeOps: false };

async function installed(sb: SetupBox) {
  const r = await install(sb);
  assert.equal(r.code, 0, r.out + r.err);
}

/** A store with one archived session. */
async function withStore(sb: SetupBox) {
  await oneTurnTranscript(sb, "/nonexistent/terminus-uninstall/alpha");
  await settle(sb);
  assert.ok(await exists(sb.store));
}

Deno.test({
  name:
    "uninstall leaves settings.json byte-identical to before install, removes the MCP entry and the link, keeps versions and data",
  ...real,
  async fn() {
    await using sb = await setupBox();
    const mine =
      '{"model":"opus","hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo hi"}]}]}}';
    await Deno.writeTextFile(sb.settings, mine);
    await installed(sb);
    await settle(sb);
    const r = await runCli(sb, ["uninstall"]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.equal(await Deno.readTextFile(sb.settings), mine);
    assert.equal(await exists(sb.backup), false, "the copy was put back and is gone");
    assert.equal(await mcpEntry(sb), undefined);
    assert.equal(await exists(sb.link), false);
    assert.ok(await exists(sb.versionFile), "the versions folder stays");
    assert.ok(r.out.includes(sb.versions), "prints the versions folder");
    assert.ok(r.out.includes(sb.data), "prints the data directory");
    assert.match(r.out, /put back and removed/);
    // a second uninstall finds nothing to do and still succeeds
    const again = await runCli(sb, ["uninstall"]);
    assert.equal(again.code, 0, again.out + again.err);
    assert.equal(await Deno.readTextFile(sb.settings), mine);
  },
});

Deno.test({
  name:
    "a settings.json install created is removed again; one edited since install keeps the edit and the copy",
  ...real,
  async fn() {
    await using sb = await setupBox();
    await installed(sb);
    assert.equal((await runCli(sb, ["uninstall"])).code, 0);
    assert.equal(await exists(sb.settings), false, "install created it, so it goes");

    await Deno.writeTextFile(sb.settings, JSON.stringify({ model: "opus" }, null, 2) + "\n");
    await installed(sb);
    const doc = JSON.parse(await Deno.readTextFile(sb.settings));
    doc.theme = "dark";
    await Deno.writeTextFile(sb.settings, JSON.stringify(doc, null, 2) + "\n");
    const r = await runCli(sb, ["uninstall"]);
    assert.equal(r.code, 0, r.out + r.err);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(sb.settings)), {
      model: "opus",
      theme: "dark",
    });
    assert.ok(await exists(sb.backup), "the copy stays beside the edited file");
    assert.ok(r.out.includes(`the copy install kept at ${sb.backup}`));
  },
});

Deno.test("a step that fails is reported, the rest still happen, and uninstall exits 1", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\necho 'cannot remove' >&2\nexit 1\n" });
  // as install leaves things, with the MCP entry already registered
  await Deno.writeTextFile(
    sb.claudeJson,
    JSON.stringify({
      mcpServers: { terminus: { type: "stdio", command: sb.link, args: ["mcp"] } },
    }),
  );
  await installed(sb);
  const r = await runCli(sb, ["uninstall"]);
  assert.equal(r.code, 1);
  assert.match(
    r.out,
    /failed +\.claude\.json +claude mcp remove exited 1: cannot remove\. Run: claude mcp remove --scope user terminus/,
  );
  assert.match(r.err, /1 step\(s\) could not be done: \.claude\.json/);
  assert.equal(await exists(sb.link), false, "the link still went");
  assert.equal(await exists(sb.settings), false, "the entries still went");
});

Deno.test("uninstall leaves a file it did not put at the link path, and names .claude.json.terminus-backup", async () => {
  await using sb = await setupBox("none");
  await Deno.mkdir(join(sb.home, ".local", "bin"), { recursive: true });
  await Deno.writeTextFile(sb.link, "someone else's\n");
  await Deno.writeTextFile(sb.claudeJson + ".terminus-backup", "{}");
  const r = await runCli(sb, ["uninstall"]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.equal(await Deno.readTextFile(sb.link), "someone else's\n");
  assert.ok(r.out.includes(`${sb.claudeJson}.terminus-backup`));
  assert.match(r.out, /not restored/);
});

Deno.test("uninstall takes --purge, -y and --yes; --json is misuse", async () => {
  await using sb = await setupBox("none");
  const r = await runCli(sb, ["uninstall", "--json"]);
  assert.equal(r.code, 2);
  assert.equal(r.out, "");
  // -y without --purge changes nothing beyond the uninstall
  await withStore(sb);
  const y = await runCli(sb, ["uninstall", "-y"]);
  assert.equal(y.code, 0, y.out + y.err);
  assert.ok(await exists(sb.store));
});

Deno.test("--purge with no terminus.db prints that there is nothing to purge and deletes nothing", async () => {
  await using sb = await setupBox("none");
  await Deno.mkdir(sb.data);
  await Deno.writeTextFile(join(sb.data, "keep-me"), "x");
  const r = await runCli(sb, ["uninstall", "--purge"]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /nothing to purge/);
  assert.ok(await exists(join(sb.data, "keep-me")));
});

Deno.test("--purge with no answer to read deletes nothing and exits 1", async () => {
  await using sb = await setupBox("none");
  await withStore(sb);
  const r = await runCli(sb, ["uninstall", "--purge"]); // stdin is /dev/null
  assert.equal(r.code, 1);
  assert.match(
    r.err,
    /Delete .* and everything in it, \d+ byte\(s\)/,
    "asked, with the path and a size",
  );
  assert.match(r.out, /no answer to read; nothing was deleted/);
  assert.ok(await exists(sb.store));
});

Deno.test("--purge answered no keeps the archive; answered y deletes the data directory and never the versions folder", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 0\n" });
  await installed(sb);
  await withStore(sb);
  const no = await runWithInput(sb, ["uninstall", "--purge"], "\n");
  assert.equal(no.code, 0, no.out + no.err);
  assert.match(no.out, /the answer was no/);
  assert.ok(await exists(sb.store));
  const yes = await runWithInput(sb, ["uninstall", "--purge"], "y\n");
  assert.equal(yes.code, 0, yes.out + yes.err);
  assert.equal(await exists(sb.data), false);
  assert.ok(yes.out.includes(`deleted ${sb.data}`));
  assert.ok(await exists(sb.versionFile));
});

Deno.test("--purge -y deletes without asking", async () => {
  await using sb = await setupBox("none");
  await withStore(sb);
  const r = await runCli(sb, ["uninstall", "--purge", "--yes"]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.doesNotMatch(r.err, /Delete /);
  assert.equal(await exists(sb.data), false);
});

Deno.test("--purge deletes nothing while a pass holds the ingest lock", async () => {
  await using sb = await setupBox("none");
  await withStore(sb);
  const lock = tryIngestLock(sb.data);
  assert.ok(lock);
  try {
    const r = await runCli(sb, ["uninstall", "--purge", "-y"]);
    assert.equal(r.code, 1);
    assert.match(r.out, /holds the ingest lock.*nothing was deleted/);
    assert.ok(await exists(sb.store));
  } finally {
    lock.release();
  }
});

Deno.test("--purge deletes nothing when the store cannot be read", async () => {
  await using sb = await setupBox("none");
  await Deno.mkdir(sb.data);
  await Deno.writeTextFile(
    sb.store,
    "not a database, just words, long enough to look like something",
  );
  const r = await runCli(sb, ["uninstall", "--purge", "-y"]);
  assert.equal(r.code, 1);
  assert.match(r.out, /cannot be read, so nothing was deleted/);
  assert.ok(await exists(sb.store));
});

Deno.test("uninstall prints the exact purge command that still works once the link is gone, and purge forgets the recorded data location", async () => {
  await using sb = await setupBox({ script: "#!/bin/sh\nexit 0\n" });
  // the data directory was moved: only the config directory's data-location names it
  const moved = join(sb.dir, "moved-data");
  await Deno.writeTextFile(join(sb.config, "data-location"), moved + "\n");
  delete sb.env.TERMINUS_DATA_DIR;
  const store = join(moved, "terminus.db");
  await installed(sb);
  await withStore({ ...sb, data: moved, store });

  const r = await runCli(sb, ["uninstall"]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.equal(await exists(sb.link), false);
  assert.ok(r.out.includes(`${join(sb.config, "data-location")}, which records`), r.out);
  const line = r.out.split("\n").find((l) => l.startsWith("  to purge"));
  assert.ok(line, r.out);
  const command = line.replace(/^ {2}to purge +/, "");
  assert.equal(command, `${sb.versionFile} uninstall --purge`);

  // the printed command, run as printed (plus --yes for no terminal), deletes the data and the record
  const words = command.split(" ");
  const o = await new Deno.Command(words[0], {
    args: [...words.slice(1), "--yes"],
    cwd: sb.dir,
    env: sb.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(o.stdout);
  assert.equal(o.code, 0, out + new TextDecoder().decode(o.stderr));
  assert.equal(await exists(moved), false);
  assert.equal(await exists(join(sb.config, "data-location")), false);
  assert.ok(out.includes(`removed ${join(sb.config, "data-location")}, which recorded ${moved}`));
});
