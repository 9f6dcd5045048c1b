/**
 * End to end: a session Claude Code wrote is archived, its transcript deleted (as Claude Code's
 * cleanup does), restored by `terminus sessions restore`, and resumed by the real CLI, whose
 * request to the scripted model must carry the earlier turns.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startModel, textOf } from "./e2e/model.ts";
import { findClaude, ingestSettled, makeHome, run, transcripts } from "./e2e/claude.ts";

const CLAUDE = findClaude();

Deno.test({
  name: "e2e: a deleted transcript, restored, resumes in Claude Code with its earlier turns",
  ignore: !CLAUDE,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const claude = CLAUDE!;
    let file = "";
    const model = startModel({
      "restore-one": ({ step }) =>
        step === 0
          ? { tool: "Read", input: { file_path: file } }
          : { text: "The retry budget is 3; the word to keep is kiwi-7731." },
      "restore-two": () => ({ text: "Resumed with the earlier turns." }),
    });
    const h = await makeHome(model.url);
    file = join(h.project, "src", "worker", "S.ts");
    try {
      const one = await run(claude, [
        "-p",
        "restore-one: read src/worker/S.ts and tell me the retry budget",
        "--allowedTools",
        "Read",
      ], h);
      assert.equal(one.code, 0, one.stderr);
      const written = [...transcripts(h).keys()];
      assert.equal(written.length, 1, written.join(", "));
      const path = written[0];
      const sid = path.split("/").pop()!.replace(/\.jsonl$/, "");
      const original = await Deno.readFile(path);
      await ingestSettled(h);

      await Deno.remove(path); // what Claude Code's cleanupPeriodDays does
      const restored = await run(h.launcher, ["sessions", "restore", sid], h);
      assert.equal(restored.code, 0, restored.stderr);
      assert.match(restored.stdout, new RegExp(`^cd \\S+ && claude --resume ${sid}\\n$`));
      assert.deepEqual(await Deno.readFile(path), original, "restored byte for byte");

      const before = model.requests.length;
      const two = await run(claude, [
        "--resume",
        sid,
        "-p",
        "restore-two: what did we find earlier?",
      ], h);
      assert.equal(two.code, 0, two.stderr + two.stdout);
      const asked = model.requests.slice(before).map((
        r,
      ) => ((r.body.messages ?? []) as Parameters<typeof textOf>[0][])).filter((ms) =>
        ms.some((m) => textOf(m).includes("restore-two"))
      );
      assert.ok(asked.length > 0, "the resumed prompt reached the model");
      const all = JSON.stringify(asked[0]);
      assert.ok(all.includes("restore-one: read src/worker/S.ts"), "the earlier prompt was sent");
      assert.ok(all.includes("kiwi-7731"), "the earlier answer was sent");
      assert.ok(all.includes("retryBudget = 3"), "the earlier tool result was sent");

      // the archive took the resumed session's new lines onto what it held, nothing diverged
      await ingestSettled(h);
      const db = new DatabaseSync(join(h.data, "terminus.db"), { readOnly: true });
      try {
        const diverged = db.prepare(
          "SELECT count(*) AS n FROM session_meta WHERE transcript_diverged = 1",
        ).get() as { n: number };
        assert.equal(diverged.n, 0);
      } finally {
        db.close();
      }
      const verify = await run(h.launcher, ["verify", "--json"], h);
      assert.equal(verify.code, 0, verify.stdout + verify.stderr);
    } finally {
      await model.close();
      await Deno.remove(h.root, { recursive: true }).catch(() => {});
    }
  },
});
