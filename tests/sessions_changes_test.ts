/**
 * terminus sessions changes: per file, in order, what the session's tool calls did, and the same
 * diffs inline in `sessions show` and the exports. Over genuine transcripts (TERMINUS_TEST_CORPUS,
 * and TERMINUS_TEST_REAL for the bench corpus): every Edit, Write and MultiEdit appears once, and
 * the diffs applied in order to a full Read's content give what a later full Read shows.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { applyPatch } from "diff";
import { cliOk, corpusRoots, parseEnvelope, runCli, sandbox, writeConfig } from "./helpers.ts";
import { ingest, put, type Rec, Transcript, world } from "./read_helpers.ts";
import { openRead } from "../core/store/db.ts";
import { initReader } from "../core/store/codec.ts";
import { listSessions } from "../core/store/session_listing.ts";
import { loadSession } from "../core/sessions/load.ts";
import { type Change, diffLines, sameLines, sessionChanges } from "../core/sessions/changes.ts";
import { renderText } from "../core/sessions/render.ts";
import { attachChanges, conversation } from "../core/sessions/messages.ts";

const CORPUS = Deno.env.get("TERMINUS_TEST_CORPUS");
const REAL = Deno.env.get("TERMINUS_TEST_REAL");
if (!CORPUS) {
  console.warn(
    "sessions_changes_test.ts: TERMINUS_TEST_CORPUS is not set; the corpus test is ignored",
  );
}
if (!REAL) {
  console.warn(
    "sessions_changes_test.ts: TERMINUS_TEST_REAL (a folder holding the bench corpus's projects/) is not set; that test is ignored",
  );
}

const SID = "5e0a1c2d-3b4f-4a6e-8f15-b02a7d9e4c61";

interface ChangesDoc {
  files: {
    path: string;
    added: number;
    removed: number;
    changes: (Change & { turn_id: number })[];
  }[];
  total: { files: number; changes: number; added: number; removed: number; failed: number };
}

/** A session that reads, edits, writes, fails an edit, edits a notebook and moves files by shell. */
async function fixture() {
  const w = await world();
  const app = w.dir("app");
  const t = new Transcript({ sessionId: SID, cwd: app, start: "2026-03-01T09:00:00.000Z" });
  const main = join(app, "src/main.ts");
  const v1 = "const a = 1;\nconst b = 2;\nconst c = 3;\n";
  t.user("tidy src/main.ts");
  const read = t.toolUse("Read", { file_path: main });
  t.toolResult("     1\u2192const a = 1;", {
    toolUseResult: {
      type: "text",
      file: {
        filePath: main,
        content: v1.replace(/\n$/, ""),
        numLines: 3,
        startLine: 1,
        totalLines: 3,
      },
    },
  });
  const edit = t.toolUse("Edit", {
    file_path: main,
    old_string: "const b = 2;",
    new_string: "const b = 20;",
  });
  t.toolResult("The file has been updated.");
  const failed = t.toolUse("Edit", {
    file_path: main,
    old_string: "const zz = 9;",
    new_string: "x",
  });
  t.toolResult("<tool_use_error>String to replace not found in file.</tool_use_error>", {
    isError: true,
  });
  const multi = t.toolUse("MultiEdit", {
    file_path: main,
    edits: [
      { old_string: "const a = 1;", new_string: "let a = 1;" },
      { old_string: "const c = 3;", new_string: "const c = 3;\nconst d = 4;" },
    ],
  });
  t.toolResult("Applied 2 edits.");
  const readAgain = t.toolUse("Read", { file_path: main });
  t.toolResult("...", {
    toolUseResult: {
      type: "text",
      file: {
        filePath: main,
        content: "let a = 1;\nconst b = 20;\nconst c = 3;\nconst d = 4;",
        numLines: 4,
        startLine: 1,
        totalLines: 4,
      },
    },
  });
  const created = t.toolUse("Write", { file_path: "src/new.ts", content: "export const x = 1;\n" });
  t.toolResult("File created successfully at: src/new.ts", { toolUseResult: { type: "create" } });
  const over = t.toolUse("Write", {
    file_path: join(app, "README.md"),
    content: "# App\n\nNew text.\n",
  });
  t.toolResult("The file README.md has been updated.", { toolUseResult: { type: "update" } });
  const nb = t.toolUse("NotebookEdit", {
    notebook_path: join(app, "nb.ipynb"),
    cell_id: "c1",
    new_source: "print(1)\nprint(2)",
    cell_type: "code",
    edit_mode: "replace",
  });
  t.toolResult("Updated cell c1");
  const sh = t.toolUse("Bash", {
    command: "git mv src/old.ts src/moved.ts && rm -f 'tmp file.txt'",
  });
  t.toolResult("");
  t.assistant("Done.");
  await put(w, t);
  await ingest(w);
  return { w, app, main, uuids: { read, edit, failed, multi, readAgain, created, over, nb, sh } };
}

