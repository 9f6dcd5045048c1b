/** terminus sessions and terminus observations (and observations regenerate), end to end. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseEnvelope, writeTranscript } from "./helpers.ts";
import { holdLock, ingest, put, Transcript, world } from "./read_helpers.ts";

interface SessionDoc {
  session_key: string;
  session_no: number;
  project: string | null;
  project_pre_worktree: string | null;
  branch: string | null;
  first_turn_at: string | null;
  last_turn_at: string | null;
  turns: number;
  watermark: number | null;
  sidecar: boolean;
  evicted: boolean;
}

interface ObservationDoc {
  session_key: string;
  session_id: string | null;
  generated_at: string | null;
  mechanical: Record<string, unknown>;
}

const SESSION_KEYS = [
  "branch",
  "duration_seconds",
  "evicted",
  "first_turn_at",
  "last_turn_at",
  "name",
  "project",
  "project_pre_worktree",
  "resume",
  "session_id",
  "session_key",
  "session_no",
  "sidecar",
  "tags",
  "title",
  "title_source",
  "transcript_present",
  "turns",
  "watermark",
];

const MECHANICAL_KEYS = [
  "branch",
  "commands",
  "commits",
  "compactions",
  "duration_seconds",
  "errors",
  "files_modified",
  "files_read",
  "first_turn_at",
  "last_turn_at",
  "tools",
  "truncated",
  "turns",
];

Deno.test("sessions and observations", async (t) => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const beta = w.dir("beta");
  const src = (f: string) => join(alpha, "src", f);

  // s1: closed long ago, a full working session; the branch changes on its last record
  const sid1 = "10000000-0000-4000-8000-000000000001";
  const s1 = new Transcript({ sessionId: sid1, cwd: alpha, start: "2026-01-01T10:00:00.000Z" });
  s1.user("wire the observation step up");
  s1.toolUse("Read", { file_path: src("a.ts") });
  s1.toolResult("export const a = 1;", {
    toolUseResult: { type: "text", file: { filePath: src("a.ts"), content: "x" } },
  });
  s1.toolUse("Grep", { pattern: "observeClosed", path: src("") });
  s1.toolResult("Found 0 files");
  s1.toolUse("Edit", { file_path: src("b.ts"), old_string: "x = 1", new_string: "x = 2" });
  s1.toolResult("The file has been updated.");
  s1.toolUse("Write", { file_path: src("c.ts"), content: "export {};\n" });
  s1.toolResult("File created.");
  s1.toolUse("Bash", { command: "cargo test -p core --features testkit", description: "test" });
  s1.toolResult("error: could not compile `core` due to 2 previous errors\nwarning: more", {
    isError: true,
  });
  s1.turn("system", {
    subtype: "compact_boundary",
    content: "Conversation compacted",
    compactMetadata: { trigger: "manual", preTokens: 1000 },
  });
  s1.toolUse("Bash", {
    command: 'git add -A && git commit -m "wire the observation step up"',
    description: "commit",
  });
  s1.toolResult("[main 5b67ad6] wire the observation step up");
  s1.at("2026-01-01T12:00:00.000Z").assistant("Committed.");
  s1.state({ type: "last-prompt", lastPrompt: "x", sessionId: sid1, gitBranch: "feature-x" });
  const file1 = await put(w, s1);

  // its subagent, closed too
  const side = new Transcript({
    sessionId: sid1,
    cwd: alpha,
    start: "2026-01-01T11:00:00.000Z",
    sidechain: true,
  });
  side.user("list the callers");
  side.toolUse("Bash", { command: "grep -rn observe src/" });
  side.toolResult("src/a.ts:1: observe");
  side.at("2026-01-01T11:30:00.000Z").assistant("One caller.");
  await put(w, side, `${sid1}/subagents/agent-side1.jsonl`);

  // s2: spans three days
  const sid2 = "20000000-0000-4000-8000-000000000002";
  const s2 = new Transcript({
    sessionId: sid2,
    cwd: alpha,
    start: "2026-01-03T10:00:00.000Z",
    branch: "phase-3",
  });
  s2.user("start the long one");
  s2.toolUse("Bash", { command: "sleep 600" });
  s2.toolResult("");
  s2.at("2026-01-05T10:00:00.000Z").assistant("done at last");
  await put(w, s2);

  // s6: more distinct commands than one list keeps
  const sid6 = "60000000-0000-4000-8000-000000000006";
  const s6 = new Transcript({ sessionId: sid6, cwd: beta, start: "2026-01-02T12:00:00.000Z" });
  for (let i = 0; i < 101; i++) s6.toolUse("Bash", { command: `echo ${i}` });
  await put(w, s6);

  // s3: still open (its last turn is now)
  const sid3 = "30000000-0000-4000-8000-000000000003";
  const s3 = new Transcript({ sessionId: sid3, cwd: alpha, start: new Date().toISOString() });
  s3.user("an open session");
  s3.toolUse("Bash", { command: "ls" });
  await put(w, s3);

  // s4: state records only, no turn
  const sid4 = "40000000-0000-4000-8000-000000000004";
  await writeTranscript(
    w.sb.claude,
    alpha,
    `${sid4}.jsonl`,
    JSON.stringify({ type: "progress", cwd: alpha, sessionId: sid4, data: {} }) + "\n",
  );

  // s5: another project, closed
  const sid5 = "50000000-0000-4000-8000-000000000005";
  const s5 = new Transcript({ sessionId: sid5, cwd: beta, start: "2026-01-02T09:00:00.000Z" });
  s5.user("beta work");
  s5.toolUse("Read", { file_path: join(beta, "README.md") });
  s5.toolResult("# beta");
  await put(w, s5);
  await ingest(w);
  const at = { cwd: alpha };

  const sessions = async (...args: string[]) =>
    (await w.json(["sessions", ...args], at)).data.sessions as SessionDoc[];
  const keysOf = (l: SessionDoc[]) => l.map((s) => s.session_key);

  const all = await sessions();
  const byKey = new Map(all.map((s) => [s.session_key, s]));
  const k1 = `${sid1}.jsonl`, kSide = `${sid1}/subagents/agent-side1.jsonl`;
  const k2 = `${sid2}.jsonl`, k3 = `${sid3}.jsonl`, k4 = `${sid4}.jsonl`;

  await t.step("sessions --json: the project's sessions in session_no order", async () => {
    // a backfill numbers new sessions by their first turn, oldest first; one with no turn last
    assert.deepEqual(keysOf(all), [k1, kSide, k2, k3, k4]);
    const nos = all.map((s) => s.session_no);
    assert.deepEqual(nos, [...nos].sort((a, b) => a - b));
    for (const s of all) assert.deepEqual(Object.keys(s).sort(), SESSION_KEYS);
    const one = byKey.get(k1)!;
    assert.equal(one.project, alpha);
    assert.equal(one.project_pre_worktree, null);
    assert.equal(one.branch, "feature-x", "the branch the last record named");
    assert.equal(one.first_turn_at, "2026-01-01T10:00:00.000Z");
    assert.equal(one.last_turn_at, "2026-01-01T12:00:00.000Z");
    assert.equal(one.turns, s1.turns.length);
    assert.equal(one.watermark, (await Deno.stat(file1)).size);
    assert.equal(one.sidecar, false);
    assert.equal(one.evicted, false);
    assert.equal(byKey.get(kSide)!.sidecar, true);
    assert.equal(byKey.get(k2)!.branch, "phase-3");
    const empty = byKey.get(k4)!;
    assert.equal(empty.turns, 0);
    assert.equal(empty.first_turn_at, null);
    assert.equal(empty.last_turn_at, null);
    const everywhere = await sessions("--project", "*");
    assert.equal(everywhere.length, all.length + 2);
    assert.ok(everywhere.some((s) => s.project === beta));
  });

  await t.step("sessions: one line each, (subagent), count on stderr", async () => {
    const r = await w.run(["sessions"], at);
    assert.equal(r.code, 0);
    // columns are padded to line up: compare with each run of spaces read as one gap
    const lines = r.out.trimEnd().split("\n").map((l) => l.replace(/ {2,}/g, "  ").trimEnd());
    assert.equal(lines.length, all.length);
    const no = (k: string) => byKey.get(k)!.session_no;
    assert.ok(
      lines.includes(
        `#${
          no(k1)
        }  2026-01-01  wire the observation step up  ${sid1}.jsonl  ${s1.turns.length} turn(s)  ${alpha}  feature-x  30m 13s`,
      ),
    );
    assert.ok(
      lines.includes(
        `#${
          no(kSide)
        }  2026-01-01  list the callers  agent-side1.jsonl  ${side.turns.length} turn(s)  ${alpha}  main  (subagent)  30m 0s`,
      ),
    );
    assert.ok(
      lines.includes(
        `#${
          no(k2)
        }  2026-01-03  start the long one  ${sid2}.jsonl  ${s2.turns.length} turn(s)  ${alpha}  phase-3  30m 2s`,
      ),
    );
    assert.ok(
      lines.includes(`#${no(k4)}  -  (untitled)  ${sid4}.jsonl  0 turn(s)  ${alpha}  -  -`),
    );
    assert.equal(lines.filter((l) => l.includes("(subagent)")).length, 1);
    assert.match(r.err, new RegExp(`^${all.length} session\\(s\\)$`, "m"));
  });

  await t.step("sessions --limit: the newest n, in session_no order", async () => {
    assert.deepEqual(keysOf(await sessions("--limit", "2")), [k2, k3]);
    assert.deepEqual(keysOf(await sessions("--limit", "99")), keysOf(all));
    for (const v of ["0", "-1", "two"]) {
      const r = await w.run(["sessions", "--limit", v], at);
      assert.equal(r.code, 2, v);
      assert.equal(r.stdout.length, 0);
    }
  });

  await t.step("sessions --since/--until: still going at since, started by until", async () => {
    const set = async (...a: string[]) => new Set(keysOf(await sessions(...a)));
    assert.deepEqual(await set("--since", "2026-01-04"), new Set([k2, k3]));
    assert.deepEqual(await set("--until", "2026-01-02"), new Set([k1, kSide]));
    assert.deepEqual(await set("--since", "2026-01-04", "--until", "2026-01-04"), new Set([k2]));
    assert.deepEqual(await set("--since", "2026-01-05", "--until", "2026-01-05"), new Set([k2]));
    assert.deepEqual(await set("--since", "2026-01-05T10:00:00.001Z"), new Set([k3]));
    assert.deepEqual(await set("--until", "2026-01-03T10:00:00.000Z"), new Set([k1, kSide, k2]));
    assert.deepEqual(await set("--until", "2026-01-03T09:59:59.999Z"), new Set([k1, kSide]));
    assert.deepEqual(
      await set("--since", "2026-01-01T11:30:00.000Z", "--until", "2026-01-01T11:30:00.000Z"),
      new Set([k1, kSide]),
    );
    assert.deepEqual(
      await set("--since", "2026-01-01T12:00:00.001Z", "--until", "2026-01-02"),
      new Set(),
    );
  });

  const observations = async (...args: string[]) =>
    (await w.json(["observations", ...args], at)).data.observations as ObservationDoc[];

  const obs = await observations();
  await t.step("observations: only closed sessions, with their facts", () => {
    const closed = new Set([k1, kSide, k2]);
    assert.deepEqual(
      obs.map((o) => o.session_key),
      [...all].sort((a, b) => a.session_no - b.session_no).map((s) => s.session_key)
        .filter((k) => closed.has(k)),
      "the closed sessions, in ingest order",
    );
    for (const o of obs) {
      assert.deepEqual(Object.keys(o).sort(), [
        "generated_at",
        "mechanical",
        "session_id",
        "session_key",
      ]);
      assert.deepEqual(Object.keys(o.mechanical).sort(), MECHANICAL_KEYS);
      assert.ok(!Number.isNaN(Date.parse(o.generated_at!)));
    }
    const one = obs.find((o) => o.session_key === k1)!;
    const m = one.mechanical;
    assert.equal(one.session_id, sid1);
    assert.deepEqual(m.files_read, [src("a.ts")]);
    assert.deepEqual(m.files_modified, [src("b.ts"), src("c.ts")]);
    assert.deepEqual([...(m.tools as string[])].sort(), ["Bash", "Edit", "Grep", "Read", "Write"]);
    assert.deepEqual(m.commands, [
      "cargo test -p core --features testkit",
      'git add -A && git commit -m "wire the observation step up"',
    ]);
    assert.equal((m.errors as string[]).length, 1);
    assert.match((m.errors as string[])[0], /could not compile `core` due to 2 previous errors/);
    assert.deepEqual(m.commits, ["wire the observation step up"]);
    assert.equal(m.branch, "feature-x");
    assert.equal(m.turns, s1.turns.length);
    assert.equal(m.first_turn_at, "2026-01-01T10:00:00.000Z");
    assert.equal(m.last_turn_at, "2026-01-01T12:00:00.000Z");
    assert.equal(m.duration_seconds, 7200);
    assert.equal(m.compactions, 1);
    assert.deepEqual(m.truncated, []);
    const sm = obs.find((o) => o.session_key === kSide)!.mechanical;
    assert.deepEqual(sm.commands, ["grep -rn observe src/"]);
    assert.deepEqual(sm.commits, []);
    assert.equal(obs.find((o) => o.session_key === k2)!.mechanical.duration_seconds, 2 * 24 * 3600);
  });

  await t.step("observations: human lines and the count", async () => {
    const r = await w.run(["observations"], at);
    assert.equal(r.code, 0);
    const lines = r.out.split("\n");
    // each session by the number `sessions show` takes, with the title `sessions` shows
    const head = lines.findIndex((l) =>
      /^#\d+ {2}/.test(l) &&
      l.endsWith(`${sid1}.jsonl  feature-x  ${s1.turns.length} turn(s)  2h 0m 0s  1 compaction(s)`)
    );
    assert.ok(head >= 0, r.out);
    assert.match(lines[head + 1], /^ {2}title {11}\S/, r.out);
    // paths inside the project are shown from there (issue 14); --json keeps them whole
    assert.ok(lines.includes(`  files modified  src/b.ts, src/c.ts`), r.out);
    assert.ok(lines.includes(`  files read      src/a.ts`), r.out);
    assert.ok(lines.includes(`  commits         wire the observation step up`), r.out);
    assert.ok(
      lines.some((l) => l.startsWith("  commands        cargo test -p core --features testkit, ")),
    );
    assert.ok(
      lines.some((l) => l.startsWith("  errors          ") && l.includes("could not compile")),
    );
    assert.ok(
      lines.some((l) =>
        /^#\d+ {2}agent-side1\.jsonl {2}main {2}/.test(l) &&
        l.endsWith(`${side.turns.length} turn(s)  30m 0s  0 compaction(s)`)
      ),
    );
    assert.match(r.err, /^3 observation\(s\)$/m);
    const star = await observations("--project", "*");
    assert.equal(star.length, 5);
    assert.ok(star.some((o) => o.session_id === sid5));
    const six = star.find((o) => o.session_id === sid6)!.mechanical;
    assert.equal((six.commands as string[]).length, 100);
    assert.deepEqual((six.commands as string[]).slice(0, 2), ["echo 0", "echo 1"]);
    assert.deepEqual(six.truncated, ["commands"], "a list cut at its cap is named");
    assert.deepEqual(six.tools, ["Bash"]);
    const h = await w.run(["observations", "--project", beta], at);
    assert.ok(h.out.split("\n").includes("  truncated       commands"), h.out);
  });

  const store = w.sb.store;
  const rows = () => {
    const db = new DatabaseSync(store, { readOnly: true });
    try {
      return new Map(
        (db.prepare(
          `SELECT s.session_key AS k, o.generated_at AS g, o.mechanical AS m
           FROM observations o JOIN sessions s ON s.session_no = o.session_no`,
        ).all() as { k: string; g: string; m: string }[]).map((r) => [r.k, r]),
      );
    } finally {
      db.close();
    }
  };
  const stale = (keys: string[]) => {
    const db = new DatabaseSync(store);
    try {
      const up = db.prepare(
        `UPDATE observations SET mechanical = '{"stale":true}'
         WHERE session_no = (SELECT session_no FROM sessions WHERE session_key = ?)`,
      );
      for (const k of keys) up.run(k);
    } finally {
      db.close();
    }
  };

  await t.step(
    "observations regenerate --since: rewrites only mechanical, only the selected",
    async () => {
      const before = rows();
      assert.equal(before.size, 5);
      stale([k1, k2]);
      const env = await w.json(["observations", "regenerate", "--since", "2026-01-04"], at);
      assert.equal(env.command, "observations regenerate");
      assert.deepEqual(env.data, {
        notes: [],
        regenerated: 1,
        selected: 1,
        since: "2026-01-04T00:00:00.000Z",
      });
      const after = rows();
      assert.equal(after.get(k2)!.m, before.get(k2)!.m, "the selected row is recomputed");
      assert.equal(after.get(k1)!.m, '{"stale":true}', "an unselected row is left as it was");
      for (const [k, r] of before) assert.equal(after.get(k)!.g, r.g, `generated_at moved on ${k}`);
    },
  );

  await t.step("observations regenerate: every row, from any project", async () => {
    const before = rows();
    const r = await w.run(["observations", "regenerate"], at);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "");
    assert.match(r.err, /5 selected, 5 regenerated/);
    const after = rows();
    assert.notEqual(after.get(k1)!.m, '{"stale":true}');
    assert.deepEqual(
      JSON.parse(after.get(k1)!.m),
      obs.find((o) => o.session_key === k1)!.mechanical,
    );
    for (const [k, row] of before) assert.equal(after.get(k)!.g, row.g);
    const env = await w.json(
      ["observations", "regenerate", "--since", "2026-01-01T10:00:00.000Z"],
      at,
    );
    assert.deepEqual(env.data, {
      notes: [],
      regenerated: 5,
      selected: 5,
      since: "2026-01-01T10:00:00.000Z",
    });
    const none = await w.json(["observations", "regenerate", "--since", "2026-02-01"], at);
    assert.deepEqual(none.data, {
      notes: [],
      regenerated: 0,
      selected: 0,
      since: "2026-02-01T00:00:00.000Z",
    });
  });

  await t.step("regenerate must come straight after observations", async () => {
    for (
      const args of [
        ["observations", "--json", "regenerate"],
        ["observations", "--project", alpha, "regenerate"],
        ["observations", "regenerate", "--since", "2026-02-30"],
        ["observations", "regenerate", "--since", "yesterday", "--json"],
        ["observations", "--since", "2026-01-01"],
      ]
    ) {
      const r = await w.run(args, at);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.stdout.length, 0, args.join(" "));
    }
  });

  await t.step("regenerate while another process holds the ingest lock", async () => {
    const lock = await holdLock(w.sb.data);
    const before = rows();
    stale([k2]);
    try {
      const r = await w.run(["observations", "regenerate", "--json"], at);
      assert.equal(r.code, 1, r.out + r.err);
      const env = parseEnvelope(r.out);
      assert.equal(env.ok, false);
      assert.match(env.reason!, /lock/);
      assert.ok(env.reason!.includes(join(w.sb.data, "LOCK")), env.reason!);
      assert.deepEqual(env.data, { notes: [], regenerated: 0, selected: 0, since: null });
      const h = await w.run(["observations", "regenerate"], at);
      assert.equal(h.code, 1);
      assert.equal(h.out, "");
      assert.match(h.err, /lock/);
      assert.equal(rows().get(k2)!.m, '{"stale":true}', "nothing was written under a held lock");
    } finally {
      lock.release();
    }
    const ok = await w.run(["observations", "regenerate", "--json"], at);
    assert.equal(ok.code, 0, "the lock was the only thing in the way");
    assert.equal(rows().get(k2)!.m, before.get(k2)!.m);
  });
});
