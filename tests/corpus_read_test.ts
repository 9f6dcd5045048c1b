/**
 * The read commands over genuine Claude Code transcripts. Needs TERMINUS_TEST_CORPUS: a folder
 * whose subfolders each hold a `projects/` folder (each such subfolder is one root). The
 * transcripts are read in place and never copied.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { cliOk, query, writeConfig } from "./helpers.ts";
import { equalBytes, type Hit, hitsOf, ingest, splitLines, world } from "./read_helpers.ts";

const CORPUS = Deno.env.get("TERMINUS_TEST_CORPUS");
if (!CORPUS) {
  console.warn("corpus_test: TERMINUS_TEST_CORPUS is not set, so the corpus tests are skipped");
}

const TURN_TYPES = new Set(["user", "assistant", "system", "attachment"]);
const UUID_FILE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$/i;

interface FileTurn {
  key: string;
  seq: number;
  line: Uint8Array;
  text: string;
  rec: Record<string, unknown>;
}

async function roots(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) {
    if (!e.isDirectory) continue;
    try {
      if ((await Deno.stat(join(dir, e.name, "projects"))).isDirectory) out.push(join(dir, e.name));
    } catch { /* not a root */ }
  }
  return out.sort();
}

async function walk(dir: string, out: string[]): Promise<void> {
  for await (const e of Deno.readDir(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) await walk(p, out);
    else if (e.isFile) out.push(p);
  }
}

/** Every transcript under the roots, by session key, with its turn lines in byte order. */
async function transcripts(rs: string[]): Promise<Map<string, FileTurn[]>> {
  const out = new Map<string, FileTurn[]>();
  const decoder = new TextDecoder();
  for (const root of rs) {
    for await (const p of Deno.readDir(join(root, "projects"))) {
      if (!p.isDirectory) continue;
      const projectDir = join(root, "projects", p.name);
      const files: string[] = [];
      await walk(projectDir, files);
      for (const f of files) {
        const key = relative(projectDir, f);
        const base = key.split("/").pop()!;
        const isTranscript = (!key.includes("/") && UUID_FILE.test(base)) ||
          (key.includes("/") && base.startsWith("agent-") && base.endsWith(".jsonl"));
        if (!isTranscript) continue;
        const turns: FileTurn[] = [];
        for (const line of splitLines(await Deno.readFile(f))) {
          const text = decoder.decode(line);
          let rec: unknown;
          try {
            rec = JSON.parse(text);
          } catch {
            continue;
          }
          if (!rec || typeof rec !== "object" || Array.isArray(rec)) continue;
          const r = rec as Record<string, unknown>;
          if (
            typeof r.type === "string" && TURN_TYPES.has(r.type) && typeof r.uuid === "string" &&
            typeof r.timestamp === "string"
          ) {
            turns.push({ key, seq: turns.length, line, text, rec: r });
          }
        }
        out.set(key, turns);
      }
    }
  }
  return out;
}

