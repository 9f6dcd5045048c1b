/**
 * terminus export: every visible session's stream exactly as archived, an evicted one as an
 * empty file, a manifest that reconciles, and every refusal before the first byte.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  cliOk,
  corpusRoots,
  exists,
  parseEnvelope,
  runCli,
  type Sandbox,
  sandbox,
  sortedStringify,
  writeConfig,
  writeTranscript,
} from "./helpers.ts";
import { data, listTree, mode, OLD, sha256, turns } from "./maint_helpers.ts";
import { EXPORT_NOTICE } from "../core/export/export.ts";
import { ARCHIVE_FORMAT } from "../core/constants.ts";

const P = "/nonexistent/terminus-export";
const id = (n: number) => `00000000-0000-4000-8000-${n.toString().padStart(12, "0")}`;

interface ExportDoc {
  destination: string | null;
  manifest: string | null;
  sessions: number;
  turns: number;
  evicted: number;
  bytes: number;
  notice: string;
}

interface ManifestFile {
  file: string;
  session_key: string;
  session_id: string | null;
  project: string | null;
  turns: number;
  bytes: number;
  evicted: boolean;
  first_turn_at: string | null;
  last_turn_at: string | null;
}

interface Manifest {
  notice: string;
  archive_format: number;
  sessions: number;
  turns: number;
  evicted: number;
  bytes: number;
  projects: string[];
  first_turn_at: string | null;
  last_turn_at: string | null;
  files: ManifestFile[];
}

async function readManifest(dir: string): Promise<Manifest> {
  const text = await Deno.readTextFile(join(dir, "manifest.json"));
  const doc = JSON.parse(text);
  // pretty-printed, two spaces, keys sorted at every depth
  const sortedPretty = JSON.stringify(JSON.parse(sortedStringify(doc)), null, 2) + "\n";
  assert.equal(text, sortedPretty, "the manifest is pretty-printed with sorted keys");
  return doc as Manifest;
}

const CORPUS = Deno.env.get("TERMINUS_TEST_CORPUS");
if (!CORPUS) {
  console.warn(
    "export_test.ts: TERMINUS_TEST_CORPUS is not set, so the export round trip over genuine transcripts is ignored",
  );
}

/** Every transcript below a root: uuid files in a project folder, agent files below one. */
function transcripts(root: string): { path: string; key: string }[] {
  const out: { path: string; key: string }[] = [];
  const projects = join(root, "projects");
  const walk = (dir: string, rel: string, top: boolean) => {
    for (const e of Deno.readDirSync(dir)) {
      if (e.isDirectory && e.name !== "tool-results") {
        walk(join(dir, e.name), rel + e.name + "/", false);
      } else if (
        e.isFile &&
        (/^agent-.*\.jsonl$/.test(e.name) || (top && /^[0-9a-f-]{36}\.jsonl$/.test(e.name)))
      ) {
        out.push({ path: join(dir, e.name), key: rel + e.name });
      }
    }
  };
  for (const f of Deno.readDirSync(projects)) {
    if (f.isDirectory) walk(join(projects, f.name), "", true);
  }
  return out;
}

Deno.test({
  name: "export round trip: every genuine transcript comes back byte for byte (sha256 equal)",
  ignore: !CORPUS,
  async fn() {
    const roots = corpusRoots(CORPUS!);
    const all = roots.flatMap(transcripts);
    assert.ok(all.length > 0, "the corpus holds transcripts");
    await using sb = await sandbox();
    await writeConfig(sb, `roots = ${JSON.stringify(roots)}\n`);
    await cliOk(sb, ["ingest"]);
    const dest = join(sb.dir, "export");
    const r = await cliOk(sb, ["export", dest, "--json"]);
    const doc = data<ExportDoc>(r.out);
    const m = await readManifest(dest);
    assert.equal(doc.sessions, all.length);
    assert.equal(m.files.length, all.length);
    const byKey = new Map(m.files.map((f) => [f.session_key, f]));
    let bytes = 0;
    for (const t of all) {
      const f = byKey.get(t.key);
      assert.ok(f, `${t.key} is in the manifest`);
      const original = await Deno.readFile(t.path);
      const exported = await Deno.readFile(join(dest, f.file));
      assert.equal(await sha256(exported), await sha256(original), t.key);
      assert.equal(f.bytes, original.length);
      bytes += original.length;
    }
    assert.equal(doc.bytes, bytes);
    assert.equal(m.bytes, bytes);
  },
});

