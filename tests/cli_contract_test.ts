/**
 * The CLI contract, one test per property across every command: usage and version, misuse,
 * the --json envelope, no-store answers, and which stream gets what. A command added later
 * is one line in COMMANDS.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  type CliResult,
  exists,
  fixture,
  parseEnvelope,
  REPO_DIR,
  runCli,
  type Sandbox,
  sandbox,
  writeTranscript,
} from "./helpers.ts";
import { VERSION } from "../core/constants.ts";
import { noStoreYet } from "../core/errors.ts";
import { REGISTRY } from "../commands/mod.ts";

interface CommandSpec {
  /** The command (and subcommand) as typed, and as the envelope names it. */
  name: string;
  /** Whether the command takes --json. */
  json: boolean;
  /** Whether a stray word after it is taken as its argument rather than refused. */
  freeArgs?: boolean;
  /** Arguments a well-formed call needs, for the envelope checks. */
  args?: (dir: string) => string[];
  /** The no-store document's data, for a command that has one. */
  noStore?: (dir: string) => Record<string, unknown>;
  /** The data of an operational failure when it differs from the no-store document. */
  failed?: (dir: string) => Record<string, unknown>;
  /** Its ok depends on the machine (doctor: the claude command, the settings). */
  machineOk?: boolean;
  /** Reads the current project unless told `--project`. */
  scoped?: boolean;
  /** The reason a populated store's answer still carries (retention with no rule). */
  quietReason?: RegExp;
}

const NOTICE =
  "This export is the verbatim, unredacted transcripts: [privacy] redact_recall does not apply to it, so anything a transcript held, a secret included, is in these files. Keep them where only you can read them.";
const SIZES = { db: 0, shm: 0, total: 0, wal: 0 };

/** Every command of the registry, and the one subcommand with a document of its own. */
const COMMANDS: CommandSpec[] = [
  { name: "backfill", json: false },
  {
    name: "compact",
    json: true,
    noStore: () => ({ after: SIZES, before: SIZES, reclaimed_bytes: 0 }),
  },
  { name: "completions", json: false, args: () => ["bash"] },
  { name: "data", json: false },
  { name: "doctor", json: true, machineOk: true },
  {
    name: "export",
    json: true,
    freeArgs: true,
    args: (dir) => [join(dir, "export-out")],
    noStore: (dir) => ({
      bytes: 0,
      destination: join(dir, "export-out"),
      evicted: 0,
      manifest: null,
      notice: NOTICE,
      sessions: 0,
      turns: 0,
    }),
  },
  { name: "help", json: false },
  { name: "hook", json: false },
  {
    name: "import-history",
    json: true,
    noStore: () => ({
      added: 0,
      already: 0,
      broken: 0,
      broken_lines: [],
      dry_run: false,
      excluded: 0,
      file: null,
      lines: 0,
      skipped: 0,
    }),
  },
  { name: "ingest", json: false, freeArgs: true },
  { name: "install", json: false },
  { name: "mcp", json: false },
  { name: "observations", json: true, scoped: true, noStore: () => ({ observations: [] }) },
  {
    name: "observations regenerate",
    json: true,
    noStore: () => ({ notes: [], regenerated: 0, selected: 0, since: null }),
  },
  {
    name: "reindex",
    json: true,
    noStore: () => ({ preserved: 0, sessions: 0, skipped: [], turns: 0 }),
  },
  {
    name: "replay",
    json: true,
    noStore: () => ({
      changed: [],
      decisions: 0,
      labels: [],
      thresholds: {
        co_occurring: 2,
        compacted_ranked: 50,
        entity_rank: 3,
        max_candidates: 8,
        max_turns: 3,
        ranked: 10,
      },
    }),
  },
  {
    name: "retention",
    json: true,
    quietReason: /no \[retention\] rule selects anything/,
    noStore: () => ({ cutoff: null, delete: [], evict: [], excluded: 0, over: 0 }),
  },
  {
    name: "search",
    json: true,
    scoped: true,
    freeArgs: true,
    args: () => ["retry"],
    noStore: () => ({ hits: [], query: "retry", truncated: false }),
  },
  { name: "sessions", json: true, scoped: true, noStore: () => ({ sessions: [] }) },
  {
    name: "sessions search",
    json: true,
    scoped: true,
    freeArgs: true,
    args: () => ["retry"],
    noStore: () => ({ query: "retry", sessions: [], truncated: false }),
  },
  {
    name: "show",
    json: true,
    scoped: true,
    args: () => [String(2 ** 24)], // turn 0 of session 1
    noStore: (dir) => ({
      absent: [{ reason: noStoreYet(join(dir, "data", "terminus.db")), turn_id: 2 ** 24 }],
      records: [],
    }),
    failed: () => ({ absent: [], records: [] }),
  },
  {
    name: "stats",
    json: true,
    noStore: () => ({
      chars_injected: 0,
      chars_referenced: 0,
      compacted_decisions: 0,
      decisions: 0,
      false_positives: 0,
      hits: 0,
      injected_turns: 0,
      misses: 0,
      ordinary_decisions: 0,
      precision: null,
      wasted_budget: 0,
    }),
  },
  {
    name: "status",
    json: true,
    noStore: () => ({
      excluded: null,
      last_run: null,
      sessions: 0,
      size_bytes: 0,
      store: null,
      turns: 0,
      watermark_bytes: 0,
      watermarks: 0,
    }),
  },
  { name: "uninstall", json: false },
  {
    name: "usage",
    json: true,
    noStore: () => ({
      archive_bytes: 0,
      by_month: [],
      by_project: [],
      file_bytes: 0,
      footprint: [],
      handles: { named: 0, tagged: 0, tags: 0 },
      sessions: 0,
    }),
  },
  { name: "verify", json: true, noStore: () => ({ checked: 0, failures: [] }) },
];
const JSON_COMMANDS = COMMANDS.filter((c) => c.json);
const words = (c: CommandSpec) => c.name.split(" ");

