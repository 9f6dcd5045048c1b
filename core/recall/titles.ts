/**
 * Search over session titles: a session whose title (the one `terminus sessions` shows, when
 * it is a name or one Claude Code wrote, not the first prompt) holds every query word is
 * answered in a part of its own, apart from the turn hits. Turn hits carry their session's
 * number and title.
 */
import type { Db } from "../store/db.ts";
import { turnById } from "../store/turns.ts";
import { visibleSessionRows } from "../store/session_listing.ts";
import { visibleWhere } from "../store/visibility.ts";
import { firstTurnId, sessionsWithTitleWord, titleFactsOf } from "../store/sessions_sql.ts";
import { chooseTitle } from "../transcript/titles.ts";
import type { Hit, SearchArgs } from "./rank.ts";
import { tokens } from "./query.ts";

/** A title's score: this times ln(1 + visible sessions / sessions whose title matched). */
const TITLE_WEIGHT = 2.0;

/** Fills each hit's session number and title (through the egress filter). */
export function annotateTitles(db: Db, hits: Hit[], filter: (s: string) => string): void {
  const facts = titleFactsOf(db, [...new Set(hits.map((h) => h.session_no))]);
  for (const h of hits) {
    const f = facts.get(h.session_no);
    const t = f ? chooseTitle(f).title : null;
    h.title = t === null ? null : filter(t);
  }
}

/** A session found by its title (or name): its own part of a search's answer, never a turn. */
export interface TitleHit {
  session_no: number;
  session_key: string;
  project: string | null;
  /** The session's first turn's time, or null. */
  ts: string | null;
  title: string;
  relevance: number;
}

/**
 * Sessions whose title holds every query word, rarest titles scoring highest, then newer
 * first. A title is a fact about a session, not text of a turn, so it is answered apart from
 * the turn hits, and the turns keep their own order.
 */
export function titleHits(db: Db, a: SearchArgs): TitleHit[] {
  const f = a.filters;
  // a title is no turn of a tool, kind or path: those filters leave titles out
  if (f.tool || f.kind || (f.paths && f.paths.length) || f.sessionNo != null || f.quotable) {
    return [];
  }
  if (f.prompts || f.maxId !== undefined || a.query.folded.length === 0) return [];
  const words = a.query.folded;
  const nos = sessionsWithTitleWord(db, visibleWhere(a.vis), words[0]);
  if (nos.length === 0) return [];
  const facts = titleFactsOf(db, nos);
  const matched: { no: number; title: string }[] = [];
  for (const no of nos) {
    const { title: t, source } = chooseTitle(facts.get(no)!);
    // a title cut from the first prompt is that turn's own text, which the index already finds
    if (t === null || source === "prompt") continue;
    const have = new Set(tokens(t).map((x) => x.toLowerCase()));
    if (words.every((w) => have.has(w))) matched.push({ no, title: t });
  }
  if (matched.length === 0) return [];
  const score = TITLE_WEIGHT * Math.log(1 + visibleSessionRows(db, a.vis) / matched.length);
  const hits: TitleHit[] = [];
  for (const m of matched) {
    const id = firstTurnId(db, m.no);
    if (id === null) continue;
    const t = turnById(db, id)!;
    if (f.since && (t.ts === null || t.ts < f.since)) continue;
    if (f.until && (t.ts === null || t.ts > f.until)) continue;
    hits.push({
      session_no: m.no,
      session_key: t.sessionKey,
      project: t.project,
      ts: t.ts,
      title: m.title,
      relevance: score,
    });
  }
  hits.sort((x, y) =>
    x.ts === y.ts ? x.session_no - y.session_no : (x.ts ?? "") < (y.ts ?? "") ? 1 : -1
  );
  return hits.slice(0, a.limit);
}