/** Three projects: two seen, one excluded later; a parent with a subagent; one evicted. */
async function populated(sb: Sandbox) {
  const files = {
    alpha: await writeTranscript(
      sb.claude,
      `${P}/alpha`,
      `${id(1)}.jsonl`,
      turns({
        sessionId: id(1),
        cwd: `${P}/alpha`,
        at: new Date("2026-03-01T10:00:00.000Z"),
        pairs: 3,
        filler: 90000,
      }),
    ),
    agent: await writeTranscript(
      sb.claude,
      `${P}/alpha`,
      `${id(1)}/subagents/agent-a7.jsonl`,
      turns({
        sessionId: id(1),
        cwd: `${P}/alpha`,
        at: new Date("2026-03-01T10:05:00.000Z"),
        pairs: 2,
      }),
    ),
    beta: await writeTranscript(
      sb.claude,
      `${P}/beta`,
      `${id(2)}.jsonl`,
      turns({
        sessionId: id(2),
        cwd: `${P}/beta`,
        at: new Date("2026-04-01T10:00:00.000Z"),
        pairs: 2,
      }),
    ),
    old: await writeTranscript(
      sb.claude,
      `${P}/beta`,
      `${id(3)}.jsonl`,
      turns({ sessionId: id(3), cwd: `${P}/beta`, at: OLD, pairs: 2 }),
    ),
    secret: await writeTranscript(
      sb.claude,
      `${P}/secret`,
      `${id(4)}.jsonl`,
      turns({
        sessionId: id(4),
        cwd: `${P}/secret`,
        at: new Date("2026-05-01T10:00:00.000Z"),
        pairs: 1,
      }),
    ),
  };
  // the 2025 session is evicted; the rest are younger than a year
  await writeConfig(sb, `[retention]\naction = "evict"\nage_days = 365\n`);
  await cliOk(sb, ["ingest"]);
  await writeConfig(
    sb,
    `exclude = ["${P}/secret"]\n[retention]\naction = "evict"\nage_days = 365\n`,
  );
  return files;
}

Deno.test("export writes each visible session as archived, an evicted one empty and flagged, and a manifest that reconciles", async () => {
  await using sb = await sandbox();
  const files = await populated(sb);
  const dest = join(sb.dir, "out", "export");
  const r = await cliOk(sb, ["export", dest, "--json"]);
  assert.equal(r.err, "", "a clean --json run writes nothing to stderr");
  const doc = data<ExportDoc>(r.out);
  assert.equal(doc.destination, dest);
  assert.equal(doc.manifest, join(dest, "manifest.json"));
  assert.equal(doc.notice, EXPORT_NOTICE);

  assert.equal(mode(dest), 0o700, "the folder export made is readable only by you");
  assert.equal(mode(join(dest, id(1))), 0o700);
  const tree = listTree(dest);
  assert.deepEqual(tree, [
    `${id(1)}.jsonl`,
    `${id(1)}/subagents/agent-a7.jsonl`,
    `${id(2)}.jsonl`,
    `${id(3)}.jsonl`,
    "manifest.json",
  ], "the excluded project is not there");
  for (const f of tree) assert.equal(mode(join(dest, f)), 0o600, f);

  for (
    const [name, path] of [["alpha", files.alpha], ["agent", files.agent], ["beta", files.beta]]
  ) {
    const rel = path.split("/projects/")[1].split("/").slice(1).join("/");
    assert.deepEqual(await Deno.readFile(join(dest, rel)), await Deno.readFile(path), name);
  }
  assert.equal((await Deno.readFile(join(dest, `${id(3)}.jsonl`))).length, 0, "evicted: empty");

  const m = await readManifest(dest);
  assert.equal(m.notice, EXPORT_NOTICE);
  assert.equal(m.archive_format, ARCHIVE_FORMAT);
  assert.equal(m.sessions, 4);
  assert.equal(m.files.length, m.sessions);
  assert.equal(m.evicted, 1);
  assert.equal(m.bytes, m.files.reduce((n, f) => n + f.bytes, 0));
  assert.equal(m.turns, m.files.reduce((n, f) => n + f.turns, 0));
  assert.equal(m.turns, 2 * (3 + 2 + 2 + 2));
  assert.deepEqual(
    { sessions: m.sessions, turns: m.turns, evicted: m.evicted, bytes: m.bytes },
    { sessions: doc.sessions, turns: doc.turns, evicted: doc.evicted, bytes: doc.bytes },
  );
  assert.deepEqual(m.projects, [`${P}/alpha`, `${P}/beta`]);
  assert.equal(m.first_turn_at, OLD.toISOString());
  assert.equal(m.last_turn_at, "2026-04-01T10:00:03.000Z");
  const evicted = m.files.find((f) => f.session_key === `${id(3)}.jsonl`)!;
  assert.equal(evicted.evicted, true);
  assert.equal(evicted.bytes, 0);
  assert.equal(evicted.turns, 4, "its turn rows are still counted");
  const agent = m.files.find((f) => f.session_key === `${id(1)}/subagents/agent-a7.jsonl`)!;
  assert.equal(agent.session_id, id(1));
  assert.equal(agent.project, `${P}/alpha`);
  for (const f of m.files) {
    const size = (await Deno.stat(join(dest, f.file))).size;
    assert.equal(size, f.bytes, `${f.file}: the manifest's bytes are the file's`);
  }
});

