/**
 * history.jsonl as the real Claude Code CLI writes it. `claude -p` writes none: only prompts
 * typed into the interactive CLI go there. So the real `claude` runs in a tmux pane (a temp
 * HOME whose ~/.claude.json has the first-run screens done, the folder trusted and the API key
 * approved), against the scripted model on 127.0.0.1; a prompt is typed, and a long one is
 * pasted. Then the file's shape is checked (what the fixture in tests/fixtures/history follows)
 * and `terminus import-history` makes both searchable, with their project and time.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startModel, textOf } from "./e2e/model.ts";
import { findClaude, makeHome, run, transcripts } from "./e2e/claude.ts";
import { hasTmux, shq, Tmux } from "./e2e/tmux.ts";

const CLAUDE = findClaude();
const TMUX = hasTmux();
if (!CLAUDE || !TMUX) {
  console.warn(
    `history live: ${
      CLAUDE ? "tmux" : "the claude CLI"
    } was not found; the history.jsonl test with the real CLI is skipped`,
  );
}

const KEY = "sk-ant-test-offline-history-0123456789";
const TYPED = "history-live: where is the kestrel retry budget set?";
/** Over the size the CLI keeps in the line: it goes to paste-cache/<hash>.txt. */
const PASTED = Array.from(
  { length: 80 },
  (_, i) => `  at frame ${i} (src/upload/quokkaStream.ts:${100 + i}) chunk ${i * 4096}`,
).join("\n") + "\n";

type Rec = Record<string, unknown>;