Deno.test("the contract covers every command in the registry", () => {
  assert.deepEqual(
    [...new Set(COMMANDS.map((c) => words(c)[0]))],
    REGISTRY.map((e) => e.name),
  );
});

const ALPHA = "/nonexistent/terminus-fixtures/alpha";
const ID1 = "11111111-1111-4111-8111-111111111111";

/** A sandbox whose store holds one archived session, beside a one-prompt history. */
async function populated(): Promise<Sandbox> {
  const sb = await sandbox();
  await writeTranscript(sb.claude, ALPHA, `${ID1}.jsonl`, await fixture("every_record.jsonl"));
  await Deno.writeTextFile(
    join(sb.claude, "history.jsonl"),
    JSON.stringify({ display: "hello", pastedContents: {}, timestamp: 1, project: ALPHA }) + "\n",
  );
  const r = await runCli(sb, ["ingest"]);
  assert.equal(r.code, 0, r.err);
  return sb;
}

function assertMisuse(r: CliResult, what: string) {
  assert.equal(r.code, 2, `${what}: exit 2 (stderr: ${r.err})`);
  assert.equal(r.stdout.length, 0, `${what}: nothing on stdout`);
  assert.match(r.err, /^terminus: /, `${what}: the error comes first`);
  assert.match(r.err, /usage: terminus/, `${what}: then the usage text`);
}

Deno.test("terminus, --help and -h print the usage text on stdout and exit 0", async () => {
  await using sb = await sandbox();
  const outs: string[] = [];
  for (const args of [[], ["--help"], ["-h"]]) {
    const r = await runCli(sb, args);
    assert.equal(r.code, 0, `terminus ${args.join(" ")}`);
    assert.equal(r.err, "", "nothing on stderr");
    assert.match(r.out, /^usage: terminus /);
    for (const c of COMMANDS) {
      assert.match(r.out, new RegExp(`^  ${words(c)[0]} `, "m"), `lists ${c.name}`);
    }
    outs.push(r.out);
  }
  assert.equal(outs[1], outs[0]);
  assert.equal(outs[2], outs[0]);
  assert.equal(await exists(sb.data), false, "usage touches no data directory");
});

