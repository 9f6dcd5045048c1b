/**
 * The sessions listing's use case: the sessions visible from where the command was typed (or
 * the named project), filtered and ordered, as views (titles through the egress filter).
 */
import type { Context } from "../context.ts";
import { readInScope } from "../open.ts";
import { egress } from "../egress.ts";
import { countSessions, listSessions, type SessionFilters } from "../store/session_listing.ts";
import { type SessionView, viewOf } from "./list.ts";

export interface Listing {
  views: SessionView[];
  /** How many sessions the filters hold before the limit (`views.length` when none was hit). */
  total: number;
  /** Why the list is empty when it could not be asked (no store, no project here); else null. */
  reason: string | null;
  warnings: string[];
}

export async function listVisibleSessions(
  ctx: Context,
  project: string | undefined,
  f: Pick<SessionFilters, "since" | "until" | "limit" | "tags" | "order">,
): Promise<Listing> {
  const got = await readInScope(ctx, project, (db, vis, r) => {
    const filter = egress(r.cfg.privacy.redactRecall);
    const views = listSessions(db, vis, f).map((row) => viewOf(row, filter));
    const total = f.limit != null && views.length >= f.limit
      ? countSessions(db, vis, f)
      : views.length;
    return { views, total };
  });
  return {
    views: got.value?.views ?? [],
    total: got.value?.total ?? 0,
    reason: got.reason,
    warnings: got.warnings,
  };
}
