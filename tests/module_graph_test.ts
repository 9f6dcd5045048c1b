/**
 * What a process loads before it does anything, read off the module graph.
 *
 * A hook: some of the runtime's own modules cost a hook more than its
 * lookup the first time a process touches them: in Deno 2.9 the first `setTimeout` loads the
 * Node compatibility timers (5-12 ms on this host), and `node:os` brings its own graph. The
 * hook's modules (hooks/run.ts and everything it imports, as `deno info` lists them) may use
 * neither (a dynamic `import("node:os")` loads it only where it is called); the web timer (`AbortSignal.timeout`) does what the hook needs.
 */
import assert from "node:assert/strict";
import { fileURLToPath as fromFileUrl } from "node:url";

const ROOT = fromFileUrl(new URL("../", import.meta.url));

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
}

/** `deno info --json entry`'s modules. */
async function infoOf(entry: string): Promise<InfoModule[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return (JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] }).modules;
}

const local = (specifiers: Iterable<string>) =>
  [...specifiers].filter((s) => s.startsWith("file://")).map((s) => fromFileUrl(s));

/** Every local module in the graph of `entry`, dynamic imports included, by `deno info --json`. */
async function graphOf(entry: string): Promise<string[]> {
  return local((await infoOf(entry)).map((m) => m.specifier));
}

/**
 * The local modules `entry` loads before it runs: `deno info` lists dynamic imports too, so
 * only the runtime (`code`) edges that are not dynamic are followed.
 */
async function staticGraphOf(entry: string): Promise<string[]> {
  const mods = await infoOf(entry);
  const bySpec = new Map(mods.map((m) => [m.specifier, m]));
  const root = mods.find((m) => m.specifier.endsWith(`/${entry}`))!;
  const seen = new Set([root.specifier]);
  const todo = [root];
  while (todo.length) {
    for (const d of todo.pop()!.dependencies ?? []) {
      const to = d.code?.specifier;
      if (!to || d.isDynamic || seen.has(to)) continue;
      seen.add(to);
      const m = bySpec.get(to);
      if (m) todo.push(m);
    }
  }
  return local(seen);
}

Deno.test("sessions graph: a listing loads neither the decoder's wasm nor search's ranking", async () => {
  // every `terminus sessions` loads commands/sessions/mod.ts and its verbs; the listing reads
  // rows only, so the 67 KB decoder and the ranking come in with `sessions search` alone
  const files = await staticGraphOf("commands/sessions/mod.ts");
  assert.ok(files.some((f) => f.endsWith("/commands/sessions/list.ts")), files.join("\n"));
  assert.ok(files.some((f) => f.endsWith("/commands/sessions/search.ts")), files.join("\n"));
  const heavy = files.filter((f) =>
    f.endsWith("/core/store/zstd_wasm.ts") || f.endsWith("/core/recall/search.ts")
  );
  assert.deepEqual(heavy, []);
});

Deno.test("hook graph: no module a hook loads calls setTimeout or setInterval, or imports node:os", async () => {
  const files = await graphOf("hooks/run.ts");
  assert.ok(files.some((f) => f.endsWith("/hooks/run.ts")));
  assert.ok(files.some((f) => f.endsWith("/core/inject/stdin_wait.ts")), files.join("\n"));
  const found: string[] = [];
  for (const f of files) {
    const text = Deno.readTextFileSync(f);
    // code only: a comment may name what it avoids
    const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
    if (/\bset(Timeout|Interval)\s*\(/.test(code)) found.push(`${f}: setTimeout/setInterval`);
    // a static import only: `import("node:os")` loads it where it is used, off the hook's path
    if (/\b(from|import)\s*["']node:os["']/.test(code)) found.push(`${f}: imports node:os`);
  }
  assert.deepEqual(found, []);
});