Deno.test("--version and -V print the version on stdout and exit 0", async () => {
  await using sb = await sandbox();
  const manifest = JSON.parse(await Deno.readTextFile(join(REPO_DIR, "deno.json")));
  assert.equal(manifest.version, VERSION, "deno.json and the binary agree on the version");
  for (const flag of ["--version", "-V"]) {
    const r = await runCli(sb, [flag]);
    assert.equal(r.code, 0);
    assert.equal(r.out, `terminus ${VERSION}\n`);
    assert.equal(r.err, "");
  }
});

Deno.test("after a command name, --help and -h print its help (exit 0); --version and -V are misuse", async () => {
  await using sb = await sandbox();
  for (const c of COMMANDS) {
    for (const flag of ["--help", "-h"]) {
      const r = await runCli(sb, [...words(c), flag]);
      assert.equal(r.code, 0, `${c.name} ${flag}: ${r.err}`);
      assert.match(r.out, /^usage: terminus /, `${c.name} ${flag}`);
    }
    for (const flag of ["--version", "-V"]) {
      assertMisuse(await runCli(sb, [...words(c), flag]), `${c.name} ${flag}`);
    }
  }
});

Deno.test("an unknown command or option prints the error and usage on stderr and exits 2", async () => {
  await using sb = await sandbox();
  for (const args of [["bogus"], ["--bogus"], ["-Z"], ["Status"]]) {
    const r = await runCli(sb, args);
    assertMisuse(r, args.join(" "));
    assert.ok(r.err.includes(args[0]), "the error names what was typed");
  }
  for (const c of COMMANDS) {
    assertMisuse(await runCli(sb, [...words(c), "--bogus"]), `${c.name} --bogus`);
    if (c.json) {
      assertMisuse(
        await runCli(sb, [...words(c), "--json", "--bogus"]),
        `${c.name} --json --bogus`,
      );
    }
    if (!c.freeArgs) assertMisuse(await runCli(sb, [...words(c), "extra"]), `${c.name} extra`);
  }
  assertMisuse(await runCli(sb, ["ingest", "a.jsonl", "b.jsonl"]), "ingest with two paths");
  assert.equal(await exists(sb.data), false, "misuse touches no data directory");
});

Deno.test("commands without --json refuse it as misuse with an empty stdout", async () => {
  await using sb = await populated();
  for (const c of COMMANDS.filter((c) => !c.json)) {
    assertMisuse(await runCli(sb, [...words(c), "--json"]), `${c.name} --json`);
  }
});

Deno.test("--json writes exactly one line: sorted keys at every depth, the four envelope keys", async () => {
  // no store, a populated store, and a store that cannot be read (operational failure)
  await using empty = await sandbox();
  await using full = await populated();
  await using broken = await sandbox();
  await Deno.mkdir(broken.data);
  const foreign = new DatabaseSync(broken.store);
  foreign.exec("CREATE TABLE notes (body TEXT)");
  foreign.close();

  for (const c of JSON_COMMANDS) {
    for (
      const [state, sb] of [["no store", empty], ["populated", full], ["foreign", broken]] as const
    ) {
      const r = await runCli(sb, [...words(c), ...(c.args?.(sb.dir) ?? []), "--json"]);
      const doc = parseEnvelope(r.out);
      assert.equal(doc.command, c.name, `${c.name} (${state}): command`);
      assert.equal(typeof doc.ok, "boolean");
      assert.equal(r.code, doc.ok ? 0 : 1, `${c.name} (${state}): ok and the exit code agree`);
      assert.ok(doc.reason === null || typeof doc.reason === "string");
      if (state === "no store" && c.noStore) {
        assert.deepEqual(doc.data, c.noStore(sb.dir), `${c.name}: the no-store document`);
      }
      if (c.machineOk) continue;
      if (state === "foreign") {
        assert.equal(doc.ok, false, `${c.name} on a foreign file fails`);
        assert.match(doc.reason!, /is not a Terminus store/);
        assert.deepEqual(
          doc.data,
          (c.failed ?? c.noStore)!(sb.dir),
          `${c.name}: the failure carries the empty document`,
        );
        assert.equal(r.err, "", `${c.name}: a --json failure puts nothing on stderr`);
      } else {
        assert.equal(doc.ok, true, `${c.name} (${state}) succeeds: ${r.err}`);
      }
      await Deno.remove(join(sb.dir, "export-out"), { recursive: true }).catch(() => {});
    }
  }
});

