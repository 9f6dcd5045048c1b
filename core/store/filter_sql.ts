/**
 * The WHERE terms a search's scope and filters put on its turns, in one place for the ranked
 * read (search_candidates.ts) and the further answers (further_reads.ts).
 */
import { cached, type Db } from "./db.ts";
import { type Visibility, visibleWhere } from "./visibility.ts";

/** What a search's filters ask of a turn, beside its words. */
export interface SearchFilters {
  tool?: string | null;
  kind?: string | null;
  paths?: string[];
  since?: string | null;
  until?: string | null;
  /** Only these sessions' turns (the post-compaction window). */
  sessionNo?: number | null;
  /** Only prompts a person typed (see isTyped). */
  prompts?: boolean;
  /** Only turns a hook may quote: prompts and replies, never tool results. */
  quotable?: boolean;
  /** Only turns archived by then (replay: the index as a decision saw it). */
  maxId?: number;
}

/** The WHERE terms (over turns `t`, session_meta `m`) for a scope and the filters. */
export function filterWhere(
  vis: Visibility,
  f: SearchFilters,
  listed = false,
): { where: string[]; params: (string | number)[] } {
  const w = visibleWhere(vis);
  const where = [w.sql];
  const params: (string | number)[] = [...w.params];
  if (f.kind) {
    where.push("t.record_type = ?");
    params.push(f.kind);
  }
  // a turn's own rows are checked (INDEXED BY): left to itself SQLite reads every row of the
  // tool or path for each turn (performance.md, "`--tool` and `--path` check a turn by its own
  // rows"); a statement over every turn (`listed`) lists the tool's or path's turns once instead
  if (f.tool) {
    where.push(
      listed
        ? "t.id IN (SELECT e.turn_id FROM entities e WHERE e.kind = 'tool' AND e.value = ?)"
        : "EXISTS (SELECT 1 FROM entities e INDEXED BY entities_turn WHERE e.turn_id = t.id AND e.kind = 'tool' AND e.value = ?)",
    );
    params.push(f.tool);
  }
  if (f.paths && f.paths.length) {
    const marks = f.paths.map(() => "?").join(",");
    where.push(
      listed
        ? `t.id IN (SELECT p.turn_id FROM paths p WHERE p.path IN (${marks}))`
        : `EXISTS (SELECT 1 FROM paths p INDEXED BY paths_turn WHERE p.turn_id = t.id AND p.path IN (${marks}))`,
    );
    params.push(...f.paths);
  }
  if (f.since) {
    where.push("t.ts IS NOT NULL AND t.ts >= ?");
    params.push(f.since);
  }
  if (f.until) {
    where.push("t.ts IS NOT NULL AND t.ts <= ?");
    params.push(f.until);
  }
  if (f.quotable) where.push("t.is_tool_result = 0 AND t.record_type IN ('user', 'assistant')");
  // what a person typed (is_typed): no tool result, compaction summary, harness text or
  // subagent prompt, which Claude Code all files as user records too
  if (f.prompts) where.push("t.is_typed = 1");
  return { where, params };
}

/**
 * Whether any turn in the scope passes the filters: the first one found by id, no order (an
 * empty `--tool` answer asks whether the tool was ever called).
 */
export function anyTurnPasses(db: Db, vis: Visibility, f: SearchFilters): boolean {
  const { where, params } = filterWhere(vis, f, true);
  return cached(
    db,
    `SELECT 1 FROM turns t LEFT JOIN session_meta m ON m.session_no = t.session_no
     WHERE ${where.join(" AND ")} LIMIT 1`,
  ).get(...params) !== undefined;
}
