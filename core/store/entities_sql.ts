/**
 * The entities table read: a turn's entities, their document frequency, prompt recall's exact
 * lookup by kind and value, and stored paths by one of their names.
 */
import { cached, cachedArrays, type Db } from "./db.ts";
import { ENTITY_ACT, TURN_SEQ_SPAN } from "../constants.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";
import { AFTER_CANDIDATE, type Candidate, CANDIDATE_COLUMNS, toCandidate } from "./candidate.ts";

/**
 * The entities of turns `ids`. With `words` (lowercased), only those a query of those words
 * could cover: a value holding one of them, or any character outside ASCII (whose case
 * SQLite's lower() does not fold, so it is left to the caller's own test).
 */
export function entitiesOf(
  db: Db,
  ids: number[],
  words?: string[],
): Map<number, { kind: string; value: string }[]> {
  const out = new Map<number, { kind: string; value: string }[]>();
  if (ids.length === 0) return out;
  // one statement whatever the count (the ids as JSON), its rows as arrays (see toCandidate)
  const rows =
    (words
      ? cachedArrays(db, entitiesHoldingSql(words.length)).all(JSON.stringify(ids), ...words)
      : cachedArrays(db, ENTITIES_SQL).all(JSON.stringify(ids))) as unknown as [
        number,
        string,
        string,
      ][];
  for (const [id, kind, value] of rows) {
    let l = out.get(id);
    if (!l) out.set(id, l = []);
    l.push({ kind, value });
  }
  return out;
}

const ENTITIES_SQL =
  "SELECT turn_id AS id, kind, value FROM entities WHERE turn_id IN (SELECT value FROM json_each(?))";
// a class name's 200 candidates hold some 1,100 entities, of which a dozen name it; one
// statement per word count, each word a parameter of its own (a json_each of the words was
// read again for every row)
const entitiesHoldingSql = (words: number) =>
  `SELECT id, kind, value FROM (SELECT turn_id AS id, kind, value, lower(value) AS folded
   FROM entities WHERE turn_id IN (SELECT value FROM json_each(?1)))
   WHERE ${
    words ? Array.from({ length: words }, (_, i) => `instr(folded, ?${i + 2})`).join(" OR ") : "0"
  } OR value GLOB '*[^' || char(1) || '-' || char(127) || ']*'`;

/** N for the entity idf: the archived turn count, summed per session (no scan of turns). */
export function totalTurns(db: Db): number {
  return (db.prepare("SELECT COALESCE(sum(turn_count), 0) AS n FROM session_meta").get() as {
    n: number;
  }).n;
}

/**
 * How many turns carry this entity. A turn stores each (kind, value) once, so a plain count
 * answers from the (kind, value) index alone, without a table lookup per row.
 */
export function entityDf(db: Db, kind: string, value: string, cap?: number): number {
  if (cap !== undefined) {
    // counted no further than `cap`: past it the idf hardly moves, and the hook has 50 ms
    return (cached(
      db,
      "SELECT count(*) AS n FROM (SELECT 1 FROM entities WHERE kind = ? AND value = ? LIMIT ?)",
    ).get(kind, value, cap) as { n: number }).n;
  }
  // one statement for every value a ranking looks up (a prepare each cost a fresh process
  // some 0.1 ms a value)
  return (cached(db, "SELECT count(*) AS n FROM entities WHERE kind = ? AND value = ?")
    .get(kind, value) as { n: number }).n;
}

/** One exact key of prompt recall's lookup: a stored entity's kind and value. */
export interface StructuralKey {
  kind: "path" | "symbol" | "command";
  value: string;
}

/** The index as it stood: turns up to an id, or from before a time (the bench's replays). */
export interface IndexBound {
  maxId?: number;
  beforeTs?: string;
}

/**
 * For each group of keys (one name's), how many of the scope's sessions hold any of them (in any
 * turn, tool results included), counted among the group's first `rows` index rows: the (kind,
 * value, act, turn_id DESC) index is walked in its own order, so each count is bounded whatever
 * the archive holds, and a name carried by more turns than that can only come out low. A
 * subagent's turns count for the session that started it. Only the distinct sessions of the rows
 * read are joined to their metadata, one primary-key lookup each; all the groups are counted in
 * one statement (a statement per name cost four times as much on a 32-name plan).
 */
