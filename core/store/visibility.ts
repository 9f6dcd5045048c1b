/**
 * Which sessions a read may see, as SQL. On its own so the history and session queries can
 * share it without importing each other.
 */

/** Which sessions a read may see: one project (or every project), minus excluded ones. */
export interface Visibility {
  /** null = every project ('*'). */
  project: string | null;
  exclude: string[];
}

/** A WHERE fragment over session_meta alias `m`, and its parameters. */
export function visibleWhere(v: Visibility): { sql: string; params: string[] } {
  const parts: string[] = [];
  const params: string[] = [];
  if (v.project !== null) {
    parts.push("m.project = ?");
    params.push(v.project);
  }
  for (const e of v.exclude) {
    parts.push("NOT (m.project IS NOT NULL AND (m.project = ? OR substr(m.project, 1, ?) = ?))");
    const prefix = e.endsWith("/") ? e : e + "/";
    params.push(e, String(prefix.length), prefix);
  }
  return { sql: parts.length ? parts.join(" AND ") : "1", params };
}
