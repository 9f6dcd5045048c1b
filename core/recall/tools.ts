/**
 * The three recall tools' documents (recall_search, recall_context, recall_get), independent
 * of the MCP wire: argument rules, defaults and clamps, scope, exclusion and redaction.
 * Misuse comes back as `{ misuse: true }` with the document's reason; every other empty
 * answer is an ordinary document with a reason.
 */
import { noStoreYet } from "../errors.ts";
import type { Config } from "../config.ts";
import { type Db, openRead } from "../store/db.ts";
import { initReader } from "../store/codec.ts";
import { egress } from "../egress.ts";
import { BOUND_FORMS, parseBound } from "../time.ts";
import {
  CONTEXT_DEFAULT,
  CONTEXT_MAX,
  GET_MAX_IDS,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
} from "../constants.ts";
import { EVERY_PROJECT_MCP, resolveScope } from "../open.ts";
import type { Visibility } from "../store/visibility.ts";
import { NO_WORDS_REASON, parseQuery } from "./query.ts";
import { UsageError } from "../errors.ts";
import { hitDoc, runSearch } from "./search.ts";
import { contextWindow, emptyContext, readRecord, type RecordDoc, visibleTurn } from "./records.ts";
import { normalisePath } from "../posix.ts";

export interface ToolEnv {
  cfg: Config;
  store: string;
  /** The server's working directory (the session's project), or null if unreadable. */
  cwd: string | null;
}

export interface ToolAnswer {
  doc: Record<string, unknown>;
  misuse: boolean;
}

type Args = Record<string, unknown>;

class Misuse extends Error {}

const isObj = (v: unknown): v is Args => typeof v === "object" && v !== null && !Array.isArray(v);

function check(args: unknown, allowed: string[]): Args {
  if (!isObj(args)) throw new Misuse("arguments must be an object");
  for (const k of Object.keys(args)) {
    if (!allowed.includes(k)) {
      throw new Misuse(`unknown argument '${k}'; this tool takes ${allowed.join(", ")}`);
    }
  }
  return args;
}

function optString(a: Args, k: string): string | undefined {
  const v = a[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new Misuse(`${k} must be a string`);
  return v;
}

function flag(a: Args, k: string): boolean {
  const v = a[k];
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") throw new Misuse(`${k} must be true or false`);
  return v;
}

function count(a: Args, k: string): number | undefined {
  const v = a[k];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number") throw new Misuse(`${k} must be a number`);
  if (!Number.isInteger(v) || v < 0) {
    throw new Misuse(`${k} must be a whole number, not negative; got ${v}`);
  }
  return v;
}

function bound(a: Args, k: string, end: "start" | "end"): string | null {
  const v = optString(a, k);
  if (v === undefined) return null;
  const b = parseBound(v, end);
  if (b === null) {
    throw new Misuse(
      `${k} takes ${BOUND_FORMS}; '${v}' is not a real date or time in either form`,
    );
  }
  return b;
}

/** What one argument of a recall tool holds: its JSON Schema and its check come from this. */
type Arg =
  /** The words to search: required, a string, not blank. */
  | { type: "query"; description: string }
  | { type: "text"; description: string }
  /** A time bound: the start or end of a day when only a date is given. */
  | { type: "time"; end: "start" | "end"; description: string }
  | { type: "count"; description: string; min: number; required?: boolean }
  | { type: "flag"; description: string }
  /** Paths matched exactly, at most GET_MAX_IDS of them. */
  | { type: "paths"; description: string }
  /** One or more turn ids. */
  | { type: "turn_ids"; description: string };

/** One recall tool, whole: its name, what it says of itself, its arguments and its answer. */
export interface ToolDef {
  name: string;
  title: string;
  description: string;
  /** In the order the tool lists them; every one not marked required may be left out. */
  args: Record<string, Arg>;
  run: (getEnv: () => ToolEnv, args: unknown) => Promise<ToolAnswer>;
}

const PROJECT_ARG: Arg = {
  type: "text",
  description:
    "A path inside the project to answer about, or * for every project; default: this session's project",
};
const TIME_FORMS = "UTC time, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS.mmmZ";

const required = (a: Arg) =>
  a.type === "query" || a.type === "turn_ids" || (a.type === "count" && a.required === true);

/** The JSON Schema a tool's arguments table describes (the MCP tool listing shows it). */
export function inputSchema(args: Record<string, Arg>): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [k, a] of Object.entries(args)) {
    const d = { description: a.description };
    properties[k] = a.type === "count"
      ? { type: "integer", minimum: a.min, ...d }
      : a.type === "flag"
      ? { type: "boolean", ...d }
      : a.type === "paths"
      ? { type: "array", items: { type: "string" }, maxItems: GET_MAX_IDS, ...d }
      : a.type === "turn_ids"
      ? { type: "array", items: { type: "integer" }, minItems: 1, ...d }
      : { type: "string", ...d };
  }
  const req = Object.entries(args).filter(([, a]) => required(a)).map(([k]) => k);
  return { type: "object", properties, required: req, additionalProperties: false };
}

