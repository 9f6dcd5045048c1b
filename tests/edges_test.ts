/**
 * The edges (issue 26), each driven for real: symbolic links, a FIFO, oversized and nested
 * config files, a data directory pulled away, SIGKILL at exact syscalls (strace's fault
 * injection), Unicode lookalikes. docs/design/faults.md lists what each guarantees.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { cliOk, exists, runCli, type Sandbox, sandbox, writeTranscript } from "./helpers.ts";

const SESSION = "11111111-1111-4111-8111-111111111111";
const CWD = "/nonexistent/terminus-edges/alpha";

function line(uuid: string, text: string, parent: string | null = null): string {
  return JSON.stringify({
    type: "user",
    uuid,
    parentUuid: parent,
    timestamp: "2026-08-12T21:00:00.000Z",
    cwd: CWD,
    sessionId: SESSION,
    message: { role: "user", content: text },
  }) + "\n";
}

async function oneSession(sb: Sandbox, text = "hello from the edges"): Promise<string> {
  return await writeTranscript(sb.claude, CWD, `${SESSION}.jsonl`, line("u1", text));
}

Deno.test("uninstall --purge through a symlinked data dir deletes what the link points to", async () => {
  await using sb = await sandbox();
  const real = join(sb.dir, "real");
  await Deno.mkdir(real, { mode: 0o700 });
  await Deno.symlink(real, sb.data);
  await oneSession(sb);
  await cliOk(sb, ["ingest"]);
  assert.ok(await exists(join(real, "terminus.db")));
  const r = await runCli(sb, ["uninstall", "--purge", "--yes"]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.equal(await exists(real), false, `the target stays: ${r.out}`);
  assert.equal(await exists(sb.data), false, "the link stays");
  assert.match(r.out, new RegExp(`deleted ${real}.*and the link`));
});
