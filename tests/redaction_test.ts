/**
 * [privacy] redact_recall: secret-shaped text is filtered out of search excerpts and show
 * records on the way out, --raw prints them unfiltered, and the archive is never changed.
 */
import assert from "node:assert/strict";
import { parseEnvelope, writeConfig } from "./helpers.ts";
import { redact } from "../core/egress.ts";
import { equalBytes, hitsOf, ingest, put, splitLines, Transcript, world } from "./read_helpers.ts";

const JWT =
  "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
const GH = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
const SK = "sk-proj-abcdefghijklmnopqrst";
const PEM =
  "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1pem\nabc\n-----END RSA PRIVATE KEY-----";

Deno.test("redact: each rule, by shape", () => {
  const cases: [string, string][] = [
    [`key ${PEM} done`, "key [redacted:a-pem-private-key] done"],
    ["-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "[redacted:a-pem-private-key]"],
    [
      "postgres://admin:hunter2@db.example.com:5432/app",
      "postgres://[redacted:connection-url-userinfo]@db.example.com:5432/app",
    ],
    ["Authorization: Bearer abc.def rest", "Authorization: [redacted] rest"],
    ["X-Api-Key: k123 rest", "X-Api-Key: [redacted] rest"],
    ['{"password": "hunter2", "user": "bob"}', '{"password": "[redacted]", "user": "bob"}'],
    ["export GITHUB_TOKEN=abc123 next", "export GITHUB_TOKEN=[redacted] next"],
    ['PGPASSWORD="a b c" psql', "PGPASSWORD=[redacted] psql"],
    [
      "mysql --password hunter2 -u root",
      "mysql --password [redacted:a-command-line-flag-value] -u root",
    ],
    [`auth ${JWT} end`, "auth [redacted:a-json-web-token] end"],
    [`push ${GH} end`, "push [redacted:a-github-token] end"],
    ["pat github_pat_11ABCDEFG_xyz123 end", "pat [redacted:a-github-token] end"],
  ];
  for (const [input, want] of cases) {
    assert.equal(redact(input), want, input);
    assert.equal(redact(want), want, `not idempotent on ${want}`);
  }
  const sk = redact(`use ${SK} here`);
  assert.match(sk, /^use \[redacted:[^\]\s]+\] here$/);
  assert.ok(!sk.includes("abcdefghij"));
  // plain text passes
  for (const s of ["nothing secret here", "the key idea", "a-b=c", "Bearer of news"]) {
    assert.equal(redact(s), s);
  }
});

Deno.test("redact: idempotent over mixed text", () => {
  const frags = [
    "token",
    "password",
    "api_key",
    "Authorization",
    "Bearer",
    ":",
    " ",
    "=",
    '"',
    "'",
    "-",
    "--",
    "@",
    "://",
    "pg",
    JWT.slice(0, 30),
    ".",
    "ghp_",
    "abcdef123456",
    "sk-",
    "abcdefghijk",
    "\n",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "\\",
    "{",
    "}",
    ",",
    "x",
    "[redacted]",
    "SECRET",
  ];
  let seed = 7;
  const rnd = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let i = 0; i < 20_000; i++) {
    let s = "";
    const n = 1 + Math.floor(rnd() * 10);
    for (let j = 0; j < n; j++) s += frags[Math.floor(rnd() * frags.length)];
    const once = redact(s);
    assert.equal(redact(once), once, JSON.stringify(s));
  }
});

/** Every key path of a JSON value, so a filtered body can be held to "no key added or removed". */
function keyPaths(v: unknown, at = "", out: string[] = []): string[] {
  if (Array.isArray(v)) v.forEach((x, i) => keyPaths(x, `${at}[${i}]`, out));
  else if (v !== null && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) {
      out.push(`${at}.${k}`);
      keyPaths(x, `${at}.${k}`, out);
    }
  }
  return out;
}

function stringLeaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) v.forEach((x) => stringLeaves(x, out));
  else if (v !== null && typeof v === "object") {
    Object.values(v).forEach((x) => stringLeaves(x, out));
  }
  return out;
}