/** Checks one argument by its table entry: its value, or the misuse that names it. */
function read(a: Args, k: string, arg: Arg): unknown {
  const v = a[k];
  const absent = v === undefined || v === null;
  switch (arg.type) {
    case "query":
      if (absent) throw new Misuse(`${k} is required`);
      if (typeof v !== "string") throw new Misuse(`${k} must be a string`);
      if (v.trim() === "") throw new Misuse(`${k} is empty`);
      return v;
    case "text":
      return optString(a, k);
    case "time":
      return bound(a, k, arg.end);
    case "flag":
      return flag(a, k);
    case "count": {
      if (arg.required && absent) throw new Misuse(`${k} is required`);
      const n = count(a, k);
      if (n !== undefined && n < arg.min) throw new Misuse(`${k} must be at least ${arg.min}`);
      return n;
    }
    case "paths":
      if (absent) return [];
      if (!Array.isArray(v) || v.some((p) => typeof p !== "string")) {
        throw new Misuse(`${k} must be a list of strings`);
      }
      return (v as string[]).slice(0, GET_MAX_IDS).map(normalisePath);
    case "turn_ids":
      if (absent) throw new Misuse(`${k} is required`);
      if (!Array.isArray(v)) throw new Misuse(`${k} must be a list of turn ids`);
      if (v.length === 0) throw new Misuse(`${k} is empty`);
      if (v.some((x) => typeof x !== "number" || !Number.isInteger(x) || x < 0)) {
        throw new Misuse(`${k} must hold only whole numbers`);
      }
      return v as number[];
  }
}

/** Every argument of a call checked against its tool's table, in the table's order. */
function readArgs(args: unknown, table: Record<string, Arg>): Args {
  const a = check(args, Object.keys(table));
  const out: Args = {};
  for (const [k, arg] of Object.entries(table)) out[k] = read(a, k, arg);
  return out;
}

async function withStore<T>(
  getEnv: () => ToolEnv,
  project: string | undefined,
  empty: (reason: string) => T,
  body: (db: Db, vis: Visibility, env: ToolEnv) => T | Promise<T>,
): Promise<T> {
  const env = getEnv(); // inside the call, so a config that fails to load is an empty answer
  if (env.cwd === null && project !== "*" && (project === undefined || !project.startsWith("/"))) {
    return empty("the server's working directory cannot be read");
  }
  let opened;
  try {
    opened = openRead(env.store);
  } catch (e) {
    return empty((e as Error).message);
  }
  if (!opened) return empty(noStoreYet(env.store));
  try {
    await initReader();
    const scope = resolveScope(opened.db, env.cfg, env.cwd ?? "/", project, EVERY_PROJECT_MCP);
    if (!scope.ok) return empty(scope.reason);
    // awaited here, so the store stays open until the body is done with it
    return await body(opened.db, scope.vis, env);
  } catch (e) {
    return empty((e as Error).message);
  } finally {
    opened.db.close();
  }
}

async function answer(
  run: () => Promise<Record<string, unknown>>,
  emptyDoc: (reason: string) => Record<string, unknown>,
): Promise<ToolAnswer> {
  try {
    return { doc: await run(), misuse: false };
  } catch (e) {
    if (e instanceof Misuse || e instanceof UsageError) {
      return { doc: emptyDoc(e.message), misuse: true };
    }
    return { doc: emptyDoc((e as Error).message), misuse: false };
  }
}

const SEARCH_ARGS: Record<string, Arg> = {
  query: {
    type: "query",
    description:
      "Words to find. Turns holding every word come first (match: all_words_turn); when few or none do, sessions holding them across turns follow (all_words_session), and when nothing holds them all, turns holding some (any_word)",
  },
  project: PROJECT_ARG,
  paths: {
    type: "paths",
    description: "Only turns whose tool fields name one of these paths exactly",
  },
  tool: { type: "text", description: "Only turns that called this tool, such as Bash or Read" },
  kind: {
    type: "text",
    description: "Only turns of this record type: user, assistant, system or attachment",
  },
  since: { type: "time", end: "start", description: TIME_FORMS },
  until: { type: "time", end: "end", description: TIME_FORMS },
  limit: {
    type: "count",
    min: 1,
    description: `How many hits, default ${SEARCH_LIMIT_DEFAULT}, at most ${SEARCH_LIMIT_MAX}`,
  },
  strict: {
    type: "flag",
    description: "Only turns holding every word, nothing more (default false)",
  },
};