Deno.test("sessions changes: per file, in order, with summaries, failures, the shell's lines and --json", async () => {
  const { w, app, main, uuids } = await fixture();
  await using _ = w;
  const ids = w.ids();
  const env = await w.json(["sessions", "changes", SID], { cwd: app });
  const doc = env.data as unknown as ChangesDoc;
  assert.deepEqual(doc.files.map((f) => f.path), [
    main,
    join(app, "src/new.ts"),
    join(app, "README.md"),
    join(app, "nb.ipynb"),
    join(app, "src/old.ts"),
    join(app, "src/moved.ts"),
    join(app, "tmp file.txt"),
  ]);
  const m = doc.files[0];
  assert.deepEqual(m.changes.map((c) => [c.tool, c.status, c.turn_id]), [
    ["Edit", "applied", ids.get(uuids.edit)],
    ["Edit", "failed", ids.get(uuids.failed)],
    ["MultiEdit", "applied", ids.get(uuids.multi)],
  ]);
  assert.equal(
    m.changes[0].whole_file,
    true,
    "the Read proved the file, so the diff is the file's",
  );
  assert.deepEqual(m.changes[0].hunks[0].lines, [
    " const a = 1;",
    "-const b = 2;",
    "+const b = 20;",
    " const c = 3;",
  ]);
  // +1 -1 for the Edit, +2 -1 for the MultiEdit (a line changed, one added); not the failed one
  assert.deepEqual([m.added, m.removed], [3, 2], "the failed edit is not counted");
  // the shown diffs, applied to the first Read, give what the second Read shows
  let text = "const a = 1;\nconst b = 2;\nconst c = 3;\n";
  for (const c of m.changes.filter((c) => c.status === "applied")) {
    const next = applyPatch(text, ["--- a", "+++ b", ...diffLines(c)].join("\n") + "\n");
    assert.notEqual(next, false);
    text = next as string;
  }
  assert.ok(sameLines(text, "let a = 1;\nconst b = 20;\nconst c = 3;\nconst d = 4;"));
  const created = doc.files[1].changes[0];
  assert.deepEqual([created.write, created.added, created.removed], ["created", 1, 0]);
  const over = doc.files[2].changes[0];
  assert.equal(over.write, "overwritten");
  assert.equal(
    over.content,
    "# App\n\nNew text.\n",
    "no earlier content known: the new content whole",
  );
  assert.deepEqual(doc.files[3].changes[0].cell, { id: "c1", type: "code", mode: "replace" });
  assert.equal(doc.files[3].added, 2);
  assert.deepEqual(
    doc.files.slice(4).map((f) => [f.changes[0].tool, f.changes[0].shell]),
    [
      ["Bash", "moved to src/moved.ts by git mv"],
      ["Bash", "git mv moved src/old.ts here"],
      ["Bash", "deleted by rm"],
    ],
  );
  // +3 -2 above, +1 created, +3 written over unseen content, +2 in the notebook cell
  assert.deepEqual(doc.total, { files: 7, changes: 9, added: 9, removed: 2, failed: 1 });

  const human = await cliOk(w.sb, ["sessions", "changes", SID], { cwd: app });
  assert.match(human.out, /^src\/main\.ts {2}\+3 -2$/m);
  assert.match(
    human.out,
    /Edit \(failed: the tool result was an error; lines counted within the edit\)/,
  );
  assert.match(human.out, /Write \(created\)/);
  assert.match(human.out, /Bash \(by shell, not reconstructed\)/);
  assert.match(human.out, /^ {4}@@ -1,3 \+1,3 @@$/m);
  assert.match(human.out, /^7 file\(s\), 9 change\(s\), 1 failed: \+9 -2$/m);
  assert.match(human.err, /a file changed any other way .* is not shown/);

  const one = await w.json(["sessions", "changes", SID, "--file", "README.md"], { cwd: app });
  assert.deepEqual((one.data as unknown as ChangesDoc).files.map((f) => f.path), [
    join(app, "README.md"),
  ]);
  const none = await cliOk(w.sb, ["sessions", "changes", SID, "--file", "nope.ts"], { cwd: app });
  assert.match(none.err, /made no change to nope\.ts/);
  const bad = await runCli(w.sb, ["sessions", "changes"], { cwd: app });
  assert.equal(bad.code, 2);
});