Deno.test("redact_recall: search excerpts and show records", async (t) => {
  await using w = await world();
  const alpha = w.dir("alpha");
  const x = new Transcript({
    sessionId: "eeeeeeee-0000-4000-8000-00000000000e",
    cwd: alpha,
    start: "2026-01-05T10:00:00.000Z",
  });
  // [word to find the turn by, the turn, the marker it must carry, the secret it must not]
  const cases: { word: string; uuid: string; marker: RegExp; secret: string }[] = [];
  const add = (word: string, uuid: string, marker: string, secret: string) =>
    cases.push({ word, uuid, marker: new RegExp(marker.replace(/[[\]]/g, "\\$&")), secret });

  add(
    "pemcase",
    x.user(`pemcase the key is ${PEM} done`),
    "[redacted:a-pem-private-key]",
    "MIIEowIBAAKCAQEA1pem",
  );
  x.toolUse("Bash", { command: "head -3 ~/.ssh/id_rsa", description: "peek" });
  add(
    "OPENSSH",
    x.toolResult("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAheadpem"),
    "[redacted:a-pem-private-key]",
    "b3BlbnNzaC1rZXktdjEAAAAAheadpem",
  );
  add(
    "urlcase",
    x.user("urlcase connect to postgres://admin:hunter2pw@db.example.com:5432/app"),
    "[redacted:connection-url-userinfo]",
    "hunter2pw",
  );
  add(
    "headercase",
    x.toolUse("Bash", {
      command: 'curl -H "Authorization: Bearer tok3nvalue" https://api.example.com/headercase',
    }),
    "Authorization: [redacted]",
    "tok3nvalue",
  );
  add(
    "jsoncase",
    x.toolResult('{"password": "jsonpw123", "user": "jsoncase"}'),
    '"password": "[redacted]"',
    "jsonpw123",
  );
  add(
    "assigncase",
    x.toolUse("Bash", { command: "export API_TOKEN=envtok456 && deploy assigncase" }),
    "API_TOKEN=[redacted]",
    "envtok456",
  );
  add(
    "quotedcase",
    x.toolUse("Bash", { command: 'PGPASSWORD="quotedpw789" psql quotedcase' }),
    "PGPASSWORD=[redacted]",
    "quotedpw789",
  );
  add(
    "flagcase",
    x.toolUse("Bash", { command: "mysql --password flagpw000 -u root flagcase" }),
    "[redacted:a-command-line-flag-value]",
    "flagpw000",
  );
  add(
    "flagend",
    x.toolUse("Bash", { command: "flagend login --token flagtok111" }),
    "[redacted:a-command-line-flag-value]",
    "flagtok111",
  );
  add("jwtcase", x.user(`jwtcase ${JWT}`), "[redacted:a-json-web-token]", JWT.slice(-20));
  add("ghcase", x.user(`ghcase ${GH}`), "[redacted:a-github-token]", GH);
  add("skcase", x.user(`skcase ${SK}`), "[redacted:", SK);
  add(
    "inputcase",
    x.toolUse("Deploy", { target: "prod inputcase", api_key: "inputkey222" }),
    "[redacted]",
    "inputkey222",
  );
  add(
    "resultcase",
    x.toolResult("resultcase ok", {
      toolUseResult: { stdout: "resultcase ok", access_token: "resulttok444" },
    }),
    "[redacted]",
    "resulttok444",
  );
  add(
    "attachcase",
    x.turn("attachment", {
      attachment: { type: "hook_success", content: "attachcase ok", auth_token: "attachtok333" },
    }),
    "[redacted]",
    "attachtok333",
  );
  const file = await put(w, x);
  await ingest(w);
  const id = w.ids();
  const lines = splitLines(await Deno.readFile(file));
  const lineOf = new Map(x.turns.map((u, i) => [u, lines[i]]));
  const at = { cwd: alpha };

  await t.step("off by default: excerpts carry the text as archived", async () => {
    for (const c of cases) {
      const hits = hitsOf(await w.json(["search", c.word], at));
      const h = hits.find((h) => h.turn_id === id.get(c.uuid));
      assert.ok(h, c.word);
      assert.ok(h.excerpt.includes(c.secret), `${c.word}: ${h.excerpt}`);
    }
  });

  await writeConfig(w.sb, "[privacy]\nredact_recall = true\n");

  await t.step("search excerpts carry a marker for each rule, --raw does not", async () => {
    for (const c of cases) {
      const hits = hitsOf(await w.json(["search", c.word], at));
      const h = hits.find((h) => h.turn_id === id.get(c.uuid));
      assert.ok(h, c.word);
      assert.match(h.excerpt, c.marker, `${c.word}: ${h.excerpt}`);
      assert.ok(!h.excerpt.includes(c.secret), `${c.word} leaked: ${h.excerpt}`);
      if (["headercase", "inputcase", "OPENSSH"].includes(c.word)) {
        const human = await w.run(["search", c.word], at);
        assert.ok(!human.out.includes(c.secret), `${c.word} leaked in human output`);
      }

      const raw = hitsOf(await w.json(["search", c.word, "--raw"], at));
      const r = raw.find((h) => h.turn_id === id.get(c.uuid));
      assert.ok(r && r.excerpt.includes(c.secret), `${c.word} --raw: ${r?.excerpt}`);
    }
  });

  await t.step("show bodies carry the markers and keep every key", async () => {
    const all = cases.map((c) => String(id.get(c.uuid)));
    const env = await w.json(["show", ...all], at);
    const records = (env.data as { records: { turn_id: number; body: string }[] }).records;
    assert.equal(records.length, cases.length);
    for (const [i, c] of cases.entries()) {
      const body = records[i].body;
      assert.ok(!body.includes(c.secret), `${c.word} leaked: ${body}`);
      const original = JSON.parse(new TextDecoder().decode(lineOf.get(c.uuid)!));
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch (e) {
        assert.fail(`${c.word}: the filtered body is no longer JSON (${e}): ${body}`);
      }
      assert.deepEqual(
        keyPaths(parsed),
        keyPaths(original),
        `${c.word}: a key was added or removed`,
      );
      const text = stringLeaves(parsed).join("\n");
      assert.match(text, c.marker, `${c.word}: ${text}`);
      if (c.word !== "OPENSSH") {
        assert.ok(text.includes(c.word), `${c.word}: the rest of the text went too`);
      }
    }
    const human = await w.run(["show", ...all], at);
    assert.equal(human.code, 0);
    for (const c of cases) {
      assert.ok(!human.out.includes(c.secret), `${c.word} leaked in human show`);
    }
  });

  await t.step("show --raw prints the archived line byte for byte", async () => {
    const all = cases.map((c) => String(id.get(c.uuid)));
    const r = await w.run(["show", ...all, "--raw"], at);
    assert.equal(r.code, 0);
    const got = splitLines(r.stdout);
    assert.equal(got.length, 2 * cases.length);
    for (const [i, c] of cases.entries()) {
      assert.ok(
        equalBytes(got[2 * i + 1], lineOf.get(c.uuid)!),
        `${c.word}: --raw is not the line`,
      );
    }
    const j = await w.json(["show", ...all, "--raw"], at);
    const bodies = (j.data as { records: { body: string }[] }).records.map((x) => x.body);
    assert.deepEqual(bodies, cases.map((c) => new TextDecoder().decode(lineOf.get(c.uuid)!)));
  });

  await t.step("the --before/--after window is filtered too", async () => {
    const mid = cases.find((c) => c.word === "urlcase")!;
    const env = await w.json(
      ["show", String(id.get(mid.uuid)), "--before", "25", "--after", "25"],
      at,
    );
    const ctx = (env.data as { records: { context: { turns: { text: string }[] } }[] }).records[0]
      .context;
    const text = ctx.turns.map((x) => x.text).join("\n");
    for (const c of cases) assert.ok(!text.includes(c.secret), `${c.word} leaked in the window`);
    const raw = await w.json(
      ["show", String(id.get(mid.uuid)), "--before", "25", "--after", "25", "--raw"],
      at,
    );
    const rawText = (raw.data as { records: { context: { turns: { text: string }[] } }[] })
      .records[0]
      .context.turns.map((x) => x.text).join("\n");
    assert.ok(rawText.includes("hunter2pw"));
  });

  await t.step("the archive itself is unchanged", async () => {
    await writeConfig(w.sb, "");
    const r = await w.run(["show", ...cases.map((c) => String(id.get(c.uuid)))], at);
    const got = splitLines(r.stdout);
    for (const [i, c] of cases.entries()) {
      assert.ok(equalBytes(got[2 * i + 1], lineOf.get(c.uuid)!), c.word);
    }
    const h = hitsOf(await w.json(["search", "ghcase"], at));
    assert.ok(h[0].excerpt.includes(GH), "setting it back to false returns everything unfiltered");
    const env = parseEnvelope((await w.run(["search", "ghcase", "--json"], at)).out);
    assert.equal(env.ok, true);
  });
});