export function recallSearch(getEnv: () => ToolEnv, args: unknown): Promise<ToolAnswer> {
  const empty = (reason: string) => ({ hits: [], reason });
  return answer(async () => {
    const a = readArgs(args, SEARCH_ARGS);
    const project = a.project as string | undefined;
    const tool = a.tool as string | undefined;
    const kind = a.kind as string | undefined;
    const paths = a.paths as string[];
    const since = a.since as string | null;
    const until = a.until as string | null;
    const limitArg = a.limit as number | undefined;
    const limit = Math.min(limitArg ?? SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX);
    const strict = a.strict as boolean;
    const q = parseQuery(a.query as string);
    if (!q.match) return empty(NO_WORDS_REASON);
    return await withStore(getEnv, project, empty, async (db, vis, env) => {
      // the search `terminus search` runs; Claude is handed turns, never session titles
      const { hits, reason: none, further } = await runSearch(db, {
        query: q,
        vis,
        filters: { tool, kind, paths, since, until },
        limit,
        filter: egress(env.cfg.privacy.redactRecall),
        titles: false,
        strict,
      });
      // the first that applies: why it is empty, why further answers were added, a lowered
      // limit, a cut query
      const reason = none ?? further ??
        (limitArg !== undefined && limitArg > SEARCH_LIMIT_MAX
          ? `limit lowered to ${SEARCH_LIMIT_MAX}`
          : q.truncated
          ? `the query was cut to its first ${q.terms.length} terms`
          : null);
      return { hits: hits.map((h) => hitDoc(h, false)), reason };
    });
  }, empty);
}

const CONTEXT_ARGS: Record<string, Arg> = {
  turn_id: { type: "count", min: 0, required: true, description: "A turn id from recall_search" },
  before: {
    type: "count",
    min: 0,
    description: `Turns before, default ${CONTEXT_DEFAULT}, at most ${CONTEXT_MAX}`,
  },
  after: {
    type: "count",
    min: 0,
    description: `Turns after, default ${CONTEXT_DEFAULT}, at most ${CONTEXT_MAX}`,
  },
  project: PROJECT_ARG,
};

export function recallContext(getEnv: () => ToolEnv, args: unknown): Promise<ToolAnswer> {
  const empty = (reason: string) => ({ ...emptyContext(reason) });
  return answer(async () => {
    const a = readArgs(args, CONTEXT_ARGS);
    const id = a.turn_id as number;
    const b = a.before as number | undefined;
    const af = a.after as number | undefined;
    const project = a.project as string | undefined;
    const before = Math.min(b ?? CONTEXT_DEFAULT, CONTEXT_MAX);
    const after = Math.min(af ?? CONTEXT_DEFAULT, CONTEXT_MAX);
    return await withStore(getEnv, project, empty, (db, vis, env) => {
      const t = visibleTurn(db, id, vis);
      if (typeof t === "string") return empty(t);
      const doc = contextWindow(db, t, before, after, egress(env.cfg.privacy.redactRecall));
      if ((b ?? 0) > CONTEXT_MAX || (af ?? 0) > CONTEXT_MAX) {
        doc.reason = `before and after are lowered to ${CONTEXT_MAX}`;
      }
      return { ...doc };
    });
  }, empty);
}

const GET_ARGS: Record<string, Arg> = {
  turn_ids: { type: "turn_ids", description: `Up to ${GET_MAX_IDS} turn ids` },
  project: PROJECT_ARG,
};

export function recallGet(getEnv: () => ToolEnv, args: unknown): Promise<ToolAnswer> {
  const empty = (reason: string) => ({ records: [], absent: [], reason });
  return answer(async () => {
    const a = readArgs(args, GET_ARGS);
    const project = a.project as string | undefined;
    const unique = [...new Set(a.turn_ids as number[])];
    const ids = unique.slice(0, GET_MAX_IDS);
    return await withStore(getEnv, project, empty, (db, vis, env) => {
      const records: RecordDoc[] = [];
      const absent: { turn_id: number; reason: string }[] = [];
      const filter = egress(env.cfg.privacy.redactRecall);
      for (const id of ids) {
        const t = visibleTurn(db, id, vis);
        if (typeof t === "string") absent.push({ turn_id: id, reason: t });
        else records.push(readRecord(db, t, filter).doc);
      }
      let reason: string | null = null;
      if (unique.length > GET_MAX_IDS) reason = `only the first ${GET_MAX_IDS} ids were read`;
      else if (records.length === 0 && absent.length) reason = absent[0].reason;
      return { records, absent, reason };
    });
  }, empty);
}

/** The three recall tools, each defined once: the MCP server lists and calls them from here. */
export const TOOL_DEFS: ToolDef[] = [
  {
    name: "recall_search",
    title: "Search the Terminus archive",
    description:
      "Search this project's archived Claude Code turns by words, paths, errors or identifiers; returns ranked hits with turn ids, short excerpts and how each matched (match).",
    args: SEARCH_ARGS,
    run: recallSearch,
  },
  {
    name: "recall_context",
    title: "Read around an archived turn",
    description:
      "Return the turns before and after one archived turn id, with short excerpts, stopping at its session's ends.",
    args: CONTEXT_ARGS,
    run: recallContext,
  },
  {
    name: "recall_get",
    title: "Read archived turns in full",
    description:
      `Return the full archived record of up to ${GET_MAX_IDS} turn ids, exactly as Claude Code wrote it.`,
    args: GET_ARGS,
    run: recallGet,
  },
];
