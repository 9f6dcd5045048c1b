/**
 * End to end with the real Claude Code CLI and a scripted model on 127.0.0.1: Claude Code
 * runs our hooks and our MCP server, and we read back what it wrote in its transcripts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startModel } from "./e2e/model.ts";
import { findClaude, ingestSettled, makeHome, run, transcripts } from "./e2e/claude.ts";
import { missedDeadline, retryPastDeadline } from "./deadline.ts";

const CLAUDE = findClaude();
if (!CLAUDE) {
  console.warn(
    "e2e: the claude CLI was not found (TERMINUS_CLAUDE_BIN, ~/.cache/terminus-e2e/claude, PATH); the end-to-end test is skipped",
  );
}

type Rec = Record<string, unknown> & { attachment?: Record<string, unknown> };

function contexts(recs: Rec[]): string[] {
  return recs
    .filter((r) => r.type === "attachment" && r.attachment?.type === "hook_additional_context")
    .map((r) => JSON.stringify(r.attachment?.content ?? r.attachment));
}

function hookErrors(recs: Rec[]): Rec[] {
  return recs.filter((r) =>
    r.type === "attachment" && /error|cancelled/.test(String(r.attachment?.type ?? ""))
  );
}

function turnIdsIn(text: string): number[] {
  return [...text.matchAll(/- turn (\d+) \(/g)].map((m) => Number(m[1]));
}

Deno.test({
  name:
    "e2e: Claude Code receives the brief, a recall injection and MCP hits, and compaction narrows recall",
  ignore: !CLAUDE,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // A hook that ran past its deadline handed nothing over: the whole client run is tried
    // again in a fresh home, a few times; any other failure fails at once.
    await retryPastDeadline(
      "the e2e client run",
      () => once(CLAUDE!),
      (r) => r.error !== undefined && missedDeadline(r.hookStderr),
      3,
    ).then((r) => {
      if (r.error !== undefined) throw r.error;
    });
  },
});

async function once(claude: string): Promise<{ error?: unknown; hookStderr: string }> {
  let file = "";
  const model = startModel({
    "e2e-one": ({ step }) =>
      step === 0 ? { tool: "Read", input: { file_path: file } } : step === 1
        ? {
          tool: "Edit",
          input: {
            file_path: file,
            old_string: "retryBudget = 3",
            new_string: "retryBudget = 5",
          },
        }
        : { text: "Raised retryBudget to 5 in src/worker/S.ts." },
    "e2e-two": ({ step }) =>
      step === 0
        ? { tool: "Read", input: { file_path: file } }
        : step === 1
        ? { tool: "mcp__terminus__recall_search", input: { query: "retryBudget" } }
        : { text: "The archive says retryBudget went from 3 to 5." },
    "e2e-three": () => ({ text: "Looked again." }),
  });
  const h = await makeHome(model.url);
  file = join(h.project, "src", "worker", "S.ts");
  try {
    // The MCP entry, as `terminus install` will place it.
    const add = await run(claude, [
      "mcp",
      "add-json",
      "--scope",
      "user",
      "terminus",
      JSON.stringify({ type: "stdio", command: h.launcher, args: ["mcp"] }),
    ], h);
    assert.equal(add.code, 0, add.stderr);
    const list = await run(claude, ["mcp", "list"], h);
    assert.match(list.stdout, /terminus:.*Connected/, list.stdout + list.stderr);

    // Session one reads and edits the file.
    const one = await run(claude, [
      "-p",
      "e2e-one: raise the retry budget in src/worker/S.ts",
      "--allowedTools",
      "Read,Edit",
    ], h);
    assert.equal(one.code, 0, one.stderr);
    assert.match(Deno.readTextFileSync(file), /retryBudget = 5/);
    await ingestSettled(h);

    // Session two: the brief at start, a recall on a prompt naming the file, MCP hits.
    const before = new Set(transcripts(h).keys());
    const two = await run(claude, [
      "-p",
      "e2e-two: what happened to src/worker/S.ts earlier?",
      "--allowedTools",
      "Read,mcp__terminus__recall_search",
    ], h);
    assert.equal(two.code, 0, two.stderr);
    const files2 = [...transcripts(h)].filter(([p]) => !before.has(p));
    assert.equal(files2.length, 1, "session two wrote one transcript");
    const [path2, recs2] = files2[0];
    const ctx = contexts(recs2 as Rec[]);
    assert.ok(ctx.some((c) => c.includes("Terminus resume brief")), `no brief in ${path2}`);
    assert.ok(
      ctx.some((c) => c.includes("It last answered: Raised retryBudget to 5")),
      "brief quotes the last answer",
    );
    const recallCtx = ctx.find((c) => c.includes("Terminus recall"));
    assert.ok(recallCtx, "the prompt naming the file got a recall injection");
    assert.ok(turnIdsIn(recallCtx!).length > 0, "the injection names turn ids");
    assert.deepEqual(hookErrors(recs2 as Rec[]), [], "Claude Code reported no hook error");
    const mcpResult = (recs2 as Rec[]).find((r) =>
      r.type === "user" && JSON.stringify(r).includes("tool_result") &&
      JSON.stringify(r).includes("turn_id") &&
      JSON.stringify(r).includes("hits")
    );
    assert.ok(mcpResult, "the recall_search tool_result carries our hits");

    // Compact session two, then a prompt naming the file gets only turns the compaction dropped.
    const sid2 = String((recs2 as Rec[]).find((r) => typeof r.sessionId === "string")?.sessionId);
    await ingestSettled(h);
    const compact = await run(claude, ["--resume", sid2, "-p", "/compact"], h);
    assert.equal(compact.code, 0, compact.stderr);
    await ingestSettled(h);
    const three = await run(claude, [
      "--resume",
      sid2,
      "-p",
      "e2e-three: look at src/worker/S.ts again",
    ], h);
    assert.equal(three.code, 0, three.stderr);
    await ingestSettled(h);

    const db = new DatabaseSync(join(h.data, "terminus.db"), { readOnly: true });
    try {
      const boundary = db.prepare(
        `SELECT c.turn_id AS id, c.session_no AS no, c.preserved FROM compaction_boundaries c
           JOIN session_meta m ON m.session_no = c.session_no WHERE m.session_id = ? ORDER BY c.turn_id DESC LIMIT 1`,
      ).get(sid2) as { id: number; no: number; preserved: string | null } | undefined;
      assert.ok(boundary, "the compaction boundary was archived");
      const keep = new Set<string>(boundary.preserved ? JSON.parse(boundary.preserved) : []);
      const dropped = new Set(
        (db.prepare("SELECT id, uuid FROM turns WHERE session_no = ? AND id < ?").all(
          boundary.no,
          boundary.id,
        ) as {
          id: number;
          uuid: string;
        }[]).filter((t) => !keep.has(t.uuid)).map((t) => t.id),
      );
      const decisions =
        (db.prepare("SELECT doc FROM decisions ORDER BY id").all() as { doc: string }[]).map((
          r,
        ) => JSON.parse(r.doc));
      const last = decisions.findLast((d) => String(d.prompt).includes("e2e-three"));
      assert.ok(last, "the post-compaction prompt was logged");
      assert.equal(last.compacted, true, "it took the wider post-compaction look");
      assert.ok(last.injected.length > 0, "a dropped turn was handed over");
      for (const i of last.injected) {
        assert.ok(dropped.has(i.id), `turn ${i.id} was not dropped by the compaction`);
      }
    } finally {
      db.close();
    }

    // Every transcript Claude Code wrote is archived byte for byte (spot check via verify).
    const verify = await run(h.launcher, ["verify", "--json"], h);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    assert.equal(JSON.parse(verify.stdout).data.failures.length, 0);
    return { hookStderr: "" };
  } catch (error) {
    const hookStderr = await Deno.readTextFile(h.hookLog).catch(() => "");
    return { error, hookStderr };
  } finally {
    await model.close();
    await Deno.remove(h.root, { recursive: true }).catch(() => {});
  }
}

Deno.test({
  name:
    "e2e: with a terminus.toml that does not load, Claude Code shows the person SessionStart's one line",
  ignore: !CLAUDE,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const model = startModel({ "e2e-warn": () => ({ text: "Hello." }) });
    const h = await makeHome(model.url);
    try {
      await Deno.writeTextFile(join(h.config, "terminus.toml"), "[injection\nbrief_chars = ");
      const r = await run(CLAUDE!, ["-p", "e2e-warn: hi"], h);
      assert.equal(r.code, 0, r.stderr);
      const recs = [...transcripts(h).values()].flat() as Rec[];
      // Claude Code files a hook's systemMessage as its own attachment, for the person's screen
      const shown = recs.map((x) => x.attachment as Rec | undefined)
        .filter((a) => a?.type === "hook_system_message").map((a) => String(a!.content));
      assert.equal(shown.length, 1, JSON.stringify(recs.map((x) => x.attachment)));
      assert.match(shown[0], /^Terminus is not archiving: .*terminus\.toml is not valid TOML/);
      assert.match(shown[0], /line 1/);
      assert.ok(
        !contexts(recs).some((c) => c.includes("Terminus is not archiving")),
        "the model is not handed it",
      );
    } finally {
      await model.close();
      await Deno.remove(h.root, { recursive: true }).catch(() => {});
    }
  },
});
