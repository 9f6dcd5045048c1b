/**
 * `terminus sessions search`: the turns `terminus search` would rank, folded into one line per
 * session. A session is ranked by its best turn (the order of `terminus search`'s own hits, so
 * a session is never placed lower here than its best hit is there), and carries how many of
 * the ranked turns are its own and the best turn's excerpt.
 */
import type { Db } from "../store/db.ts";
import type { Context } from "../context.ts";
import { readInScope } from "../open.ts";
import { egress } from "../egress.ts";
import { initReader } from "../store/codec.ts";
import { listSessions, type SessionRow } from "../store/session_listing.ts";
import { type Visibility } from "../store/visibility.ts";
import type { Query } from "../recall/query.ts";
import { cutExcerpts, type Hit, searchHits } from "../recall/search.ts";
import { SEARCH_POOL } from "../constants.ts";
import { type SessionView, viewOf } from "./list.ts";

export interface SessionHit {
  session: SessionView;
  /** Ranked turns of this session among the SEARCH_POOL best. */
  hits: number;
  best: {
    turn_id: number;
    ts: string | null;
    relevance: number;
    excerpt: string;
    clipped: { start: boolean; end: boolean };
  };
}

export interface SessionSearchArgs {
  query: Query;
  vis: Visibility;
  since: string | null;
  until: string | null;
  tags: string[];
  limit: number | null;
  filter: (s: string) => string;
}

/**
 * The one seam to the turn search: every ranked turn of the pool `terminus search` ranks,
 * no turn filter, in its order. Excerpts are left empty.
 */
function rankedTurns(db: Db, a: SessionSearchArgs): Hit[] {
  return searchHits(db, {
    query: a.query,
    vis: a.vis,
    filters: { paths: [] },
    limit: SEARCH_POOL,
    filter: a.filter,
  });
}

/** The hits without excerpts; `excerpts` cuts them once zstd is loaded. */
export function sessionHits(db: Db, a: SessionSearchArgs): { hits: SessionHit[]; turns: Hit[] } {
  if (!a.query.match) return { hits: [], turns: [] };
  const turns = rankedTurns(db, a);
  const bySession = new Map<number, { best: Hit; hits: number }>();
  for (const h of turns) {
    const s = bySession.get(h.session_no);
    if (s) s.hits++;
    else bySession.set(h.session_no, { best: h, hits: 1 });
  }
  // the listing's own filters, asked of each hit's session in rank order (sessions that
  // overlap the bounds and carry every tag), until --limit of them are kept
  const rows = new Map<number, SessionRow>();
  const ordered: [number, { best: Hit; hits: number }][] = [];
  for (const [no, s] of bySession) {
    if (a.limit !== null && ordered.length >= a.limit) break;
    const row = listSessions(db, a.vis, {
      since: a.since,
      until: a.until,
      tags: a.tags,
      sessionNo: no,
    })[0];
    if (!row) continue;
    rows.set(no, row);
    ordered.push([no, s]);
  }
  const best = ordered.map(([, s]) => s.best);
  const hits = ordered.map(([no, s]) => ({
    session: viewOf(rows.get(no)!, a.filter),
    hits: s.hits,
    best: {
      turn_id: s.best.turn_id,
      ts: s.best.ts,
      relevance: s.best.relevance,
      excerpt: "",
      clipped: { start: false, end: false },
    },
  }));
  return { hits, turns: best };
}

/** Cuts each session's best excerpt, as `terminus search` cuts its hits'. */
export function sessionExcerpts(
  db: Db,
  r: { hits: SessionHit[]; turns: Hit[] },
  a: SessionSearchArgs,
): void {
  cutExcerpts(db, r.turns, {
    query: a.query,
    vis: a.vis,
    filters: { paths: [] },
    limit: SEARCH_POOL,
    filter: a.filter,
  });
  r.turns.forEach((t, i) => {
    r.hits[i].best.excerpt = t.excerpt;
    r.hits[i].best.clipped = t.clipped;
  });
}

export interface SessionsFound {
  hits: SessionHit[];
  /** Why there are none when they could not be asked (no store, no project here); else null. */
  reason: string | null;
  warnings: string[];
}

/**
 * `sessions search`'s use case: the sessions whose turns match, seen from where the command
 * was typed (or the named project). zstd loads only when a hit's excerpt is still archived.
 */
export async function searchSessionsFrom(
  ctx: Context,
  query: Query,
  project: string | undefined,
  f: Pick<SessionSearchArgs, "since" | "until" | "tags" | "limit">,
): Promise<SessionsFound> {
  const got = await readInScope(ctx, project, async (db, vis, r) => {
    const args = { query, vis, ...f, filter: egress(r.cfg.privacy.redactRecall) };
    const found = sessionHits(db, args);
    if (found.hits.some((h) => !h.session.evicted)) await initReader();
    sessionExcerpts(db, found, args);
    return found.hits;
  });
  return { hits: got.value ?? [], reason: got.reason, warnings: got.warnings };
}