Deno.test("sessions show and the exports carry the same diffs inline, styled", async () => {
  const { w, app } = await fixture();
  await using _ = w;
  const show = await cliOk(w.sb, ["sessions", "show", SID, "--no-pager"], { cwd: app });
  assert.match(
    show.out,
    /▸ Edit .*\n(?: {4}│.*\n)* {4}Edit\n {4}@@ -1,3 \+1,3 @@\n {5}const a = 1;\n {4}-const b = 2;\n {4}\+const b = 20;/,
  );
  const j = await w.json(["sessions", "show", SID], { cwd: app });
  const calls = (j.data as { messages: { type: string; tool?: string; changes?: Change[] }[] })
    .messages.filter((m) => m.type === "tool_call");
  assert.equal(calls.filter((c) => c.changes).length, 7, "every changing call carries its changes");
  assert.equal(calls.find((c) => c.tool === "Bash")!.changes!.length, 3);
  assert.equal(calls.find((c) => c.tool === "Read")!.changes, undefined);

  const md = await cliOk(w.sb, ["sessions", "export", SID, "--format", "md"], { cwd: app });
  assert.match(md.out, /```diff\n {2}@@ -1,3 \+1,3 @@\n {3}const a = 1;\n {2}-const b = 2;/);
  const html = await cliOk(w.sb, ["sessions", "export", SID, "--format", "html"], { cwd: app });
  assert.match(
    html.out,
    /<pre class="diff">.*<span class="del">-const b = 2;<\/span>\n<span class="add">\+const b = 20;<\/span>/s,
  );
  assert.match(html.out, /\.change \.add \{/);
  assert.match(html.out, /<div class="change failed">/);

  // on a terminal the lines are coloured
  const o = openRead(w.sb.store)!;
  try {
    await initReader();
    const row = listSessions(o.db, { project: null, exclude: [] }, {}).find((r) =>
      r.session_key === `${SID}.jsonl`
    )!;
    const s = loadSession(o.db, row, { project: null, exclude: [] }, false);
    const msgs = attachChanges(conversation(s.records, 8), sessionChanges(s.records, s.turnIds));
    const styled = renderText(s.view, msgs, true);
    assert.ok(styled.includes("\x1b[31m-const b = 2;\x1b[0m"));
    assert.ok(styled.includes("\x1b[32m+const b = 20;\x1b[0m"));
    assert.ok(!renderText(s.view, msgs, false).includes("\x1b["));
  } finally {
    o.db.close();
  }
});

/** The Edit/Write/MultiEdit calls of a transcript file, read independently of the archive. */
function editCalls(path: string): string[] {
  const out: string[] = [];
  for (const line of Deno.readTextFileSync(path).split("\n")) {
    let r: Rec;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (r?.type !== "assistant") continue;
    const content = (r.message as Rec | undefined)?.content;
    if (!Array.isArray(content)) continue;
    for (const b of content as Rec[]) {
      if (b?.type === "tool_use" && ["Edit", "Write", "MultiEdit"].includes(b.name as string)) {
        out.push(b.id as string);
      }
    }
  }
  return out;
}

/** A full Read's content, from the record carrying its result. */
function fullRead(r: Rec): { path: string; content: string } | null {
  const f = (r.toolUseResult as Rec | undefined)?.file as Rec | undefined;
  if (!f || typeof f.content !== "string" || typeof f.filePath !== "string") return null;
  if (f.startLine !== 1 || f.numLines !== f.totalLines) return null;
  return { path: f.filePath, content: f.content };
}

/** `minPairs`: how many Read pairs with changes between them the corpus is known to hold. */
async function overGenuineTranscripts(roots: string[], minPairs: number): Promise<void> {
  await using sb = await sandbox();
  await writeConfig(sb, `roots = ${JSON.stringify(roots)}\n`);
  await cliOk(sb, ["ingest"]);
  const o = openRead(sb.store)!;
  let calls = 0;
  let pairs = 0;
  let patched = 0;
  try {
    await initReader();
    const vis = { project: null, exclude: [] };
    for (const row of listSessions(o.db, vis, {})) {
      const s = loadSession(o.db, row, vis, false);
      const c = sessionChanges(s.records, s.turnIds);
      const file =
        (o.db.prepare("SELECT transcript_path AS p FROM session_meta WHERE session_no = ?")
          .get(row.session_no) as { p: string }).p;
      const want = editCalls(file).sort();
      const got = c.files.flatMap((f) => f.changes)
        .filter((x) => x.tool !== "Bash" && x.tool !== "NotebookEdit")
        .map((x) => x.tool_use_id!).sort();
      assert.deepEqual(got, want, `${row.session_key}: every Edit, Write and MultiEdit, once`);
      calls += want.length;
      for (const x of c.files.flatMap((f) => f.changes)) {
        assert.notEqual(x.turn_id, null, `${row.session_key}: each change names its turn`);
      }

      // walk the transcript: from each full Read, apply the shown diffs in order and compare
      // with the next full Read of the file, where nothing else could have touched it between
      const byCall = new Map<string, Change[]>();
      for (const x of c.files.flatMap((f) => f.changes)) {
        byCall.set(x.tool_use_id!, [...(byCall.get(x.tool_use_id!) ?? []), x]);
      }
      const reads = new Map<string, Rec>();
      for (const r of s.records) {
        if (r.type !== "user" || !Array.isArray((r.message as Rec | undefined)?.content)) continue;
        for (const b of (r.message as Rec).content as Rec[]) {
          if (b?.type === "tool_result") reads.set(b.tool_use_id as string, r);
        }
      }
      const chain = new Map<string, { text: string; applied: number }>();
      for (const r of s.records) {
        if (r.type !== "assistant") continue;
        const content = (r.message as Rec | undefined)?.content;
        if (!Array.isArray(content)) continue;
        for (const b of content as Rec[]) {
          if (b?.type !== "tool_use") continue;
          if (b.name === "Read") {
            const got = reads.get(b.id as string);
            const full = got ? fullRead(got) : null;
            if (!full) continue;
            const was = chain.get(full.path);
            if (was && was.applied > 0) {
              pairs++;
              assert.ok(
                sameLines(was.text, full.content),
                `${row.session_key}: ${full.path} after ${was.applied} change(s) is what the later Read shows`,
              );
            }
            chain.set(full.path, { text: full.content, applied: 0 });
            continue;
          }
          // a command or a subagent may write any file: the chain starts again at the next Read
          if (["Bash", "Task", "Agent"].includes(b.name as string)) chain.clear();
          for (const x of byCall.get(b.id as string) ?? []) {
            const was = chain.get(x.path);
            if (!was || x.status === "failed") continue;
            if (!x.whole_file || x.content !== null) {
              chain.delete(x.path);
              continue;
            }
            const next = applyPatch(
              was.text,
              ["--- a", "+++ b", ...diffLines(x)].join("\n") + "\n",
            );
            assert.notEqual(next, false, `${row.session_key}: ${x.path}'s diff applies`);
            chain.set(x.path, { text: next as string, applied: was.applied + 1 });
            patched++;
          }
        }
      }
    }
  } finally {
    o.db.close();
  }
  assert.ok(calls > 0, "the corpus edits files");
  assert.ok(patched > 0, "some diffs were applied to a Read's content");
  assert.ok(pairs >= minPairs, `${pairs} Read pair(s) hold changes between them`);
  // the one human listing over a real session works end to end
  const anySession = parseEnvelope((await cliOk(sb, ["sessions", "--project", "*", "--json"])).out)
    .data as { sessions: { session_no: number }[] };
  await cliOk(sb, ["sessions", "changes", String(anySession.sessions[0].session_no), "--json"]);
}