Deno.test("with no store, every reading command answers empty, exits 0, and creates nothing", async () => {
  for (const c of JSON_COMMANDS.filter((c) => c.noStore)) {
    await using sb = await sandbox();
    const call = [...words(c), ...(c.args?.(sb.dir) ?? [])];
    const r = await runCli(sb, [...call, "--json"]);
    assert.equal(r.code, 0);
    assert.equal(r.err, "");
    const doc = parseEnvelope(r.out);
    assert.equal(doc.ok, true);
    assert.equal(typeof doc.reason, "string", "the reason says which empty");
    assert.ok(doc.reason!.length > 0);
    assert.deepEqual(doc.data, c.noStore!(sb.dir));
    assert.equal(await exists(sb.data), false, `${c.name} --json created no data directory`);

    const human = await runCli(sb, call);
    assert.equal(human.code, 0);
    assert.equal(human.out, "", `${c.name}: nothing to print on stdout`);
    assert.match(human.err, /no store/, `${c.name}: the reason on stderr`);
    assert.equal(await exists(sb.data), false, `${c.name} created no data directory`);

    // with the default data directory too: nothing below HOME appears
    const dflt = await runCli(sb, [...call, "--json"], { env: { TERMINUS_DATA_DIR: undefined } });
    assert.equal(dflt.code, 0);
    assert.equal(parseEnvelope(dflt.out).ok, true);
    assert.deepEqual([...Deno.readDirSync(sb.home)], [], `${c.name} wrote nothing under HOME`);
  }
});

Deno.test("a clean --json run writes nothing to stderr; human mode splits data and counts", async () => {
  await using sb = await populated();
  for (const c of JSON_COMMANDS) {
    const scope = c.scoped ? ["--project", "*"] : [];
    const r = await runCli(sb, [...words(c), ...(c.args?.(sb.dir) ?? []), ...scope, "--json"]);
    if (!c.machineOk) assert.equal(r.code, 0, `${c.name}: ${r.out}`);
    assert.equal(r.err, "", `${c.name} --json is silent on stderr`);
    const reason = parseEnvelope(r.out).reason;
    if (c.quietReason) assert.match(reason ?? "", c.quietReason, c.name);
    else if (!c.machineOk) assert.equal(reason, null, c.name);
  }
  const status = await runCli(sb, ["status"]);
  assert.equal(status.code, 0);
  assert.match(status.out, /^store +.*terminus\.db$/m);
  assert.match(status.out, /^sessions +1$/m);
  assert.match(status.out, /^turns +6$/m);
  assert.equal(status.err, "");
  const verify = await runCli(sb, ["verify"]);
  assert.equal(verify.code, 0);
  assert.equal(verify.out, "", "no failures, nothing on stdout");
  assert.match(verify.err, /^1 session\(s\) checked, 0 failure\(s\)$/m, "the count on stderr");
  const ingest = await runCli(sb, ["ingest"]);
  assert.equal(ingest.code, 0);
  assert.equal(ingest.out, "");
  assert.match(ingest.err, /file\(s\) walked/);
});
