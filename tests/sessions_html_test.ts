/**
 * The HTML export opened in headless Chromium: it renders, its DOM is what was written
 * (nothing escaped its element), and the page logs nothing to the console, not even a
 * Content-Security-Policy refusal. Skipped only when no Chromium is installed (.ci/run
 * installs one).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ingest, put, Transcript, type World, world } from "./read_helpers.ts";

function findChromium(): string | null {
  for (const name of ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]) {
    for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
      try {
        if (Deno.statSync(join(dir, name)).isFile) return join(dir, name);
      } catch { /* not here */ }
    }
  }
  return null;
}

const CHROMIUM = findChromium();

/** Loads a file in headless Chromium: the serialized DOM, and the console lines it logged. */
async function open(file: string, profile: string, extra: string[] = []) {
  const o = await new Deno.Command(CHROMIUM!, {
    args: [
      "--headless=new",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      `--user-data-dir=${profile}`,
      "--enable-logging=stderr",
      "--v=0",
      ...extra,
      "--dump-dom",
      `file://${file}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(o.stderr);
  return {
    code: o.code,
    dom: new TextDecoder().decode(o.stdout),
    console: err.split("\n").filter((l) => /:CONSOLE[:(]/.test(l)),
  };
}

/** Archives `t`, exports it as HTML and opens the page in headless Chromium. */
async function exportAndOpen(w: World, t: Transcript, cwd: string) {
  await put(w, t);
  await ingest(w);
  const file = join(w.sb.dir, "session.html");
  const r = await w.run(["sessions", "export", t.o.sessionId, file, "--format", "html"], { cwd });
  assert.equal(r.code, 0, r.err);
  const page = await open(file, join(w.sb.dir, "profile"));
  assert.equal(page.code, 0);
  assert.deepEqual(page.console, [], "no console message, no refused load");
  return { file, page };
}

Deno.test({
  name: "the HTML export renders in headless Chromium with no console message",
  ignore: CHROMIUM === null,
  async fn() {
    await using w = await world();
    const alpha = w.dir("alpha");
    const sid = "90000000-0000-4000-8000-000000000009";
    const t = new Transcript({ sessionId: sid, cwd: alpha, start: "2026-03-01T09:00:00.000Z" });
    t.user(`</div><script>console.error("injected")</script><img src=x onerror=alert(1)>`);
    t.toolUse("Bash", { command: "cat <<'EOF'\n</details><script>alert(2)</script>\nEOF" });
    t.toolResult(Array.from({ length: 30 }, (_, i) => `row ${i} <b>&amp;</b>`).join("\n"));
    t.assistant("Done \u001b[2J with <style>body{display:none}</style>");
    const { file, page } = await exportAndOpen(w, t, alpha);
    assert.match(page.dom, /<h1>#1 {2}&lt;\/div&gt;&lt;script&gt;/, "the title rendered as text");
    assert.doesNotMatch(
      page.dom,
      /<script|<img|<style>body/i,
      "nothing from the transcript became markup",
    );
    assert.equal((page.dom.match(/<details class="tool">/g) ?? []).length, 1, "the result folds");
    assert.match(page.dom, /row 29 &lt;b&gt;&amp;amp;&lt;\/b&gt;/);
    // dark mode is one media query: the page renders under it too, still silently
    const dark = await open(file, join(w.sb.dir, "profile-dark"), ["--force-dark-mode"]);
    assert.deepEqual(dark.console, []);

    // the check can fail: a page that logs, and one the CSP refuses, are both caught
    const bad = join(w.sb.dir, "bad.html");
    await Deno.writeTextFile(
      bad,
      `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'"></head><body><img src="x.png"><script>console.log(1)</script></body></html>`,
    );
    const caught = await open(bad, join(w.sb.dir, "profile-bad"));
    assert.ok(caught.console.length > 0, "a refused resource logs to the console");
  },
});

Deno.test({
  name:
    "the HTML export renders Claude's Markdown, and raw HTML, scripts, images and unsafe links in it stay text",
  ignore: CHROMIUM === null,
  async fn() {
    await using w = await world();
    const alpha = w.dir("alpha");
    const sid = "90000000-0000-4000-8000-00000000000a";
    const t = new Transcript({ sessionId: sid, cwd: alpha, start: "2026-03-01T09:00:00.000Z" });
    t.user("explain the retry budget");
    t.assistant(
      [
        "The **retry budget** lives in `src/worker.ts`:",
        "",
        "- first item",
        "- second item",
        "",
        "```ts",
        "const budget = 3; // <b>not bold</b>",
        "```",
        "",
        "| a | b |",
        "| --- | --- |",
        "| 1 | 2 |",
        "",
        `<script>console.error("injected")</script><img src=x onerror=alert(1)>`,
        "![tracker](https://example.invalid/pixel.png) and &#x3C;script&#x3E;alert(3)&#x3C;/script&#x3E;",
        "[safe](https://example.invalid/doc) [bad](javascript:alert(4)) [data](data:text/html,x)",
        "Done \u001b[2J.",
      ].join("\n"),
    );
    const { page } = await exportAndOpen(w, t, alpha);
    const dom = page.dom;
    assert.match(dom, /<strong>retry budget<\/strong>/);
    assert.match(dom, /<code>src\/worker\.ts<\/code>/);
    assert.equal((dom.match(/<li>/g) ?? []).length, 2);
    assert.match(
      dom,
      /<pre><code class="language-ts">const budget = 3; \/\/ &lt;b&gt;not bold&lt;\/b&gt;/,
    );
    assert.match(dom, /<table>/);
    assert.match(dom, /<a href="https:\/\/example\.invalid\/doc">safe<\/a>/);
    assert.doesNotMatch(dom, /<script|<img|<[a-z][^>]*\son\w+=|href="(javascript|data)/i);
    assert.match(dom, /&lt;script&gt;console\.error/, "the raw HTML is shown as text");
    assert.match(dom, /\\u001b\[2J/, "a control character is shown escaped");
    // the prompt stays as typed: a person's text is not Markdown to render
    assert.match(dom, /<div class="text">explain the retry budget<\/div>/);
  },
});
