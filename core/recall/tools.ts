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

export function recallSearch(getEnv: () => ToolEnv, args: unknown): Promise<ToolAnswer> {
  const empty = (reason: string) => ({ hits: [], reason });
  return answer(async () => {
    const a = check(args, [
      "query",
      "project",
      "paths",
      "tool",
      "kind",
      "since",
      "until",
      "limit",
      "strict",
    ]);
    if (a.query === undefined || a.query === null) throw new Misuse("query is required");
    if (typeof a.query !== "string") throw new Misuse("query must be a string");
    if (a.query.trim() === "") throw new Misuse("query is empty");
    const project = optString(a, "project");
    const tool = optString(a, "tool");
    const kind = optString(a, "kind");
    let paths: string[] = [];
    if (a.paths !== undefined && a.paths !== null) {
      if (!Array.isArray(a.paths) || a.paths.some((p) => typeof p !== "string")) {
        throw new Misuse("paths must be a list of strings");
      }
      paths = (a.paths as string[]).slice(0, GET_MAX_IDS).map(normalisePath);
    }
    const since = bound(a, "since", "start");
    const until = bound(a, "until", "end");
    const limitArg = count(a, "limit");
    if (limitArg === 0) throw new Misuse("limit must be at least 1");
    const limit = Math.min(limitArg ?? SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX);
    const strict = flag(a, "strict");
    const q = parseQuery(a.query);
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

export function recallContext(getEnv: () => ToolEnv, args: unknown): Promise<ToolAnswer> {
  const empty = (reason: string) => ({ ...emptyContext(reason) });
  return answer(async () => {
    const a = check(args, ["turn_id", "before", "after", "project"]);
    if (a.turn_id === undefined || a.turn_id === null) throw new Misuse("turn_id is required");
    if (typeof a.turn_id !== "number") throw new Misuse("turn_id must be a number");
    const id = count(a, "turn_id")!;
    const b = count(a, "before");
    const af = count(a, "after");
    const project = optString(a, "project");
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

export function recallGet(getEnv: () => ToolEnv, args: unknown): Promise<ToolAnswer> {
  const empty = (reason: string) => ({ records: [], absent: [], reason });
  return answer(async () => {
    const a = check(args, ["turn_ids", "project"]);
    if (a.turn_ids === undefined || a.turn_ids === null) throw new Misuse("turn_ids is required");
    if (!Array.isArray(a.turn_ids)) throw new Misuse("turn_ids must be a list of turn ids");
    if (a.turn_ids.length === 0) throw new Misuse("turn_ids is empty");
    if (a.turn_ids.some((x) => typeof x !== "number" || !Number.isInteger(x) || x < 0)) {
      throw new Misuse("turn_ids must hold only whole numbers");
    }
    const project = optString(a, "project");
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
