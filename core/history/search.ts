/**
 * Search over imported prompt history: hits of kind `history_prompt`, with their time and
 * project. Only `terminus search` calls this; hooks and MCP read turns alone.
 */
import type { Db } from "../store/db.ts";
import type { Visibility } from "../store/visibility.ts";
import { historyIndexKeepsPositions, searchHistory } from "../store/history_sql.ts";
import type { Query } from "../recall/query.ts";
import { cutExcerpt, fold } from "../recall/excerpt.ts";
import { HISTORY_KIND } from "../constants.ts";

export interface HistoryHit {
  kind: typeof HISTORY_KIND;
  history_id: number;
  ts: string;
  project: string | null;
  relevance: number;
  excerpt: string;
}

/** A paste whose content is text (an image's, where an older CLI kept one, is its data). */
export function isTextPaste(p: unknown): p is { content?: unknown; contentHash?: unknown } {
  if (!p || typeof p !== "object") return false;
  const type = (p as { type?: unknown }).type;
  return type === undefined || type === "text";
}

/** The prompt and its pasted text, as the index holds them (the import indexes this). */
export function bodyOf(display: string, pasted: string | null): string {
  const texts: string[] = [];
  if (pasted) {
    try {
      for (const p of Object.values(JSON.parse(pasted) as Record<string, unknown>)) {
        if (isTextPaste(p) && typeof p.content === "string") texts.push(p.content);
      }
    } catch { /* kept as found; only the prompt shows */ }
  }
  return [display, ...texts].join("\n");
}

export function historyHits(
  db: Db,
  q: Query,
  vis: Visibility,
  f: { since: string | null; until: string | null; limit: number },
  filter: (s: string) => string,
): HistoryHit[] {
  // an index from before positions were kept answers the words alone, never a phrase
  const match = q.match && historyIndexKeepsPositions(db) ? q.match : q.wordsMatch;
  if (!match) return [];
  return searchHistory(db, match, vis, f).map((r) => ({
    kind: HISTORY_KIND,
    history_id: r.id,
    ts: r.at,
    project: r.project,
    relevance: -r.score, // bm25 is lower for better
    excerpt: cutExcerpt(fold(filter(bodyOf(r.display, r.pasted))), q.folded),
  }));
}