Deno.test({
  name:
    "sessions changes over the shared corpus: every edit once, and the diffs reproduce later Reads",
  ignore: !CORPUS,
  // its Read pairs all have a command between them, so none is compared
  fn: () => overGenuineTranscripts(corpusRoots(CORPUS!), 0),
});

Deno.test({
  name:
    "sessions changes over the bench corpus: every edit once, and the diffs reproduce later Reads",
  ignore: !REAL,
  fn: () => overGenuineTranscripts([REAL!], 5),
});

Deno.test("sessions show folds a long inline diff unless --full; the exports carry it whole", async () => {
  await using w = await world();
  const app = w.dir("app");
  const t = new Transcript({ sessionId: SID, cwd: app, start: "2026-03-01T09:00:00.000Z" });
  t.user("write the table");
  const body = Array.from({ length: 60 }, (_, i) => `row ${i + 1}`).join("\n") + "\n";
  t.toolUse("Write", { file_path: join(app, "table.txt"), content: body });
  t.toolResult("File created successfully at: table.txt", { toolUseResult: { type: "create" } });
  await put(w, t);
  await ingest(w);
  const folded = await cliOk(w.sb, ["sessions", "show", SID, "--no-pager"], { cwd: app });
  assert.match(folded.out, /\+row 39\n/);
  assert.doesNotMatch(folded.out, /\+row 40\n/, "40 lines: the hunk header and 39 rows");
  assert.match(folded.out, /… 21 more line\(s\); --full or sessions changes shows them/);
  const full = await cliOk(w.sb, ["sessions", "show", SID, "--no-pager", "--full"], { cwd: app });
  assert.match(full.out, /\+row 60\n/);
  const md = await cliOk(w.sb, ["sessions", "export", SID, "--format", "md"], { cwd: app });
  assert.match(md.out, /\+row 60\n/);
});
