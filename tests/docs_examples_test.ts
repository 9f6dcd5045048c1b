/**
 * Every command line the user guide shows in a ```sh block is run, in a sandbox with a small
 * archive, from inside an archived project: each exits 0, or the code the guide documents
 * for that line in this sandbox (listed below with the reason).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_DIR } from "./helpers.ts";
import { ingest, put, Transcript, world } from "./read_helpers.ts";
import { settle } from "./setup_helpers.ts";

const GUIDE = join(REPO_DIR, "docs", "guide");

/** Lines that end other than 0 here, as the guide says they do. */
const DOCUMENTED_CODE: Record<string, { code: number; why: RegExp }> = {
  // doctor exits 1 when a check is a problem, and nothing is installed in the sandbox
  "terminus doctor": { code: 1, why: /problem/ },
  // with no answer to read (stdin closed), nothing moves or is deleted, and the exit is 1
  "terminus data move ~/archive/terminus": { code: 1, why: /no answer to read/ },
  "terminus uninstall --purge": { code: 1, why: /purge/ },
  "terminus sessions delete 42": { code: 1, why: /no answer to read/ },
  // the browser is interactive: without a terminal it says so and exits 1
  "terminus sessions browse": { code: 1, why: /needs a terminal/ },
};

/** Lines the test does not run, each for a reason. */
const NOT_RUN: [RegExp, string][] = [
  [/^deno task install$/, "install_test.ts runs install in a sandbox HOME"],
  [/^deno task test$/, "the suite itself"],
  [/^(rm|cp) /, "the restore steps, run literally in maintenance_test.ts"],
  [
    /^terminus sessions delete 42 .*--yes/,
    "it deletes the one session the later lines read: sessions_delete_test.ts runs each flag",
  ],
  [/\u2026/, "a path elided with an ellipsis, shown for its form"],
  [
    /^cd \S+ && claude --resume /,
    "what restore and browse print, for claude: e2e_restore_test.ts runs it",
  ],
];

/** The shell words of one line (single and double quotes, `~/` as HOME). */
function words(line: string, home: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) =>
    m[1] ?? m[2] ?? m[3].replace(/^~(?=\/|$)/, home)
  );
}

async function examples(): Promise<{ file: string; line: string }[]> {
  const out: { file: string; line: string }[] = [];
  const files = [...Deno.readDirSync(GUIDE)].map((e) => e.name).filter((n) => n.endsWith(".md"));
  for (const file of files.sort()) {
    const text = await Deno.readTextFile(join(GUIDE, file));
    for (const block of text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
      for (const raw of block[1].split("\n")) {
        const line = raw.replace(/(^|\s+)#.*$/, "").trim();
        if (line) out.push({ file, line });
      }
    }
  }
  return out;
}

Deno.test({
  name: "every command line in docs/guide runs: exit 0, or the code the guide documents",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using w = await world();
    const app = w.dir("app");
    // the UUID the guide's examples use, so a prefix of it names this session
    const t = new Transcript({
      sessionId: "5e0a1c2d-3b4f-4a6e-8f15-b02a7d9e4c61",
      cwd: app,
      start: "2026-11-02T10:00:00.000Z",
    });
    t.user("where does SearchManager keep its retry budget");
    t.toolUse("Bash", { command: "cargo test", description: "run the tests" });
    t.toolResult("test result: ok");
    t.assistant("SearchManager reads the retry budget from its config");
    await put(w, t);
    await ingest(w);

    // the guide's session number, 42, stands for this archive's one session
    const listed = await w.json(["sessions"], { cwd: app });
    const sessionNo = String(
      (listed.data as { sessions: { session_no: number }[] }).sessions[0].session_no,
    );
    const all = await examples();
    assert.ok(all.length >= 20, `found only ${all.length} example lines`);
    let ran = 0;
    for (const { file, line } of all) {
      const skip = NOT_RUN.find(([re]) => re.test(line));
      if (skip) continue;
      // a line piped on (to jq, say) is run up to the pipe: Terminus's part is what is tested
      // so is one redirected to a file: its stdout is captured here instead
      let own = line.split(" | ")[0].split(" > ")[0].replace(/^deno task terminus /, "terminus ");
      if (own.startsWith("terminus sessions ")) own = own.replace(/(?<= )42(?= |$)/, sessionNo);
      const argv = words(own, w.sb.home);
      assert.equal(argv[0], "terminus", `${file}: '${line}' is neither run nor listed in NOT_RUN`);
      const r = await w.run(argv.slice(1), { cwd: app });
      const want = DOCUMENTED_CODE[line];
      const where = `${file}: ${line}\nstdout: ${r.out}\nstderr: ${r.err}`;
      assert.equal(r.code, want?.code ?? 0, where);
      if (want) assert.match(r.err, want.why, where);
      assert.doesNotMatch(r.err, /^usage: /m, where);
      ran++;
    }
    assert.ok(ran >= 20, `ran ${ran}`);
    await settle(w.sb); // backfill's detached pass
  },
});