export function sessionDfs(
  db: Db,
  groups: StructuralKey[][],
  vis: Visibility,
  bound: IndexBound,
  rows: number,
): number[] {
  if (!groups.length) return [];
  const w = visibleWhere(vis);
  const inner: (string | number)[] = [];
  const { join, extra } = boundClause(bound, inner);
  const json = JSON.stringify(groups.map((g) => g.map((k) => [k.kind, k.value])));
  // positional parameters in the order they appear: the bound, the cap, the scope, the groups
  const got = cached(
    db,
    `SELECT n.key AS i, (
       SELECT count(DISTINCT COALESCE(p.session_no, d.sn))
       FROM (SELECT DISTINCT x.turn_id / ${TURN_SEQ_SPAN} AS sn
             FROM (SELECT e.turn_id AS turn_id FROM json_each(n.value) k
                     JOIN entities e ON e.kind = json_extract(k.value, '$[0]')
                       AND e.value = json_extract(k.value, '$[1]')${join}
                   WHERE 1${extra} LIMIT ?) x) d
         LEFT JOIN session_meta m ON m.session_no = d.sn
         LEFT JOIN sessions p ON p.session_key = m.parent_session_key
       WHERE ${w.sql}) AS n
     FROM json_each(?) n`,
  ).all(...inner, rows, ...w.params, json) as { i: number; n: number }[];
  const out = new Array<number>(groups.length).fill(0);
  for (const r of got) out[r.i] = r.n;
  return out;
}

/**
 * The scope's sessions that are not a subagent's: the share a name's session count is set
 * against. Under a bound, only the sessions begun inside it.
 */
export function scopeSessionCount(db: Db, vis: Visibility, bound: IndexBound): number {
  const w = visibleWhere(vis);
  let extra = "";
  const params: (string | number)[] = [];
  if (bound.beforeTs !== undefined) {
    extra += " AND m.first_turn_at IS NOT NULL AND m.first_turn_at < ?";
    params.push(bound.beforeTs);
  }
  if (bound.maxId !== undefined) {
    extra += " AND m.session_no <= ?";
    params.push(Math.floor(bound.maxId / TURN_SEQ_SPAN));
  }
  return (cached(
    db,
    `SELECT count(*) AS n FROM session_meta m
     WHERE m.parent_session_key IS NULL AND ${w.sql}${extra}`,
  ).get(...w.params, ...params) as { n: number }).n;
}

/** A candidate with the strongest way (ENTITY_ACT) it touched the key it was read by. */
export type ActedCandidate = Candidate & { act: number };

/**
 * Prompt recall's candidates for one key: quotable turns (prompts and replies, never tool
 * results) carrying an entity equal to it. The index on (kind, value, act, turn_id DESC) is
 * walked in its own order, direct actions first and then newest, and at most `cap` rows are
 * read from it, however many turns carry the key; visibility is applied to those. With a
 * `beforeTs` bound (the bench's replay) rows after it are skipped inside the walk instead.
 */
export function structuralCandidates(
  db: Db,
  key: StructuralKey,
  vis: Visibility,
  bound: { maxId?: number; beforeTs?: string },
  cap: number,
): ActedCandidate[] {
  const w = visibleWhere(vis);
  const inner: (string | number)[] = [key.kind, key.value, ENTITY_ACT.unquotable];
  const { join, extra } = boundClause(bound, inner);
  inner.push(cap);
  if (!hasActColumn(db)) return []; // a store from before schema 4: its first pass upgrades it
  const rows = cachedArrays(
    db,
    `SELECT ${CANDIDATE_COLUMNS}, x.act AS act
     FROM (SELECT e.turn_id AS turn_id, e.act AS act FROM entities e${join}
           WHERE e.kind = ? AND e.value = ? AND e.act < ?${extra}
           ORDER BY e.act, e.turn_id DESC LIMIT ?) x
       JOIN turns t ON t.id = x.turn_id
       JOIN sessions s ON s.session_no = t.session_no
       LEFT JOIN session_meta m ON m.session_no = t.session_no
     WHERE ${w.sql} AND t.is_tool_result = 0 AND t.record_type IN ('user', 'assistant')
     ORDER BY x.act, x.turn_id DESC`,
  ).all(...inner, ...w.params) as unknown as unknown[][];
  return rows.map((r) => ({ ...toCandidate(r), act: r[AFTER_CANDIDATE] as number }));
}

const actColumn = new WeakMap<Db, boolean>();

/** Whether the store has schema 4's `entities.act` (and `path_names`), asked once per handle. */
function hasActColumn(db: Db): boolean {
  let v = actColumn.get(db);
  if (v === undefined) {
    v = (db.prepare("SELECT count(*) AS n FROM pragma_table_info('entities') WHERE name = 'act'")
      .get() as { n: number }).n > 0;
    actColumn.set(db, v);
  }
  return v;
}

