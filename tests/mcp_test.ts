/**
 * The MCP server's three recall tools, driven by the SDK's own Client over an in-memory
 * transport against `createServer`, wired the way `serveStdio` wires it. The store is real,
 * built by the CLI's `ingest`; the raw JSON-RPC messages are read as they arrive.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { answerNonObjectArguments, createServer, stampResults } from "../mcp/server.ts";
import { VERSION } from "../core/constants.ts";
import {
  cliOk,
  parseEnvelope,
  type Sandbox,
  sandbox,
  sortedStringify,
  writeConfig,
} from "./helpers.ts";
import {
  ALPHA,
  BETA,
  daysAgo,
  ingestSettled,
  SECRET,
  Session,
  sid,
  turnIdOf,
} from "./inject_helpers.ts";

type Doc = Record<string, unknown>;

const SEARCH_KEYS = ["hits", "reason"];
const CONTEXT_KEYS = ["at_session_end", "at_session_start", "continues_from", "reason", "turns"];
const GET_KEYS = ["absent", "reason", "records"];
/** 40 distinct words, more than a query keeps (32). */
const WORDS = Array.from(
  { length: 40 },
  (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}x`,
);
const TOKEN = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt".repeat(2);

interface World {
  sb: Sandbox;
  /** ALPHA's 70 turns, in order. */
  alpha: number[];
  beta: number;
  secret: number;
  tokenTurn: number;
}

/** ALPHA: one session of 70 turns, each saying "frobnicate"; BETA: one; SECRET: one, excluded. */
async function world(): Promise<World> {
  const sb = await sandbox();
  const a = new Session(sid(0x61), ALPHA, daysAgo(3));
  const uuids: string[] = [];
  for (let i = 0; i < 35; i++) {
    uuids.push(a.user(`frobnicate step ${i}: what does the worker do here`));
    uuids.push(a.assistant(`frobnicate reply ${i}: the worker retries`));
  }
  await a.write(sb);
  const b = new Session(sid(0x62), BETA, daysAgo(2));
  const beta = b.user("frobnicate in beta");
  b.user(WORDS.join(" "));
  const tok = b.assistant(`the deploy key is ${TOKEN} in beta`);
  await b.write(sb);
  const s = new Session(sid(0x63), SECRET, daysAgo(2));
  const secret = s.user("frobnicate in the secret project");
  await s.write(sb);
  await ingestSettled(sb);
  await writeConfig(sb, `exclude = ["${SECRET}"]\n`);
  return {
    sb,
    alpha: uuids.map((u) => turnIdOf(sb, u)),
    beta: turnIdOf(sb, beta),
    secret: turnIdOf(sb, secret),
    tokenTurn: turnIdOf(sb, tok),
  };
}

interface Conn extends AsyncDisposable {
  client: Client;
  /** Every message the server sent, as it arrived. */
  raw: JSONRPCMessage[];
  /** A raw request, answered by its id. */
  rawCall(method: string, params: unknown): Promise<JSONRPCMessage>;
  call(name: string, args?: unknown): Promise<{ isError: boolean; doc: Doc; result: Doc }>;
}

let rawId = 1_000_000;

/** A client connected to `createServer`, wired as serveStdio wires the stdio transport. */
async function connect(
  vars: Record<string, string>,
  cwd: () => string,
): Promise<Conn> {
  const map = new Map(Object.entries(vars));
  const env = (name: string) => map.get(name);
  const [clientT, serverT] = InMemoryTransport.createLinkedPair();
  const server = createServer(env, cwd);
  stampResults(serverT);
  await server.connect(serverT);
  answerNonObjectArguments(serverT, env, cwd);

  const raw: JSONRPCMessage[] = [];
  let inner: ((m: JSONRPCMessage, extra?: unknown) => void) | undefined;
  Object.defineProperty(clientT, "onmessage", {
    configurable: true,
    get: () =>
      inner &&
      ((m: JSONRPCMessage, extra?: unknown) => {
        raw.push(structuredClone(m));
        inner!(m, extra);
      }),
    set: (f) => (inner = f),
  });
  const client = new Client({ name: "terminus-test", version: "0.0.0" });
  await client.connect(clientT);

  const waitFor = async (id: number): Promise<JSONRPCMessage> => {
    for (let i = 0; i < 2000; i++) {
      const m = raw.find((x) => (x as { id?: unknown }).id === id);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 5));
    }
    throw new Error(`no answer to request ${id}`);
  };
  return {
    client,
    raw,
    async rawCall(method, params) {
      const id = rawId++;
      await clientT.send({ jsonrpc: "2.0", id, method, params } as JSONRPCMessage);
      return waitFor(id);
    },
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args as Doc }) as Doc;
      return checkResult(result);
    },
    async [Symbol.asyncDispose]() {
      await client.close();
      await server.close();
    },
  };
}

/** One text block holding a compact document with sorted keys; returns it parsed. */
function checkResult(result: Doc): { isError: boolean; doc: Doc; result: Doc } {
  const content = result.content as { type: string; text: string }[];
  assert.equal(content.length, 1, "one block");
  assert.equal(content[0].type, "text");
  const text = content[0].text;
  const doc = JSON.parse(text);
  assert.equal(text, sortedStringify(doc), "compact, keys sorted at every depth");
  assert.equal(typeof result.isError, "boolean");
  return { isError: result.isError as boolean, doc, result };
}

function envFor(sb: Sandbox): Record<string, string> {
  return { TERMINUS_DATA_DIR: sb.data, TERMINUS_CONFIG_DIR: sb.config, HOME: sb.home };
}

/** A failed or empty document: the success keys, every list empty, every flag false, a reason. */
function assertEmptyDoc(doc: Doc, keys: string[], what: string) {
  assert.deepEqual(Object.keys(doc), keys, what);
  for (const [k, v] of Object.entries(doc)) {
    if (k === "reason") {
      assert.equal(typeof v, "string", `${what}: reason`);
      assert.ok((v as string).length > 0, `${what}: reason`);
    } else if (Array.isArray(v)) assert.deepEqual(v, [], `${what}: ${k}`);
    else if (typeof v === "boolean") assert.equal(v, false, `${what}: ${k}`);
    else assert.equal(v, null, `${what}: ${k}`);
  }
}

function stamped(result: Doc, what: string) {
  assert.equal(result.resultType, "complete", `${what}: resultType`);
  assert.deepEqual(
    result._meta,
    { "io.modelcontextprotocol/serverInfo": { name: "terminus", version: VERSION } },
    `${what}: _meta`,
  );
}

/* ---------- the tests ---------- */

Deno.test("mcp: tools/list names three read-only tools with closed schemas; initialize and every result carry resultType and serverInfo", async () => {
  const w = await world();
  await using _sb = w.sb;
  await using c = await connect(envFor(w.sb), () => ALPHA);
  const tools = (await c.client.listTools()).tools as {
    name: string;
    description?: string;
    inputSchema: { type: string; required?: string[]; properties?: Doc } & Doc;
    annotations?: Doc;
  }[];
  assert.deepEqual(tools.map((t) => t.name), ["recall_search", "recall_context", "recall_get"]);
  const required: Record<string, string[]> = {
    recall_search: ["query"],
    recall_context: ["turn_id"],
    recall_get: ["turn_ids"],
  };
  for (const t of tools) {
    assert.equal(t.annotations?.readOnlyHint, true, t.name);
    assert.equal(t.annotations?.destructiveHint, false, t.name);
    assert.equal(t.annotations?.idempotentHint, true, t.name);
    assert.equal(t.annotations?.openWorldHint, false, t.name);
    assert.equal(t.inputSchema.type, "object");
    assert.equal(t.inputSchema.additionalProperties, false, t.name);
    assert.deepEqual(t.inputSchema.required, required[t.name]);
    assert.ok("project" in (t.inputSchema.properties ?? {}), `${t.name} takes a project`);
    assert.ok(t.description && !t.description.includes("\n"), `${t.name}: one-line description`);
  }
  await c.call("recall_search", { query: "frobnicate" });
  await c.call("recall_get", { turn_ids: [] }); // an error result
  await c.rawCall("tools/call", { name: "recall_get", arguments: "not an object" });
  const results = c.raw.filter((m) => "result" in m) as unknown as { result: Doc }[];
  assert.ok(results.length >= 5, `${results.length} results seen`);
  const init = results[0].result;
  assert.ok("serverInfo" in init && "protocolVersion" in init, "the first result is initialize's");
  for (const [i, m] of results.entries()) stamped(m.result, `result ${i}`);
});

Deno.test("mcp: recall_search answers as terminus search does, scoped to the session's project; * reaches every project but an excluded one", async () => {
  const w = await world();
  await using _sb = w.sb;
  await using c = await connect(envFor(w.sb), () => `${ALPHA}/src`);

  const mine = await c.call("recall_search", { query: "frobnicate" });
  assert.equal(mine.isError, false);
  stamped(mine.result, "recall_search");
  assert.deepEqual(Object.keys(mine.doc), SEARCH_KEYS);
  const hits = mine.doc.hits as Doc[];
  assert.equal(hits.length, 10, "limit defaults to 10");
  assert.equal(mine.doc.reason, null);
  for (const h of hits) {
    assert.equal(h.project, ALPHA);
    assert.ok(!("matched_on" in h));
    assert.equal(typeof h.session_no, "number", "the session's number");
    assert.ok(h.title === null || typeof h.title === "string", "and its title");
    assert.deepEqual(Object.keys(h), [
      "entity_score",
      "excerpt",
      "match",
      "project",
      "record_type",
      "relevance",
      "session_key",
      "session_no",
      "sidechain",
      "title",
      "ts",
      "turn_id",
    ]);
  }
  assert.ok(hits.some((h) => typeof h.title === "string" && h.title !== ""), "titles are filled");
  // the same search terminus search runs
  const cli = parseEnvelope(
    (await cliOk(w.sb, ["search", "frobnicate", "--project", ALPHA, "--json"])).out,
  ).data.hits as Doc[];
  assert.deepEqual(hits, cli.map(({ matched_on: _, ...h }) => h));

  const all = await c.call("recall_search", { query: "frobnicate", project: "*", limit: 50 });
  const ids = (all.doc.hits as Doc[]).map((h) => h.turn_id);
  assert.ok(ids.includes(w.beta), "* reaches BETA");
  assert.ok(!ids.includes(w.secret), "* never reaches an excluded project");
  assert.ok(!(mine.doc.hits as Doc[]).some((h) => h.turn_id === w.beta));

  const beta = await c.call("recall_search", { query: "frobnicate", project: BETA });
  assert.deepEqual((beta.doc.hits as Doc[]).map((h) => h.turn_id), [w.beta]);

  const secret = await c.call("recall_search", { query: "frobnicate", project: SECRET });
  assert.equal(secret.isError, false);
  assertEmptyDoc(secret.doc, SEARCH_KEYS, "an excluded project");
});

Deno.test("mcp: recall_get and recall_context see another project's turn only with its project or *, and an excluded one never", async () => {
  const w = await world();
  await using _sb = w.sb;
  await using c = await connect(envFor(w.sb), () => ALPHA);

  const get = await c.call("recall_get", { turn_ids: [w.alpha[0], w.beta, w.secret] });
  assert.equal(get.isError, false);
  assert.deepEqual(Object.keys(get.doc), GET_KEYS);
  const recs = get.doc.records as Doc[];
  assert.deepEqual(recs.map((r) => r.turn_id), [w.alpha[0]]);
  assert.deepEqual(Object.keys(recs[0]), [
    "body",
    "body_evicted",
    "project",
    "record_type",
    "session_key",
    "tool_name",
    "ts",
    "turn_id",
    "turn_seq",
  ]);
  assert.match(recs[0].body as string, /frobnicate step 0/);
  const absent = get.doc.absent as { turn_id: number; reason: string }[];
  assert.deepEqual(absent.map((a) => a.turn_id), [w.beta, w.secret]);
  assert.equal(absent[1].reason, `no turn ${w.secret} is archived`);
  assert.equal(get.doc.reason, null);

  const star = await c.call("recall_get", { turn_ids: [w.beta, w.secret], project: "*" });
  assert.deepEqual((star.doc.records as Doc[]).map((r) => r.turn_id), [w.beta]);
  assert.deepEqual((star.doc.absent as Doc[]).map((a) => a.turn_id), [w.secret]);

  const onlySecret = await c.call("recall_get", { turn_ids: [w.secret], project: "*" });
  assert.equal(onlySecret.isError, false);
  assert.deepEqual(onlySecret.doc.records, []);
  assert.equal(onlySecret.doc.reason, `no turn ${w.secret} is archived`, "the first absent reason");

  const ctxOther = await c.call("recall_context", { turn_id: w.beta });
  assert.equal(ctxOther.isError, false);
  assertEmptyDoc(ctxOther.doc, CONTEXT_KEYS, "another project's turn");
  const ctxStar = await c.call("recall_context", { turn_id: w.beta, project: "*" });
  const turns = ctxStar.doc.turns as Doc[];
  assert.equal(turns.length, 3, "BETA's three turns");
  assert.equal(turns[0].turn_id, w.beta);
  assert.equal(turns[2].turn_id, w.tokenTurn);
  assert.equal(ctxStar.doc.at_session_start, true);
  assert.equal(ctxStar.doc.at_session_end, true);
  const ctxSecret = await c.call("recall_context", { turn_id: w.secret, project: "*" });
  assertEmptyDoc(ctxSecret.doc, CONTEXT_KEYS, "an excluded project's turn");
});

Deno.test("mcp: clamps: limit 80 -> 50, before/after 99 -> 25, turn_ids past 25 unread, repeated ids dropped keeping first place", async () => {
  const w = await world();
  await using _sb = w.sb;
  await using c = await connect(envFor(w.sb), () => ALPHA);

  const s = await c.call("recall_search", { query: "frobnicate", limit: 80 });
  assert.equal(s.isError, false);
  assert.equal((s.doc.hits as Doc[]).length, 50);
  assert.match(s.doc.reason as string, /50/);
  const fifty = await c.call("recall_search", { query: "frobnicate", limit: 50 });
  assert.equal(fifty.doc.reason, null);

  const anchor = w.alpha[35];
  const ctx = await c.call("recall_context", { turn_id: anchor, before: 99, after: 99 });
  assert.equal(ctx.isError, false);
  const turns = ctx.doc.turns as Doc[];
  assert.deepEqual(turns.map((t) => t.turn_id), w.alpha.slice(10, 61));
  assert.deepEqual(turns.filter((t) => t.is_anchor).map((t) => t.turn_id), [anchor]);
  assert.match(ctx.doc.reason as string, /25/);
  assert.equal(ctx.doc.at_session_start, false);
  assert.equal(ctx.doc.at_session_end, false);
  const dflt = await c.call("recall_context", { turn_id: anchor });
  assert.deepEqual((dflt.doc.turns as Doc[]).map((t) => t.turn_id), w.alpha.slice(30, 41));
  assert.equal(dflt.doc.reason, null);
  const onlyAfter = await c.call("recall_context", { turn_id: anchor, before: 0, after: 99 });
  assert.deepEqual((onlyAfter.doc.turns as Doc[]).map((t) => t.turn_id), w.alpha.slice(35, 61));
  assert.match(onlyAfter.doc.reason as string, /25/);
  const end = await c.call("recall_context", { turn_id: w.alpha[68], after: 5 });
  assert.equal(end.doc.at_session_end, true, "stops at the session's end");
  assert.deepEqual((end.doc.turns as Doc[]).map((t) => t.turn_id), w.alpha.slice(63, 70));

  const thirty = w.alpha.slice(0, 30);
  const many = await c.call("recall_get", { turn_ids: thirty });
  assert.equal(many.isError, false);
  assert.deepEqual((many.doc.records as Doc[]).map((r) => r.turn_id), thirty.slice(0, 25));
  assert.deepEqual(many.doc.absent, []);
  assert.match(many.doc.reason as string, /25/);

  // the query cut to its first terms: still a reason, after the limit's
  const cut = await c.call("recall_search", {
    query: [...WORDS, "absentword"].join(" "),
    project: BETA,
  });
  assert.equal((cut.doc.hits as Doc[]).length, 1, JSON.stringify(cut.doc));
  assert.match(cut.doc.reason as string, /cut|first/);
  const cutAndLimit = await c.call("recall_search", {
    query: [...WORDS, "absentword"].join(" "),
    project: BETA,
    limit: 99,
  });
  assert.match(cutAndLimit.doc.reason as string, /50/);

  const [a, b, d] = [w.alpha[5], w.alpha[2], w.alpha[9]];
  const rep = await c.call("recall_get", { turn_ids: [a, b, a, d, b, a] });
  assert.deepEqual((rep.doc.records as Doc[]).map((r) => r.turn_id), [a, b, d]);
  assert.equal(rep.doc.reason, null);
  // 26 ids with repeats among the first 25 places: still only 25 distinct read
  const repeats = [...w.alpha.slice(0, 20), ...w.alpha.slice(0, 20), ...w.alpha.slice(20, 26)];
  const r26 = await c.call("recall_get", { turn_ids: repeats });
  assert.deepEqual((r26.doc.records as Doc[]).map((r) => r.turn_id), w.alpha.slice(0, 25));
  assert.match(r26.doc.reason as string, /25/);
});

Deno.test("mcp: every argument error is isError with the success document's keys, emptied, and a reason", async () => {
  const w = await world();
  await using _sb = w.sb;
  await using c = await connect(envFor(w.sb), () => ALPHA);
  const cases: [string, unknown, string[]][] = [
    ["recall_search", {}, SEARCH_KEYS],
    ["recall_search", { query: null }, SEARCH_KEYS],
    ["recall_search", { query: "" }, SEARCH_KEYS],
    ["recall_search", { query: "   \t" }, SEARCH_KEYS],
    ["recall_search", { query: 5 }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", limit: 0 }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", limit: -1 }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", limit: 2.5 }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", limit: "10" }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", since: "2026-13-45" }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", until: "yesterday" }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", since: "2026-02-30" }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", paths: "src/a.ts" }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", paths: [1] }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", project: 7 }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", tool: ["Bash"] }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", bogus: true }, SEARCH_KEYS],
    ["recall_search", { query: "frobnicate", strict: "yes" }, SEARCH_KEYS],
    ["recall_context", {}, CONTEXT_KEYS],
    ["recall_context", { turn_id: null }, CONTEXT_KEYS],
    ["recall_context", { turn_id: "12" }, CONTEXT_KEYS],
    ["recall_context", { turn_id: -1 }, CONTEXT_KEYS],
    ["recall_context", { turn_id: 1.5 }, CONTEXT_KEYS],
    ["recall_context", { turn_id: w.alpha[3], before: -1 }, CONTEXT_KEYS],
    ["recall_context", { turn_id: w.alpha[3], after: 0.5 }, CONTEXT_KEYS],
    ["recall_context", { turn_id: w.alpha[3], before: "3" }, CONTEXT_KEYS],
    ["recall_get", {}, GET_KEYS],
    ["recall_get", { turn_ids: null }, GET_KEYS],
    ["recall_get", { turn_ids: [] }, GET_KEYS],
    ["recall_get", { turn_ids: w.alpha[0] }, GET_KEYS],
    ["recall_get", { turn_ids: [w.alpha[0], "2"] }, GET_KEYS],
    ["recall_get", { turn_ids: [1.5] }, GET_KEYS],
    ["recall_get", { turn_ids: [-1] }, GET_KEYS],
    ["recall_get", { turn_ids: [null] }, GET_KEYS],
  ];
  for (const [name, args, keys] of cases) {
    const r = await c.call(name, args);
    const what = `${name} ${JSON.stringify(args)}`;
    assert.equal(r.isError, true, `${what}: ${JSON.stringify(r.doc)}`);
    stamped(r.result, what);
    assertEmptyDoc(r.doc, keys, what);
  }
  // arguments that are not an object at all, sent as raw JSON-RPC
  for (
    const [name, keys] of [
      ["recall_search", SEARCH_KEYS],
      ["recall_context", CONTEXT_KEYS],
      ["recall_get", GET_KEYS],
    ] as const
  ) {
    for (const args of ["a string", [1, 2], 42, null, true]) {
      const m = await c.rawCall("tools/call", { name, arguments: args }) as unknown as {
        result?: Doc;
        error?: unknown;
      };
      const what = `${name} with arguments ${JSON.stringify(args)}`;
      assert.ok(m.result, `${what}: ${JSON.stringify(m)}`);
      stamped(m.result, what);
      const r = checkResult(m.result);
      assert.equal(r.isError, true, what);
      assertEmptyDoc(r.doc, keys, what);
    }
  }
});

Deno.test("mcp: an unknown tool, or a call naming none, is a JSON-RPC error with no result", async () => {
  const w = await world();
  await using _sb = w.sb;
  await using c = await connect(envFor(w.sb), () => ALPHA);
  await assert.rejects(() => c.client.callTool({ name: "recall_everything", arguments: {} }));
  for (const params of [{ name: "recall_everything", arguments: {} }, { arguments: {} }, {}]) {
    const m = await c.rawCall("tools/call", params) as unknown as Doc;
    assert.ok("error" in m, JSON.stringify(m));
    assert.ok(!("result" in m), JSON.stringify(m));
    assert.equal(typeof (m.error as Doc).code, "number");
  }
});

Deno.test("mcp: empty answers are not errors: no store, no project covering the directory, an unreadable store, an unreadable working directory", async () => {
  const w = await world();
  await using _sb = w.sb;
  await using sbEmpty = await sandbox();
  const calls: [string, Doc, string[]][] = [
    ["recall_search", { query: "frobnicate" }, SEARCH_KEYS],
    ["recall_context", { turn_id: w.alpha[3] }, CONTEXT_KEYS],
    ["recall_get", { turn_ids: [w.alpha[3]] }, GET_KEYS],
  ];
  const check = async (c: Conn, what: string, extra: Doc = {}) => {
    for (const [name, args, keys] of calls) {
      const r = await c.call(name, { ...args, ...extra });
      assert.equal(r.isError, false, `${what}: ${name}: ${JSON.stringify(r.doc)}`);
      stamped(r.result, what);
      assertEmptyDoc(r.doc, keys, `${what}: ${name}`);
    }
  };
  {
    await using c = await connect(envFor(sbEmpty), () => ALPHA);
    await check(c, "no store");
    assert.equal(await Deno.stat(sbEmpty.data).then(() => true, () => false), false);
  }
  {
    await using c = await connect(envFor(w.sb), () => "/nonexistent/elsewhere");
    await check(c, "no project covers the directory");
  }
  {
    await using c = await connect(envFor(w.sb), () => {
      throw new Error("the working directory was removed");
    });
    await check(c, "an unreadable working directory");
    // a project given explicitly does not need the working directory
    const r = await c.call("recall_search", { query: "frobnicate", project: BETA });
    assert.deepEqual((r.doc.hits as Doc[]).map((h) => h.turn_id), [w.beta]);
  }
  {
    await Deno.mkdir(sbEmpty.data, { recursive: true });
    await Deno.writeFile(
      join(sbEmpty.data, "terminus.db"),
      new TextEncoder().encode("this is not a database ".repeat(500)),
    );
    await using c = await connect(envFor(sbEmpty), () => ALPHA);
    await check(c, "an unreadable store");
  }
  {
    // a search whose words match nothing is an ordinary empty answer too
    await using c = await connect(envFor(w.sb), () => ALPHA);
    const r = await c.call("recall_search", { query: "zyzzyvaqwerty" });
    assert.equal(r.isError, false);
    assertEmptyDoc(r.doc, SEARCH_KEYS, "no match");
  }
});

Deno.test("mcp: with [privacy] redact_recall every result is filtered; the next call reads the edited config", async () => {
  const w = await world();
  await using _sb = w.sb;
  await using c = await connect(envFor(w.sb), () => BETA);
  const plain = await c.call("recall_get", { turn_ids: [w.tokenTurn] });
  assert.ok(((plain.doc.records as Doc[])[0].body as string).includes(TOKEN));
  await writeConfig(w.sb, `exclude = ["${SECRET}"]\n[privacy]\nredact_recall = true\n`);
  const get = await c.call("recall_get", { turn_ids: [w.tokenTurn] });
  const body = (get.doc.records as Doc[])[0].body as string;
  assert.ok(!body.includes(TOKEN), body);
  assert.match(body, /\[redacted:a-github-token\]/);
  const search = await c.call("recall_search", { query: "deploy key" });
  const excerpt = (search.doc.hits as Doc[])[0].excerpt as string;
  assert.ok(!excerpt.includes(TOKEN), excerpt);
  const ctx = await c.call("recall_context", { turn_id: w.tokenTurn });
  for (const t of ctx.doc.turns as Doc[]) assert.ok(!(t.text as string).includes(TOKEN));
});

Deno.test("mcp: imported prompt history never reaches Claude through recall_search", async () => {
  const w = await world();
  await using _sb = w.sb;
  await Deno.writeTextFile(
    join(w.sb.claude, "history.jsonl"),
    JSON.stringify({
      display: "frobnicate zygomorph history-only-marker",
      pastedContents: {},
      timestamp: 1764237600000,
      project: ALPHA,
    }) + "\n",
  );
  await cliOk(w.sb, ["import-history"]);
  // a person finds it
  const found = parseEnvelope(
    (await cliOk(w.sb, ["search", "zygomorph", "--project", ALPHA, "--json"])).out,
  ).data as { history: Doc[] };
  assert.equal(found.history.length, 1);
  // Claude does not, by its own word or with the turns it shares one with
  await using c = await connect(envFor(w.sb), () => `${ALPHA}/src`);
  const own = await c.call("recall_search", { query: "zygomorph" });
  assert.deepEqual(own.doc.hits, []);
  const shared = await c.call("recall_search", { query: "frobnicate", limit: 50 });
  assert.ok((shared.doc.hits as Doc[]).length > 0);
  assert.doesNotMatch(JSON.stringify(shared.doc), /history-only-marker/);
});

Deno.test("mcp: recall_search serves the further answers terminus search gives, and strict the spec's alone", async () => {
  const sb = await sandbox();
  await using _sb = sb;
  const a = new Session(sid(0x71), ALPHA, daysAgo(4));
  a.user("the scheduler stalls under load");
  const prose = a.assistant("The watchdog fires too early; the grace period needs to grow.");
  const edit = a.tool("Edit", {
    file_path: `${ALPHA}/src/kernel/sched_core.ts`,
    old_string: "grace = 5",
    new_string: "grace = 50",
  });
  a.result("The file has been updated.");
  await a.write(sb);
  const b = new Session(sid(0x72), ALPHA, daysAgo(3));
  const rare = b.assistant("the frobozz cache is gone from the reader");
  await b.write(sb);
  await ingestSettled(sb);
  await using c = await connect(envFor(sb), () => ALPHA);

  const cli = async (q: string[], extra: string[] = []) =>
    parseEnvelope((await cliOk(sb, ["search", ...q, "--project", ALPHA, ...extra, "--json"])).out);
  // sessions holding every word across their turns, then turns holding some of them
  const spread = await c.call("recall_search", { query: "sched_core.ts watchdog" });
  assert.equal(spread.isError, false);
  const hits = spread.doc.hits as Doc[];
  const session = hits.filter((h) => h.match === "all_words_session").map((h) => h.turn_id);
  assert.deepEqual(session.sort(), [turnIdOf(sb, prose), turnIdOf(sb, edit)].sort());
  assert.match(spread.doc.reason as string, /no turn holds every word/);
  const viaCli = await cli(["sched_core.ts", "watchdog"]);
  assert.deepEqual(hits, (viaCli.data.hits as Doc[]).map(({ matched_on: _, ...h }) => h));
  assert.equal(spread.doc.reason, viaCli.reason);

  // nothing holds every word: turns holding some of them, the rare word first
  const any = await c.call("recall_search", { query: "why did we drop the frobozz cache" });
  const anyHits = any.doc.hits as Doc[];
  assert.ok(anyHits.length > 0);
  assert.ok(anyHits.every((h) => h.match === "any_word"));
  assert.equal(anyHits[0].turn_id, turnIdOf(sb, rare));
  assert.match(any.doc.reason as string, /nothing holds every word/);

  // strict: the spec's answer alone, which is empty here, with its reason
  const strict = await c.call("recall_search", { query: "sched_core.ts watchdog", strict: true });
  assert.equal(strict.isError, false);
  assertEmptyDoc(strict.doc, SEARCH_KEYS, "strict");
  assert.equal(strict.doc.reason, "no turn matched every word");
  const strictCli = await cli(["sched_core.ts", "watchdog"], ["--strict"]);
  assert.deepEqual(strictCli.data.hits, []);
  // a turn holding every word: all_words_turn either way
  const whole = await c.call("recall_search", { query: "frobozz cache", strict: true });
  assert.deepEqual((whole.doc.hits as Doc[]).map((h) => [h.turn_id, h.match]), [[
    turnIdOf(sb, rare),
    "all_words_turn",
  ]]);
  // nothing to search still finds nothing and says so
  const none = await c.call("recall_search", { query: "///" });
  assertEmptyDoc(none.doc, SEARCH_KEYS, "///");
  assert.equal(none.doc.reason, "the query has no words that can be searched");
});
