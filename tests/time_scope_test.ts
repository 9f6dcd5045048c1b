/**
 * Which project a read command sees (the one you're in, --project, '*', exclusion) and the
 * --since/--until time bounds, across search, show, sessions and observations.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseEnvelope, writeConfig } from "./helpers.ts";
import { type Hit, hitsOf, ingest, put, Transcript, world } from "./read_helpers.ts";

const sortedIds = (h: Hit[]) => h.map((x) => x.turn_id).sort((a, b) => a - b);

Deno.test("time bounds: inclusive, bare dates cover the day, bad values exit 2", async (t) => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const a = new Transcript({
    sessionId: "71717171-0000-4000-8000-000000000001",
    cwd: alpha,
    start: "2026-01-01T00:00:00.000Z",
  });
  const stamps = [
    "2026-01-04T23:59:59.999Z",
    "2026-01-05T00:00:00.000Z",
    "2026-01-05T12:00:00.000Z",
    "2026-01-05T23:59:59.999Z",
    "2026-01-06T00:00:00.000Z",
  ];
  const u = stamps.map((s, i) => a.at(s).user(`boundary probe ${i}`));
  // a leap day, out of order in the file: bounds go by each turn's own time
  const leap = a.at("2024-02-29T08:00:00.000Z").user("boundary probe leap");
  await put(w, a);
  await ingest(w);
  const id = w.ids();
  const at = { cwd: alpha };
  const want = (...uuids: string[]) => uuids.map((x) => id.get(x)!).sort((p, q) => p - q);
  const probe = async (...args: string[]) =>
    sortedIds(hitsOf(await w.json(["search", "boundary", "probe", "--limit", "50", ...args], at)));

  await t.step("search: bare dates and full times, both inclusive", async () => {
    assert.deepEqual(
      await probe("--since", "2026-01-05", "--until", "2026-01-05"),
      want(u[1], u[2], u[3]),
    );
    assert.deepEqual(await probe("--since", "2026-01-05T12:00:00.000Z"), want(u[2], u[3], u[4]));
    assert.deepEqual(
      await probe("--until", "2026-01-05T12:00:00.000Z"),
      want(leap, u[0], u[1], u[2]),
    );
    assert.deepEqual(
      await probe("--since", "2026-01-05T23:59:59.999Z", "--until", "2026-01-06"),
      want(u[3], u[4]),
    );
    assert.deepEqual(await probe("--until", "2026-01-04"), want(leap, u[0]));
    assert.deepEqual(await probe("--since", "2024-02-29", "--until", "2024-02-29"), want(leap));
    assert.deepEqual(await probe("--since", "2026-01-06", "--until", "2026-01-05"), []);
    assert.deepEqual(await probe(), want(leap, ...u));
  });

  await t.step("a value in another form, or not a real time, exits 2 naming the flag", async () => {
    const bad = [
      "2026-02-30",
      "2026-13-01",
      "2026-00-10",
      "2025-02-29",
      "2026-01-05T25:00:00.000Z",
      "2026-01-05T23:60:00.000Z",
      "2026-01-05T23:59:60.000Z",
      "2026-01-05T10:00:00+24:00",
      "2026-01-05T10:00:00.000",
      "2026-01-05 10:00:00.000Z",
      "2026-1-5",
      "yesterday",
      "",
    ];
    const runs: [string, string[]][] = [
      ...bad.map((v): [string, string[]] => ["--since", ["search", "boundary", "--since", v]]),
      ...bad.slice(0, 5).map((v): [string, string[]] => ["--until", ["search", "x", "--until", v]]),
      ...bad.slice(3, 8).map((
        v,
      ): [string, string[]] => ["--since", ["sessions", "--since", v, "--json"]]),
      ...bad.slice(0, 3).map((v): [string, string[]] => ["--until", ["sessions", "--until", v]]),
      ["--until", ["search", "x", "--since", "2026-01-05", "--until", "2026-02-30"]],
    ];
    for (const [flag, args] of runs) {
      const r = await w.run(args, at);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}`);
      assert.equal(r.stdout.length, 0);
      assert.ok(r.err.includes(flag), `${args.join(" ")}: ${r.err}`);
    }
    const regen = await w.run(["observations", "regenerate", "--since", "2026-02-30"], at);
    assert.equal(regen.code, 2);
    assert.match(regen.err, /--since/);
  });
});

Deno.test("scope: the project you're in, --project, '*', and excluded projects", async (t) => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const inner = w.dir("alpha/inner");
  const beta = w.dir("beta");
  const secret = w.dir("secret");
  const secretOther = w.dir("secret-other");
  const repo = w.dir("repo");
  w.dir("repo/sub/deeper");
  const git = await new Deno.Command("git", {
    args: ["init", "-q", repo],
    stdout: "null",
    stderr: "null",
  })
    .output();
  assert.ok(git.success, "git init");

  const session = (n: number, cwd: string, word: string, start = "2026-01-02T10:00:00.000Z") => {
    const t = new Transcript({
      sessionId: `5c09e000-0000-4000-8000-00000000000${n}`,
      cwd,
      start,
    });
    t.user(`scopeword ${word}`);
    t.toolUse("Read", { file_path: join(cwd, `${word}.ts`) });
    t.toolResult(`scopeword ${word} read`);
    return t;
  };
  const sA = session(1, alpha, "alphaword");
  const sI = session(2, inner, "innerword");
  const sB = session(3, beta, "betaword");
  const sS = session(4, secret, "secretword");
  const sO = session(5, secretOther, "otherword");
  const sR = session(6, join(repo, "sub"), "repoword");
  const worktree = w.dir("beta/.claude/worktrees/wt1");
  const sW = session(7, worktree, "worktreeword");
  for (const s of [sA, sI, sB, sS, sO, sR, sW]) await put(w, s);
  await ingest(w);
  const id = w.ids();

  const projectsOf = async (args: string[], cwd: string) =>
    [
      ...new Set(
        hitsOf(await w.json(["search", "scopeword", "--limit", "50", ...args], { cwd }))
          .map((h) => h.project),
      ),
    ].sort();

  await t.step("the project you're in, found by the longest matching path", async () => {
    assert.deepEqual(await projectsOf([], alpha), [alpha]);
    assert.deepEqual(await projectsOf([], w.dir("alpha/src/deep")), [alpha]);
    assert.deepEqual(await projectsOf([], inner), [inner]);
    assert.deepEqual(await projectsOf([], w.dir("alpha/inner/x")), [inner]);
    assert.deepEqual(await projectsOf([], beta), [beta]);
    // a session started in a repository's subfolder belongs to the repository
    assert.deepEqual(await projectsOf([], repo), [repo]);
    assert.deepEqual(await projectsOf([], w.dir("repo/sub/deeper")), [repo]);
    // a worktree under <repo>/.claude/worktrees/ is filed under the repository
    assert.deepEqual(await projectsOf([], worktree), [beta]);
    const s = (await w.json(["sessions"], { cwd: w.dir("beta/.claude/worktrees/wt1/src") })).data
      .sessions as { session_key: string; project: string; project_pre_worktree: string | null }[];
    const wt = s.find((x) => x.session_key === `${sW.o.sessionId}.jsonl`);
    assert.ok(wt);
    assert.equal(wt.project, beta);
    assert.equal(wt.project_pre_worktree, worktree);
    assert.equal(
      s.find((x) => x.session_key === `${sB.o.sessionId}.jsonl`)!.project_pre_worktree,
      null,
    );
  });

  await t.step("--project names a path inside another project; '*' is every project", async () => {
    assert.deepEqual(await projectsOf(["--project", beta], alpha), [beta]);
    assert.deepEqual(await projectsOf(["--project", join(beta, "src", "x.ts")], alpha), [beta]);
    assert.deepEqual(await projectsOf(["--project", "../beta"], alpha), [beta]);
    assert.deepEqual(
      await projectsOf(["--project", "*"], alpha),
      [alpha, inner, beta, secret, secretOther, repo].sort(),
    );
    const sessions = (await w.json(["sessions", "--project", beta], { cwd: alpha })).data
      .sessions as { project: string }[];
    assert.deepEqual(sessions.map((s) => s.project), [beta, beta], "beta and its worktree");
  });

  await t.step("a directory no archived project covers: empty, a reason, exit 0", async () => {
    const nowhere = w.sb.dir;
    for (
      const args of [
        ["search", "scopeword"],
        ["sessions"],
        ["observations"],
        ["show", String(id.get(sA.turns[0]))],
      ]
    ) {
      const r = await w.run([...args, "--json"], { cwd: nowhere });
      assert.equal(r.code, 0, `${args[0]}: ${r.err}`);
      const env = parseEnvelope(r.out);
      assert.equal(env.ok, true);
      assert.ok(env.reason && env.reason.includes(nowhere), `${args[0]}: ${env.reason}`);
      const data = env.data as Record<string, unknown[]>;
      const list = data.hits ?? data.sessions ?? data.observations ?? data.records;
      assert.deepEqual(list, [], args[0]);
      const h = await w.run(args, { cwd: nowhere });
      assert.equal(h.code, 0);
      assert.equal(h.out, "");
      assert.ok(h.err.includes(nowhere), `${args[0]}: ${h.err}`);
    }
    const other = await w.run([
      "search",
      "scopeword",
      "--project",
      "/nonexistent/elsewhere",
      "--json",
    ], {
      cwd: alpha,
    });
    assert.equal(other.code, 0);
    assert.deepEqual(hitsOf(parseEnvelope(other.out)), []);
  });

  await writeConfig(w.sb, `exclude = ["${secret}/"]\n`);

  await t.step("an excluded project is never shown, with '*' too", async () => {
    const everywhere = await projectsOf(["--project", "*"], alpha);
    assert.ok(!everywhere.includes(secret), JSON.stringify(everywhere));
    assert.ok(everywhere.includes(secretOther), "a path covers its subfolders, not its siblings");
    const hits = hitsOf(await w.json(["search", "secretword", "--project", "*"], { cwd: alpha }));
    assert.deepEqual(hits, []);
    const path = hitsOf(
      await w.json([
        "search",
        "secretword",
        "--project",
        "*",
        "--path",
        join(secret, "secretword.ts"),
      ], {
        cwd: alpha,
      }),
    );
    assert.deepEqual(path, []);

    const sessions = (await w.json(["sessions", "--project", "*"], { cwd: alpha })).data
      .sessions as { project: string }[];
    assert.ok(!sessions.some((s) => s.project === secret));
    assert.equal(sessions.length, 6);

    for (const project of ["*", secret]) {
      const r = await w.run(["show", String(id.get(sS.turns[0])), "--project", project, "--json"], {
        cwd: alpha,
      });
      assert.equal(r.code, 0);
      const d = parseEnvelope(r.out).data as { records: unknown[]; absent: { turn_id: number }[] };
      assert.deepEqual(d.records, []);
      assert.deepEqual(d.absent.map((x) => x.turn_id), [id.get(sS.turns[0])]);
      assert.ok(!r.out.includes("secretword"));
    }

    for (const cwd of [secret, join(secret, "sub")]) {
      await Deno.mkdir(cwd, { recursive: true });
      for (const args of [["search", "scopeword"], ["sessions"], ["observations"]]) {
        const r = await w.run([...args, "--json"], { cwd });
        assert.equal(r.code, 0);
        const env = parseEnvelope(r.out);
        assert.ok(env.reason, `${args[0]} from an excluded project gives a reason`);
        assert.ok(!r.out.includes("secretword"));
        const data = env.data as Record<string, unknown[]>;
        assert.deepEqual(data.hits ?? data.sessions ?? data.observations, []);
      }
    }
  });

  await t.step("exclusion binds observations and their regeneration", async () => {
    const obs = (await w.json(["observations", "--project", "*"], { cwd: alpha })).data
      .observations as { session_key: string }[];
    assert.equal(obs.length, 6, "the six visible closed sessions");
    assert.ok(!obs.some((o) => o.session_key === `${sS.o.sessionId}.jsonl`));
    const regen = await w.json(["observations", "regenerate"], { cwd: alpha });
    assert.equal((regen.data as { selected: number }).selected, 6);
  });
});
