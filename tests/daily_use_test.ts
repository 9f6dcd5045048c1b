/**
 * Issue 48's smaller things, each as a person meets it: `sessions list` is the list; doctor
 * names the config file and counts its notes; an unknown config value is named by doctor and
 * retention, a value of the wrong type is not called "not valid TOML"; search says when a
 * --kind or --tool value matches nothing; tags are lowercased; a verb's misuse shows that
 * verb's usage; import-history leaves `/exit` out; observations name each session's number
 * and title.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseEnvelope, runCli, sandbox, writeConfig } from "./helpers.ts";
import { ingest, put, Transcript, world } from "./read_helpers.ts";

Deno.test("sessions list is the list; a word after it is refused in one line", async () => {
  await using w = await world();
  const app = w.dir("app");
  const t = new Transcript({
    sessionId: "48484848-0000-4000-8000-000000000001",
    cwd: app,
    start: "2026-03-01T09:00:00.000Z",
  });
  t.user("a session to list");
  t.assistant("ok");
  await put(w, t);
  await ingest(w);
  const plain = await w.run(["sessions"], { cwd: app });
  const list = await w.run(["sessions", "list"], { cwd: app });
  assert.equal(list.code, 0, list.err);
  assert.equal(list.out, plain.out);
  const extra = await w.run(["sessions", "list", "foo"], { cwd: app });
  assert.equal(extra.code, 2);
  assert.match(
    extra.err,
    /^terminus: sessions takes no argument 'foo'\n\nusage: terminus sessions \[list\] /,
  );
  assert.equal(extra.err.trim().split("\n").length, 4, "one usage line, not twelve");
  // a tag in capitals is lowercased, as the browser's +tag is
  const tag = await w.run(["sessions", "tag", "1", "BugHunt"], { cwd: app });
  assert.equal(tag.code, 0, tag.err);
  assert.match(tag.out, /\+bughunt/);
  assert.match(tag.err, /tags are lowercase: BugHunt as bughunt/);
  const bad = await w.run(["sessions", "tag", "1", "bug hunt"], { cwd: app });
  assert.equal(bad.code, 2);
  assert.match(
    bad.err,
    /\n\nusage: terminus sessions tag\|untag <session> <tag>\.\.\. \[--json\]\nterminus help sessions tag lists every option, with examples\.\n$/,
  );
});

Deno.test("doctor names the config file, or says there is none, and counts its notes", async () => {
  await using sb = await sandbox();
  const none = parseEnvelope((await runCli(sb, ["doctor", "--json"])).out);
  const roots = (none.data as Record<string, { finding: string }>).config_roots;
  assert.match(roots.finding, /^no config file \(.*terminus\.toml\), so every default; /);
  const human = await runCli(sb, ["doctor"]);
  assert.match(
    human.out,
    /\n\d+ problem\(s\), \d+ note\(s\)\. doctor changed nothing and never does\.\n$/,
  );

  const path = await writeConfig(sb, '[retention]\naction = "purge"\nage_days = 30\n');
  const doc = parseEnvelope((await runCli(sb, ["doctor", "--json"])).out);
  const f = (doc.data as Record<string, { state: string; finding: string }>).config_roots;
  assert.match(f.finding, new RegExp(`^config ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}; `));
  assert.equal(f.state, "note");
  assert.match(
    f.finding,
    /retention\.action = "purge" is not a value Terminus knows \(keep, evict, delete\), so it is read as "keep"/,
  );
  await runCli(sb, ["ingest"]);
  const retention = await runCli(sb, ["retention"]);
  assert.equal(retention.code, 0);
  assert.match(retention.err, /retention\.action = "purge" is not a value Terminus knows/);

  // valid TOML with a value of the wrong type is not "not valid TOML"
  await writeConfig(sb, '[retention]\naction = "evict"\nage_days = "30"\n');
  const typed = await runCli(sb, ["status"]);
  assert.equal(typed.code, 1);
  assert.match(
    typed.err,
    new RegExp(
      `${
        path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      }: retention\\.age_days must be a whole number \\(line 3\\)`,
    ),
  );
  assert.doesNotMatch(typed.err, /not valid TOML/);
});

Deno.test("search says when --kind or --tool matches nothing; exit 0 and the empty answer stay", async () => {
  await using w = await world();
  const app = w.dir("app");
  const t = new Transcript({
    sessionId: "48484848-0000-4000-8000-000000000002",
    cwd: app,
    start: "2026-03-01T09:00:00.000Z",
  });
  t.user("run the tests");
  t.toolUse("Bash", { command: "cargo test" });
  t.toolResult("ok");
  await put(w, t);
  await ingest(w);
  const kind = await w.run(["search", "tests", "--kind", "tool"], { cwd: app });
  assert.equal(kind.code, 0);
  assert.match(
    kind.err,
    /--kind 'tool' is no record type, so it matches nothing; the kinds are user, assistant, system, attachment, history_prompt/,
  );
  const tool = await w.run(["search", "--tool", "Nonexistent"], { cwd: app });
  assert.equal(tool.code, 0);
  assert.match(tool.err, /no turn here called a tool named 'Nonexistent'/);
  const found = await w.run(["search", "--tool", "Bash"], { cwd: app });
  assert.doesNotMatch(found.err, /no turn here called/);
  // Bash was called: an empty answer is the words' doing, and the note would mislead
  const unsaid = await w.run(["search", "zyzzyva", "--tool", "Bash", "--json"], { cwd: app });
  assert.equal(unsaid.code, 0);
  assert.deepEqual(JSON.parse(unsaid.out).data.hits, []);
  assert.doesNotMatch(unsaid.err, /no turn here called/);
});

Deno.test("import-history leaves bare session commands such as /exit out, and counts them", async () => {
  await using sb = await sandbox();
  const line = (display: string, ms: number) =>
    JSON.stringify({ display, pastedContents: {}, timestamp: ms, project: "/nonexistent/h" });
  await Deno.writeTextFile(
    join(sb.claude, "history.jsonl"),
    [line("/exit", 1), line("fix the kestrel test", 2), line("/clear", 3), line("/review 12", 4)]
      .join("\n") + "\n",
  );
  const r = parseEnvelope((await runCli(sb, ["import-history", "--json"])).out);
  const d = r.data as { added: number; skipped: number };
  assert.deepEqual([d.added, d.skipped], [2, 2]);
});

Deno.test("observations name each session's number and title", async () => {
  await using w = await world();
  const app = w.dir("app");
  const t = new Transcript({
    sessionId: "48484848-0000-4000-8000-000000000003",
    cwd: app,
    start: "2026-01-01T09:00:00.000Z",
  });
  t.user("wire the observation step up");
  t.toolUse("Bash", { command: "cargo build" });
  t.toolResult("ok");
  await put(w, t);
  await ingest(w); // closed long ago: observed by this pass
  const r = await w.run(["observations"], { cwd: app });
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^#1 {2}48484848-0000-4000-8000-000000000003\.jsonl {2}/m);
  assert.match(r.out, /^ {2}title {11}wire the observation step up$/m);
});