Deno.test("export ignores redact_recall: a secret-shaped string comes out as archived", async () => {
  await using sb = await sandbox();
  const secret = "AKIA" + "ABCDEFGHIJKLMNOP";
  const path = await writeTranscript(
    sb.claude,
    `${P}/alpha`,
    `${id(1)}.jsonl`,
    turns({ sessionId: id(1), cwd: `${P}/alpha`, at: new Date(), marker: `key ${secret}` }),
  );
  await writeConfig(sb, `[privacy]\nredact_recall = true\n`);
  await cliOk(sb, ["ingest"]);
  const dest = join(sb.dir, "export");
  const r = await cliOk(sb, ["export", dest]);
  assert.deepEqual(await Deno.readFile(join(dest, `${id(1)}.jsonl`)), await Deno.readFile(path));
  // human mode: the notice on stderr ahead of the counts, where it is read first
  const lines = r.err.trim().split("\n");
  assert.equal(lines[0], EXPORT_NOTICE);
  assert.match(lines[1], /^1 session\(s\), 2 turn\(s\), 0 evicted, /);
  assert.match(r.out, new RegExp(`^destination +${dest}$`, "m"));
});

Deno.test("export refuses a destination that holds anything or is not a directory, before any byte", async () => {
  await using sb = await sandbox();
  await populated(sb);
  const full = join(sb.dir, "full");
  await Deno.mkdir(full);
  await Deno.writeTextFile(join(full, "keep.txt"), "mine");
  const r = await runCli(sb, ["export", full, "--json"]);
  assert.equal(r.code, 1);
  const env = parseEnvelope(r.out);
  assert.equal(env.ok, false);
  assert.ok(env.reason!.includes(full), "the reason names the destination");
  assert.equal(env.data.destination, full);
  assert.equal(env.data.sessions, 0);
  assert.deepEqual(listTree(full), ["keep.txt"], "nothing was written");
  assert.equal(await Deno.readTextFile(join(full, "keep.txt")), "mine");

  const file = join(sb.dir, "a-file");
  await Deno.writeTextFile(file, "x");
  const f = await runCli(sb, ["export", file]);
  assert.equal(f.code, 1);
  assert.match(f.err, /is not a directory/);
  assert.equal(await Deno.readTextFile(file), "x");

  const missing = await runCli(sb, ["export", "--json"]);
  assert.equal(missing.code, 2, "no destination is misuse");
  assert.equal(missing.out, "");

  // an existing empty directory is used as it is, its mode left alone
  const empty = join(sb.dir, "empty");
  await Deno.mkdir(empty, { mode: 0o750 });
  await Deno.chmod(empty, 0o750);
  await cliOk(sb, ["export", empty]);
  assert.equal(mode(empty), 0o750);
  assert.ok(await exists(join(empty, "manifest.json")));
});

Deno.test("export with no store: an empty answer, exit 0, and no destination made", async () => {
  await using sb = await sandbox();
  const dest = join(sb.dir, "export");
  const r = await cliOk(sb, ["export", dest, "--json"]);
  const env = parseEnvelope(r.out);
  assert.equal(env.ok, true);
  assert.match(env.reason!, /no store/);
  assert.equal(env.data.destination, dest);
  assert.equal(await exists(dest), false);
  assert.equal(await exists(sb.data), false);
});
