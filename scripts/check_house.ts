/**
 * The house rules no linter knows, checked over the program's own source (not tests/, bench/):
 *
 * 1. Only io.ts touches the process's standard streams (Deno.stdout, Deno.stderr, Deno.stdin);
 *    a use case gets them through the Context (core/terminal.ts).
 * 2. Only core/store/ runs SQL (`.prepare(`, or `.exec(` with an SQL word).
 * 3. No import circle, static or dynamic.
 * 4. No import loop between folders: each core/ subfolder, each other top-level folder and each
 *    loose file (mod.ts, core/open.ts ...) is one room, and the rooms' imports form no loop, so
 *    the floors read top down without turning back.
 * 5. The floor diagram in docs/design/overview.md is the one rule 4's floors draw.
 *
 * `deno task test` runs it; it prints each breach with its file and line and exits 1.
 * Usage: deno run --allow-read scripts/check_house.ts [<repo>]
 *        deno run --allow-read scripts/check_house.ts --floors [<repo>]   (prints the diagram)
 */
import { dirname, join, relative, resolve } from "node:path";
import { SOURCE_DIRS, SOURCE_FILES } from "../core/setup/source.ts";

/** The program's source: what an install copies, but its config and lock. */
const SOURCE = [...SOURCE_FILES.filter((f) => f.endsWith(".ts")), ...SOURCE_DIRS];

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

/** The room a source file belongs to: its core/ subfolder, its top-level folder, or itself. */
export function roomOf(file: string): string {
  const parts = file.split("/");
  if (parts.length === 1) return file;
  if (parts[0] === "core") return parts.length > 2 ? `core/${parts[1]}/` : file;
  return `${parts[0]}/`;
}

/** One import of a file from another room, with the line it stands on. */
interface RoomImport {
  from: string;
  to: string;
  line: number;
}

function roomImports(ROOT: string, files: string[]): RoomImport[] {
  const out: RoomImport[] = [];
  for (const f of files) {
    const text = Deno.readTextFileSync(join(ROOT, f));
    for (const m of text.matchAll(IMPORT)) {
      const to = relative(ROOT, resolve(dirname(join(ROOT, f)), m[1] ?? m[2]));
      if (roomOf(to) === roomOf(f)) continue;
      out.push({ from: f, to, line: text.slice(0, m.index).split("\n").length });
    }
  }
  return out;
}

/**
 * Each folder loop, as its rooms in order and the file and line of every import that closes it
 * (Tarjan's strongly connected components over the rooms).
 */
function folderLoops(imports: RoomImport[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const i of imports) {
    const a = roomOf(i.from), b = roomOf(i.to);
    if (!next.has(a)) next.set(a, new Set());
    next.get(a)!.add(b);
  }
  let counter = 0;
  const index = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>();
  const loops: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const part: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      part.push(w);
    } while (w !== v);
    if (part.length > 1) loops.push(part.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) connect(v);
  return loops.map((part) => {
    const inLoop = new Set(part);
    const closing = imports.filter((i) => inLoop.has(roomOf(i.from)) && inLoop.has(roomOf(i.to)))
      .map((i) => `${i.from}:${i.line} imports ${i.to}`);
    return `folder loop: ${part.join(" <-> ")} (${closing.join("; ")})`;
  });
}

/**
 * The rooms by floor, bottom first: a room stands one floor above the highest room it imports.
 * Only meaningful when there is no folder loop.
 */
export function floors(ROOT: string): string[][] {
  const imports = roomImports(ROOT, sourceFiles(ROOT));
  const rooms = new Set(sourceFiles(ROOT).map(roomOf));
  const below = new Map<string, Set<string>>();
  for (const r of rooms) below.set(r, new Set());
  for (const i of imports) {
    if (rooms.has(roomOf(i.to))) below.get(roomOf(i.from))!.add(roomOf(i.to));
  }
  const floor = new Map<string, number>();
  const floorOf = (r: string, seen: Set<string>): number => {
    if (floor.has(r)) return floor.get(r)!;
    if (seen.has(r)) return 0; // a loop: rule 4 reports it
    seen.add(r);
    let f = 0;
    for (const b of below.get(r)!) f = Math.max(f, floorOf(b, seen) + 1);
    floor.set(r, f);
    return f;
  };
  const out: string[][] = [];
  for (const r of [...rooms].sort()) (out[floorOf(r, new Set())] ??= []).push(r);
  return out.map((f) => f ?? []);
}

/** The overview's floor diagram (Mermaid), top floor first, drawn from `floors`. */
export function floorDiagram(ROOT: string): string {
  const fl = floors(ROOT);
  const lines = ["```mermaid", "flowchart TB"];
  for (let i = fl.length - 1; i >= 0; i--) {
    lines.push(`  f${i}["floor ${i}<br/>${fl[i].join(" &nbsp; ")}"]`);
  }
  for (let i = fl.length - 1; i > 0; i--) lines.push(`  f${i} --> f${i - 1}`);
  lines.push("```");
  return lines.join("\n");
}

export const DIAGRAM_START = "<!-- floors: drawn by scripts/check_house.ts --floors -->";
export const DIAGRAM_END = "<!-- end of floors -->";

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
  found.push(...folderLoops(roomImports(ROOT, files)));
  found.push(...diagramDrift(ROOT));
  return found;
}

/** Whether overview.md's floor diagram is the one the code's floors draw (none there: no rule). */
function diagramDrift(ROOT: string): string[] {
  let doc: string;
  try {
    doc = Deno.readTextFileSync(join(ROOT, "docs/design/overview.md"));
  } catch {
    return [];
  }
  const a = doc.indexOf(DIAGRAM_START), b = doc.indexOf(DIAGRAM_END);
  if (a < 0 || b < 0) return [];
  const drawn = doc.slice(a + DIAGRAM_START.length, b).trim();
  return drawn === floorDiagram(ROOT)
    ? []
    : ["docs/design/overview.md: the floor diagram is not the code's; redraw it with --floors"];
}

if (import.meta.main) {
  const args = Deno.args.filter((a) => a !== "--floors");
  const root = resolve(args[0] ?? join(dirname(new URL(import.meta.url).pathname), ".."));
  if (Deno.args.includes("--floors")) {
    console.log(floorDiagram(root));
    Deno.exit(0);
  }
  const found = breaches(root);
  for (const b of found) console.error(b);
  if (found.length) Deno.exit(1);
}