Deno.test({
  name: "corpus: search answers, show reproduces every turn, reindex keeps every id",
  ignore: !CORPUS,
  async fn(t) {
    const rs = await roots(CORPUS!);
    assert.ok(rs.length > 0, `no folder with a projects/ folder under ${CORPUS}`);
    await using w = await world();
    await writeConfig(w.sb, `roots = [${rs.map((r) => JSON.stringify(r)).join(", ")}]\n`);
    await ingest(w);
    const files = await transcripts(rs);
    const sessions = (await w.json(["sessions", "--project", "*"])).data.sessions as {
      session_key: string;
      session_no: number;
      turns: number;
      sidecar: boolean;
    }[];
    const noOf = new Map(sessions.map((s) => [s.session_key, s.session_no]));
    const idOf = (ft: FileTurn) => noOf.get(ft.key)! * 2 ** 24 + ft.seq;
    const byId = new Map<number, FileTurn>();
    for (const turns of files.values()) for (const ft of turns) byId.set(idOf(ft), ft);

    await t.step("every transcript is a session with the turns its file holds", () => {
      assert.equal(sessions.length, files.size);
      for (const s of sessions) {
        assert.ok(files.has(s.session_key), s.session_key);
        assert.equal(s.turns, files.get(s.session_key)!.length, s.session_key);
        assert.equal(s.sidecar, s.session_key.includes("/subagents/"));
      }
    });

    /** The one turn whose line holds every needle, in the session whose key starts so. */
    const turn = (keyPrefix: string, ...needles: string[]): FileTurn => {
      const found: FileTurn[] = [];
      for (const [key, turns] of files) {
        if (!key.startsWith(keyPrefix)) continue;
        for (const ft of turns) if (needles.every((n) => ft.text.includes(n))) found.push(ft);
      }
      assert.ok(found.length >= 1, `no turn in ${keyPrefix} holds ${needles.join(" + ")}`);
      return found[0];
    };
    const search = async (args: string[]): Promise<Hit[]> => {
      const hits = hitsOf(await w.json(["search", ...args, "--limit", "50"]));
      // every hit holds every word it was found by, case aside
      const words = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--"))
        .flatMap((a) => a.match(/[\p{L}\p{N}]+/gu) ?? []);
      for (const h of hits) {
        const ft = byId.get(h.turn_id);
        assert.ok(ft, `hit ${h.turn_id} names no turn of the files`);
        const lower = ft.text.toLowerCase();
        for (const word of words) {
          assert.ok(lower.includes(word.toLowerCase()), `hit ${h.turn_id} lacks '${word}'`);
        }
      }
      return hits;
    };
    const alpha = "/home/dev/code/project-alpha";
    const hasAlpha = [...files.keys()].some((k) => k.startsWith("df7c0962-"));

    await t.step({
      name: "known answers in claude-2.1.328",
      ignore: !hasAlpha,
      async fn() {
        const ask = turn(
          "df7c0962-",
          '"type":"user"',
          "where did SearchManager get its retry budget",
        );
        for (const q of ["SearchManager", "manager"]) {
          const hits = await search([q, "--project", alpha]);
          assert.ok(hits.some((h) => h.turn_id === idOf(ask)), q);
        }
        const grep = turn(
          "df7c0962-eeec-4dc5-8784-a5e830a8e295/subagents/",
          '"name":"Grep"',
          "retryBudget",
        );
        const edit = turn("05b55229-", '"name":"Edit"', "retryBudget");
        const rb = await search(["retryBudget", "--project", alpha]);
        const g = rb.find((h) => h.turn_id === idOf(grep));
        assert.ok(g, "the subagent's Grep");
        assert.equal(g.sidechain, true);
        assert.deepEqual(g.matched_on, [{ kind: "symbol", value: "retryBudget" }]);
        assert.ok(rb.some((h) => h.turn_id === idOf(edit)), "the Edit");
        const human = await cliOk(w.sb, ["search", "retryBudget", "--project", alpha]);
        assert.ok(
          human.out.split("\n").some((l) =>
            l.startsWith(`${idOf(grep)}  `) && l.endsWith("  (subagent)")
          ),
        );

        const cargo = turn("df7c0962-", '"name":"Bash"', "cargo test -p worker");
        const failed = turn("df7c0962-", '"is_error":true', "rustup could not choose");
        const bash = await search(["cargo", "test", "--tool", "Bash", "--project", alpha]);
        assert.ok(bash.some((h) => h.turn_id === idOf(cargo)));
        const err = await search(["rustup", "could", "not", "choose", "--project", alpha]);
        assert.ok(err.some((h) => h.turn_id === idOf(failed)));

        const file = `${alpha}/src/worker/S.ts`;
        const read = turn("df7c0962-", '"name":"Read"', `"file_path":"${file}"`);
        const byPath = await search(["worker", "--path", file, "--project", alpha]);
        assert.ok(byPath.some((h) => h.turn_id === idOf(read)));
        assert.ok(byPath.some((h) => h.turn_id === idOf(edit)));
        const docs = turn("df7c0962-", '"name":"Read"', "docs/RETRY.md");
        assert.ok(!byPath.some((h) => h.turn_id === idOf(docs)));
      },
    });

    const hasErk = [...files.keys()].some((k) => k.startsWith("a5c478e1-"));
    await t.step({
      name: "known answers in claude-2.0-2.1-erk",
      ignore: !hasErk,
      async fn() {
        const edit = turn("a5c478e1-", '"name":"Edit"', "GetLearnSessionsErrorDict");
        const hits = await search(["GetLearnSessionsErrorDict", "--project", "*"]);
        const h = hits.find((h) => h.turn_id === idOf(edit));
        assert.ok(h);
        assert.ok(
          h.matched_on.some((m) => m.kind === "symbol" && m.value === "GetLearnSessionsErrorDict"),
        );
        const spec = turn("acd9feaa-", '"is_error":true', "pathspec");
        const err = await search([
          "pathspec",
          "did",
          "not",
          "match",
          "any",
          "files",
          "--project",
          "*",
        ]);
        assert.ok(err.some((h) => h.turn_id === idOf(spec)));
      },
    });

    const hasViewer = [...files.keys()].some((k) => k.startsWith("fe5e1c67-"));
    await t.step({
      name: "known answers in claude-1.0-viewer",
      ignore: !hasViewer,
      async fn() {
        const next = turn(
          "fe5e1c67-",
          '"type":"user"',
          "create-next-app@latest todo-app --typescript",
        );
        const hits = await search([
          "create-next-app@latest",
          "todo-app",
          "typescript",
          "--project",
          "*",
        ]);
        assert.ok(hits.some((h) => h.turn_id === idOf(next)));
        assert.ok(hits.every((h) => h.project === "/path/to/Demo"));
      },
    });

    await t.step("show reproduces every archived turn's line byte for byte", async () => {
      for (const [key, turns] of files) {
        if (turns.length === 0) continue;
        const ids = turns.map(idOf);
        const r = await cliOk(w.sb, ["show", ...ids.map(String), "--project", "*"]);
        const lines = splitLines(r.stdout);
        assert.equal(lines.length, 2 * turns.length, key);
        for (const [i, ft] of turns.entries()) {
          const header = new TextDecoder().decode(lines[2 * i]);
          assert.ok(header.startsWith(`${ids[i]}  `), `${key} #${i}: ${header}`);
          assert.ok(equalBytes(lines[2 * i + 1], ft.line), `${key} turn ${i} is not its file line`);
        }
      }
    });

    await t.step("reindex keeps every turn id and where it points", async () => {
      const cols =
        "SELECT id, uuid, record_type, ts, stream_offset, byte_len FROM turns ORDER BY id";
      const before = query(w.sb.store, cols);
      assert.equal(before.length, byId.size);
      const ids = await search(["retry", "--project", "*"]);
      const r = await cliOk(w.sb, ["reindex"]);
      assert.equal(r.stdout.length, 0);
      assert.deepEqual(query(w.sb.store, cols), before);
      const after = await search(["retry", "--project", "*"]);
      assert.deepEqual(
        after.map((h) => h.turn_id).sort((a, b) => a - b),
        ids.map((h) => h.turn_id).sort((a, b) => a - b),
      );
    });
  },
});
