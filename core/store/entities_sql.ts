/**
 * The entities table read: a turn's entities, their document frequency, prompt recall's exact
 * lookup by kind and value, and stored paths by one of their names.
 */
import { cached, cachedArrays, type Db } from "./db.ts";
import { ENTITY_ACT } from "../constants.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";
import {
  AFTER_CANDIDATE,
  type Candidate,
  CANDIDATE_COLUMNS,
  toCandidate,
} from "./search_candidates.ts";

export function entitiesOf(db: Db, ids: number[]): Map<number, { kind: string; value: string }[]> {
  const out = new Map<number, { kind: string; value: string }[]>();
  if (ids.length === 0) return out;
  // one statement whatever the count (the ids as JSON), its rows as arrays (see toCandidate)
  const rows = cachedArrays(
    db,
    "SELECT turn_id AS id, kind, value FROM entities WHERE turn_id IN (SELECT value FROM json_each(?))",
  ).all(JSON.stringify(ids)) as unknown as [number, string, string][];
  for (const [id, kind, value] of rows) {
    let l = out.get(id);
    if (!l) out.set(id, l = []);
    l.push({ kind, value });
  }
  return out;
}

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
  return (db.prepare(
    "SELECT count(*) AS n FROM entities WHERE kind = ? AND value = ?",
  )
    .get(kind, value) as { n: number }).n;
}

/** One exact key of prompt recall's lookup: a stored entity's kind and value. */
export interface StructuralKey {
  kind: "path" | "symbol" | "command";
  value: string;
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
  let join = "";
  let extra = "";
  if (bound.beforeTs !== undefined) {
    join = " JOIN turns tb ON tb.id = e.turn_id";
    extra += " AND tb.ts IS NOT NULL AND tb.ts < ?";
    inner.push(bound.beforeTs);
  }
  if (bound.maxId !== undefined) {
    extra += " AND e.turn_id <= ?";
    inner.push(bound.maxId);
  }
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