/**
 * Stored last parts that begin with `stem` and a dot (`sync_cmd` -> `sync_cmd.py`), distinct,
 * from at most `rows` rows of one range of path_names' own key.
 */
export function stemFileNames(db: Db, stem: string, rows: number): string[] {
  if (!hasActColumn(db) || stem === "") return [];
  const got = cached(
    db,
    "SELECT DISTINCT name FROM (SELECT name FROM path_names WHERE name > ? AND name < ? LIMIT ?)",
  ).all(stem + ".", stem + "/", rows) as { name: string }[];
  return got.map((r) => r.name);
}

/**
 * Whether the store holds a path under `path` (`.claude` -> `.claude/commands/x.md`): then it
 * names a folder, whatever its shape. One seek of the (kind, value) index.
 */
export function holdsPathUnder(db: Db, path: string): boolean {
  const p = path.endsWith("/") ? path.slice(0, -1) : path;
  // every value that starts with `p/` sorts between `p/` and `p0` ('0' follows '/')
  return cached(
    db,
    "SELECT 1 FROM entities WHERE kind = 'path' AND value > ? AND value < ? LIMIT 1",
  ).get(p + "/", p + "0") !== undefined;
}

/** Stored paths that have `name` as one of their parts (path_names), at most `limit`. */
export function pathsNamed(db: Db, name: string, limit: number): string[] {
  if (!hasActColumn(db)) return [];
  return (cached(db, "SELECT path FROM path_names WHERE name = ? LIMIT ?").all(name, limit) as {
    path: string;
  }[]).map((r) => r.path);
}

/**
 * The turns that act on a stored identifier: a Write or Edit whose body defines it, a Grep of
 * it (its `symbol` entity with act direct), newest first, at most `cap`, read from the
 * (kind, value, act, turn_id DESC) index in its own order.
 */
export function symbolActors(db: Db, value: string, cap: number): number[] {
  if (!hasActColumn(db)) return [];
  return (cachedArrays(
    db,
    "SELECT turn_id FROM entities WHERE kind = 'symbol' AND value = ? AND act = ? ORDER BY turn_id DESC LIMIT ?",
  ).all(value, ENTITY_ACT.direct, cap) as unknown as [number][]).map((r) => r[0]);
}

/** The tools that write a file: their turns edit the file their path names. */
const WRITING_TOOLS = "('Write', 'Edit', 'MultiEdit', 'NotebookEdit')";

/**
 * The turns that Write or Edit a file one of `ids` wrote to (the file that holds a definition),
 * newest first, at most `cap` per file and `files` files.
 */
export function editsOfFilesOf(db: Db, ids: number[], files: number, cap: number): number[] {
  if (!ids.length || !hasActColumn(db)) return [];
  const paths = (cachedArrays(
    db,
    // by the turns' own rows (entities_turn): the planner would walk every path otherwise
    `SELECT DISTINCT e.value FROM turns t JOIN entities e INDEXED BY entities_turn
       ON e.turn_id = t.id
     WHERE t.id IN (SELECT value FROM json_each(?)) AND t.tool_name IN ${WRITING_TOOLS}
       AND e.kind = 'path' AND e.act = ?
     LIMIT ?`,
  ).all(JSON.stringify(ids), ENTITY_ACT.direct, files) as unknown as [string][]).map((r) => r[0]);
  const out: number[] = [];
  const edits = cachedArrays(
    db,
    `SELECT e.turn_id FROM entities e JOIN turns t ON t.id = e.turn_id
     WHERE e.kind = 'path' AND e.value = ? AND e.act = ? AND t.tool_name IN ${WRITING_TOOLS}
     ORDER BY e.turn_id DESC LIMIT ?`,
  );
  for (const p of paths) {
    for (const [id] of edits.all(p, ENTITY_ACT.direct, cap) as unknown as [number][]) out.push(id);
  }
  return out;
}

/**
 * The replay's bounds on an entity walk (`beforeTs`: rows before a time; `maxId`: rows up to a
 * turn), as a join and WHERE text over alias `e`; their parameters are pushed onto `params`.
 */
function boundClause(
  bound: { maxId?: number; beforeTs?: string },
  params: (string | number)[],
): { join: string; extra: string } {
  let join = "";
  let extra = "";
  if (bound.beforeTs !== undefined) {
    join = " JOIN turns tb ON tb.id = e.turn_id";
    extra += " AND tb.ts IS NOT NULL AND tb.ts < ?";
    params.push(bound.beforeTs);
  }
  if (bound.maxId !== undefined) {
    extra += " AND e.turn_id <= ?";
    params.push(bound.maxId);
  }
  return { join, extra };
}