/**
 * What the guide says a command prints, held to what it prints: each example block's lines
 * (found in the guide by the text that opens the block) and the command's real output in the
 * sandbox both match the same shape, so neither can drift from the other.
 */
const PRINTS: {
  file: string;
  /** The first line of the guide's example block. */
  opens: RegExp;
  /** The command whose output the block shows. */
  args: string[];
  stream: "out" | "err";
  /** Each shape must match a line of the guide's block and a line of the command's output. */
  shapes: RegExp[];
}[] = [
  {
    file: "sessions.md",
    opens: /^#214 {2}2026-11-30 {2}Retry budget/,
    args: ["sessions"],
    stream: "out",
    shapes: [
      /^#\d+ {2}\d{4}-\d\d-\d\d {2}\S.* {2}\S+\.jsonl {2}\d+ turn\(s\) {2}\/\S+ {2}\S+ .*\d+s$/,
    ],
  },
  {
    file: "backfill-and-move.md",
    opens: /^transcripts {4}\d+$/,
    args: ["backfill"],
    stream: "out",
    shapes: [
      /^transcripts {4}\d+$/,
      /^not archived {3}\d+ byte\(s\)( \(\d+\.\d \w+\))?( in \d+ transcript\(s\))?$/,
      /^estimate {7}\S/,
    ],
  },
  {
    file: "install.md",
    opens: /^ {2}ok {7}binary {17}/,
    args: ["doctor"],
    stream: "out",
    shapes: [
      /^ {2}(ok|note|unknown|problem) +[a-z_A-Z]+ +\S/,
      /^ {2}fix {29}\S/,
      /^(no problems|\d+ problem\(s\))(, \d+ note\(s\))?\. doctor changed nothing and never does\.$/,
    ],
  },
];

/** The lines of the first fenced block in `file` whose first line matches `opens`. */
async function block(file: string, opens: RegExp): Promise<string[]> {
  const text = await Deno.readTextFile(join(GUIDE, file));
  for (const b of text.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)) {
    const lines = b[1].replace(/\n$/, "").split("\n");
    if (opens.test(lines[0])) return lines;
  }
  throw new Error(`${file} has no block opening with ${opens}`);
}

Deno.test({
  name: "what the guide says a command prints has the shape of what it prints",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using w = await world();
    const app = w.dir("app");
    const t = new Transcript({
      sessionId: "5e0a1c2d-3b4f-4a6e-8f15-b02a7d9e4c61",
      cwd: app,
      start: "2026-11-02T10:00:00.000Z",
    });
    t.user("where does SearchManager keep its retry budget");
    t.toolUse("Bash", { command: "cargo test", description: "run the tests" });
    t.toolResult("test result: ok");
    t.assistant("SearchManager reads the retry budget from its config");
    await put(w, t);
    await ingest(w);
    for (const p of PRINTS) {
      const guide = await block(p.file, p.opens);
      const r = await w.run(p.args, { cwd: app });
      const real = (p.stream === "out" ? r.out : r.err).split("\n");
      for (const shape of p.shapes) {
        assert.ok(guide.some((l) => shape.test(l)), `${p.file}: no line like ${shape}`);
        assert.ok(
          real.some((l) => shape.test(l)),
          `terminus ${p.args.join(" ")}: no line like ${shape}\n${real.join("\n")}`,
        );
      }
    }
    // the page's count line, as the guide quotes it and as the list prints it past a page
    const quoted = /`(\d+ of \d+ session\(s\), the newest; --limit <n> or --all lists more)`/
      .exec((await Deno.readTextFile(join(GUIDE, "sessions.md"))).replace(/\s+/g, " "))?.[1];
    assert.ok(quoted, "sessions.md quotes the count line");
    for (let i = 1; i <= 21; i++) {
      const s = new Transcript({
        sessionId: `5e0a1c2d-0000-4000-8000-${String(i).padStart(12, "0")}`,
        cwd: app,
        start: `2026-10-${String(i).padStart(2, "0")}T10:00:00.000Z`,
      });
      s.user(`session ${i}`);
      await put(w, s);
    }
    await ingest(w);
    const paged = await w.run(["sessions"], { cwd: app });
    const shape = /^\d+ of \d+ session\(s\), the newest; --limit <n> or --all lists more$/;
    assert.match(quoted!, shape);
    assert.match(paged.err.trim(), shape);
    await settle(w.sb);
  },
});
