/**
 * Genuine Claude Code transcripts, from TERMINUS_TEST_CORPUS: each subfolder holding a
 * projects/ folder is a root. Every transcript must be archived byte for byte, verify must
 * be clean, and the turns must be exactly the turn-shaped records. The corpus is read in
 * place and never copied.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  archivedStreams,
  assertSameBytes,
  cliOk,
  corpusRoots,
  parseEnvelope,
  query,
  sandbox,
  writeConfig,
} from "./helpers.ts";

const CORPUS = Deno.env.get("TERMINUS_TEST_CORPUS");
if (!CORPUS) {
  console.warn(
    "corpus_test.ts: TERMINUS_TEST_CORPUS is not set, so the test over genuine transcripts is ignored",
  );
}

const UUID_JSONL = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;
const AGENT_JSONL = /^agent-.*\.jsonl$/;

interface Transcript {
  path: string;
  key: string;
}

/** An independent walk: uuid files directly in a project folder, agent files below one. */
function transcripts(root: string): Transcript[] {
  const out: Transcript[] = [];
  const projects = join(root, "projects");
  const below = (dir: string, rel: string) => {
    for (const e of Deno.readDirSync(dir)) {
      if (e.isDirectory && e.name !== "tool-results") below(join(dir, e.name), `${rel}${e.name}/`);
      else if (e.isFile && AGENT_JSONL.test(e.name)) {
        out.push({ path: join(dir, e.name), key: rel + e.name });
      }
    }
  };
  for (const folder of Deno.readDirSync(projects)) {
    if (!folder.isDirectory) continue;
    const dir = join(projects, folder.name);
    for (const e of Deno.readDirSync(dir)) {
      if (e.isDirectory && e.name !== "tool-results") below(join(dir, e.name), `${e.name}/`);
      else if (e.isFile && (UUID_JSONL.test(e.name) || AGENT_JSONL.test(e.name))) {
        out.push({ path: join(dir, e.name), key: e.name });
      }
    }
  }
  return out;
}

/** Records the archive must make turns of. */
function expectedTurns(content: Uint8Array): number {
  let n = 0;
  for (const line of new TextDecoder().decode(content).split("\n")) {
    let r;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (
      r && typeof r === "object" &&
      ["user", "assistant", "system", "attachment"].includes(r.type) &&
      typeof r.uuid === "string" && typeof r.timestamp === "string"
    ) n++;
  }
  return n;
}

Deno.test({
  name: "corpus: every genuine transcript is archived byte for byte and verifies clean",
  ignore: !CORPUS,
  async fn() {
    const roots = corpusRoots(CORPUS!);
    assert.ok(roots.length > 0, `${CORPUS} holds no root with a projects folder`);
    const all = roots.flatMap(transcripts);
    assert.ok(all.length > 0, "the corpus holds transcripts");
    const keys = new Set(all.map((t) => t.key));
    assert.equal(keys.size, all.length, "every transcript has its own session key");

    await using sb = await sandbox();
    await writeConfig(sb, `roots = ${JSON.stringify(roots)}\n`);
    const r = await cliOk(sb, ["ingest"]);
    assert.match(
      r.err,
      new RegExp(`${all.length} file\\(s\\) walked, ${all.length} committed, 0 failed`),
    );

    const streams = await archivedStreams(sb.store);
    assert.deepEqual([...streams.keys()].sort(), [...keys].sort(), "exactly the transcripts");
    let turns = 0;
    for (const t of all) {
      const content = await Deno.readFile(t.path);
      assertSameBytes(streams.get(t.key), content, t.path);
      const want = expectedTurns(content);
      turns += want;
      const got = query<{ n: number }>(
        sb.store,
        "SELECT count(*) AS n FROM turns JOIN sessions USING (session_no) WHERE session_key = ?",
        t.key,
      )[0].n;
      assert.equal(got, want, `${t.key}: the turn-shaped records are the turns`);
    }

    const v = await cliOk(sb, ["verify", "--json"]);
    assert.deepEqual(parseEnvelope(v.out).data, { checked: all.length, failures: [] });
    assert.equal(v.err, "");
    const s = parseEnvelope((await cliOk(sb, ["status", "--json"])).out).data as {
      sessions: number;
      turns: number;
    };
    assert.equal(s.sessions, all.length);
    assert.equal(s.turns, turns);

    // a second pass reads nothing and leaves every stream as it was
    const again = await cliOk(sb, ["ingest"]);
    assert.match(again.err, /0 committed, 0 failed, 0 byte\(s\) read/);
    const after = await archivedStreams(sb.store);
    for (const t of all) assertSameBytes(after.get(t.key), await Deno.readFile(t.path), t.path);
  },
});
