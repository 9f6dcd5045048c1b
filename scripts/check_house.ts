/**
 * The house rules no linter knows, checked over the program's own source (not tests/, bench/):
 *
 * 1. Only io.ts touches the process's standard streams (Deno.stdout, Deno.stderr, Deno.stdin);
 *    a use case gets them through the Context (core/terminal.ts).
 * 2. Only core/store/ runs SQL (`.prepare(`, or `.exec(` with an SQL word).
 * 3. No import circle, static or dynamic.
 *
 * `deno task test` runs it; it prints each breach with its file and line and exits 1.
 * Usage: deno run --allow-read scripts/check_house.ts [<repo>]
 */
import { dirname, join, relative, resolve } from "node:path";

const SOURCE = ["mod.ts", "io.ts", "commands", "core", "hooks", "mcp"];

function sourceFiles(ROOT: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const p = join(ROOT, rel);
    let st: Deno.FileInfo;
    try {
      st = Deno.statSync(p);
    } catch {
      return; // io.ts is not there in a tree from before it
    }
    if (st.isFile) {
      if (rel.endsWith(".ts")) out.push(rel);
      return;
    }
    for (const e of Deno.readDirSync(p)) walk(join(rel, e.name));
  };
  for (const s of SOURCE) walk(s);
  return out.sort();
}

const STREAM = /\bDeno\.(stdout|stderr|stdin)\b/;
const SQL_CALL =
  /\bdb\.prepare\(|\.prepare\(\s*["'`]|\.exec\(\s*["'`]\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|VACUUM)\b/i;
/\.prepare\(|\.exec\(\s*["'`](?:\s*)(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|VACUUM)\b/i;
const IMPORT =
  /(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/gs;

/** Every breach in the tree at `ROOT`, one line each. */
export function breaches(ROOT: string): string[] {
  const files = sourceFiles(ROOT);
  const found: string[] = [];
  const edges = new Map<string, string[]>();
  for (const f of files) {
    const text = Deno.readTextFileSync(join(ROOT, f));
    const lines = text.split("\n");
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, "");
      if (STREAM.test(code) && f !== "io.ts") {
        found.push(`${f}:${i + 1}: touches ${code.match(STREAM)![0]}; go through io.ts`);
      }
      if (SQL_CALL.test(code) && !f.startsWith("core/store/")) {
        found.push(`${f}:${i + 1}: runs SQL outside core/store/`);
      }
    });
    edges.set(
      f,
      [...text.matchAll(IMPORT)].map((m) =>
        relative(ROOT, resolve(dirname(join(ROOT, f)), m[1] ?? m[2]))
      ),
    );
  }
  // a depth-first walk; a module met again while still on the path closes a circle
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const seen = new Set<string>();
  const visit = (f: string) => {
    state.set(f, "open");
    path.push(f);
    for (const to of edges.get(f) ?? []) {
      if (state.get(to) === "open") {
        const circle = [...path.slice(path.indexOf(to)), to].join(" -> ");
        if (!seen.has(circle)) found.push(`import circle: ${circle}`);
        seen.add(circle);
      } else if (!state.has(to)) visit(to);
    }
    path.pop();
    state.set(f, "done");
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return found;
}

if (import.meta.main) {
  const found = breaches(
    resolve(Deno.args[0] ?? join(dirname(new URL(import.meta.url).pathname), "..")),
  );
  for (const b of found) console.error(b);
  if (found.length) Deno.exit(1);
}