async function historyLines(file: string): Promise<Rec[]> {
  try {
    return (await Deno.readTextFile(file)).split("\n").filter((l) => l.trim()).map((l) =>
      JSON.parse(l)
    );
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
}

async function sha16(text: string): Promise<string> {
  const d = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return d.subarray(0, 8).toHex();
}

Deno.test({
  name:
    "history live: the prompts typed and pasted into the real claude are imported, searchable with their project and time",
  ignore: !CLAUDE || !TMUX,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const model = startModel({
      "history-live": () => ({ text: "Scripted: the retry budget is in src/worker/S.ts." }),
    });
    const h = await makeHome(model.url);
    // typed in a folder below the project: the CLI records that folder, Terminus the project
    const cwd = join(h.project, "src");
    const history = join(h.home, ".claude", "history.jsonl");
    try {
      // no hooks: nothing but the import touches the store
      await Deno.writeTextFile(join(h.home, ".claude", "settings.json"), "{}\n");
      // what a person has done once: onboarding, the folder trusted, the key approved
      await Deno.writeTextFile(
        join(h.home, ".claude.json"),
        JSON.stringify({
          hasCompletedOnboarding: true,
          theme: "dark",
          numStartups: 5,
          lastReleaseNotesSeen: "2.1.328",
          autoUpdates: false,
          customApiKeyResponses: { approved: [KEY.slice(-20)], rejected: [] },
          projects: Object.fromEntries(
            [h.project, cwd].map((p) => [p, {
              hasTrustDialogAccepted: true,
              hasCompletedProjectOnboarding: true,
              allowedTools: [],
            }]),
          ),
        }),
      );
      const script = join(h.root, "claude.sh");
      const env = { ...h.env, ANTHROPIC_API_KEY: KEY, TERM: "xterm-256color" };
      await Deno.writeTextFile(
        script,
        [
          "#!/bin/sh",
          `cd ${shq(cwd)}`,
          `exec env -i ${Object.entries(env).map(([k, v]) => shq(`${k}=${v}`)).join(" ")} ${
            shq(CLAUDE!)
          }`,
        ].join("\n") + "\n",
        { mode: 0o755 },
      );
      const before = Date.now();
      {
        await using t = new Tmux();
        await t.run(script, 120, 40);
        await t.until((s) => /^❯/m.test(s), "claude's prompt box", 1200);

        // typed, then Enter on its own: one "text\r" would arrive as a paste
        await t.type(TYPED);
        await t.until((s) => s.includes(TYPED), "the typed prompt");
        await t.keys("Enter");
        await t.until((s) => s.includes("Scripted: the retry budget"), "the model's reply", 1200);

        await t.type("history-live: why does this stack fail ");
        await t.paste(PASTED);
        await t.until((s) => s.includes("[Pasted text #1 +80 lines]"), "the paste's placeholder");
        await t.keys("Enter");
        await t.until(
          (s) =>
            s.includes("quokkaStream.ts:179") &&
            s.lastIndexOf("Scripted: the retry budget") > s.lastIndexOf("quokkaStream.ts:179"),
          "the reply to the paste",
          1200,
        );
        for (let i = 0; i < 600 && (await historyLines(history)).length < 2; i++) {
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      const after = Date.now();

      // the shape, as Claude Code 2.1.328 writes it
      const lines = await historyLines(history);
      assert.equal(lines.length, 2, JSON.stringify(lines));
      const sessions = [...transcripts(h).keys()].map((p) => p.split("/").pop()!.slice(0, -6));
      assert.equal(sessions.length, 1, "one interactive session");
      const [typed, pasted] = lines;
      assert.deepEqual(Object.keys(typed).sort(), [
        "display",
        "pastedContents",
        "project",
        "sessionId",
        "timestamp",
      ]);
      assert.equal(typed.display, TYPED);
      assert.deepEqual(typed.pastedContents, {});
      assert.equal(typed.project, cwd, "the folder claude ran in, not the repository's root");
      assert.equal(typed.sessionId, sessions[0]);
      const ts = typed.timestamp as number;
      assert.ok(Number.isInteger(ts) && ts >= before && ts <= after, `ms since 1970: ${ts}`);

      const hash = await sha16(PASTED);
      assert.equal(
        pasted.display,
        "history-live: why does this stack fail [Pasted text #1 +80 lines]",
      );
      assert.deepEqual(pasted.pastedContents, { "1": { id: 1, type: "text", contentHash: hash } });
      assert.equal(
        await Deno.readTextFile(join(h.home, ".claude", "paste-cache", `${hash}.txt`)),
        PASTED,
        "the paste is kept aside under the first 16 hex digits of its SHA-256",
      );
      assert.ok((pasted.timestamp as number) > ts);
      assert.ok(
        model.requests.some((r) =>
          ((r.body.messages ?? []) as Parameters<typeof textOf>[0][]).some((m) =>
            textOf(m).includes("quokkaStream.ts:179")
          )
        ),
        "the paste reached the model whole",
      );

      // imported: searchable in the project, with the time Claude Code gave it
      const imp = await run(h.launcher, ["import-history", "--json"], h);
      assert.equal(imp.code, 0, imp.stderr);
      const data = JSON.parse(imp.stdout).data as Rec;
      assert.equal(data.added, 2);
      assert.equal(data.broken, 0);
      const search = async (...words: string[]) => {
        const r = await run(h.launcher, ["search", ...words, "--json"], h);
        assert.equal(r.code, 0, r.stderr);
        return (JSON.parse(r.stdout).data as { history: Rec[] }).history;
      };
      const found = await search("kestrel", "retry", "budget");
      assert.deepEqual(found.map((x) => [x.kind, x.ts, x.project]), [
        ["history_prompt", new Date(ts).toISOString(), h.project],
      ]);
      assert.match(String(found[0].excerpt), /where is the kestrel retry budget set/);
      const inPaste = await search("quokkaStream");
      assert.deepEqual(inPaste.map((x) => x.ts), [
        new Date(pasted.timestamp as number).toISOString(),
      ]);
      assert.match(String(inPaste[0].excerpt), /quokkaStream/);
    } finally {
      await model.close();
      await Deno.remove(h.root, { recursive: true }).catch(() => {});
    }
  },
});
