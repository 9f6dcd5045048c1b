/**
 * The sessions listing's use case: the sessions visible from where the command was typed (or
 * the named project), filtered and ordered, as views (titles through the egress filter).
 */
import type { Context } from "../context.ts";
import { openStore } from "../open.ts";
import { resolveScope } from "../recall/scope.ts";
import { egress } from "../egress.ts";
import { listSessions, type SessionFilters } from "../store/query.ts";
import { type SessionView, viewOf } from "./list.ts";

export interface Listing {
  views: SessionView[];
  /** Why the list is empty when it could not be asked (no store, no project here); else null. */
  reason: string | null;
  warnings: string[];
}

export async function listVisibleSessions(
  ctx: Context,
  project: string | undefined,
  f: Pick<SessionFilters, "since" | "until" | "limit" | "tags" | "order">,
): Promise<Listing> {
  const o = await openStore(ctx);
  if (!o.db) return { views: [], reason: o.reason, warnings: [] };
  try {
    const scope = resolveScope(o.db, o.r.cfg, ctx.cwd, project);
    if (!scope.ok) return { views: [], reason: scope.reason, warnings: o.warnings };
    const filter = egress(o.r.cfg.privacy.redactRecall);
    const views = listSessions(o.db, scope.vis, f).map((r) => viewOf(r, filter));
    return { views, reason: null, warnings: o.warnings };
  } finally {
    o.db.close();
  }
}
