/**
 * Search over session titles: a session whose title (the one `terminus sessions` shows, when
 * it is a name or one Claude Code wrote, not the first prompt) holds every query word is a hit of its own, anchored on the session's first turn, with
 * matched_on naming the title. Hits also carry their session's number and title.
 */
import type { Db } from "../store/db.ts";
import { turnById, visibleWhere } from "../store/query.ts";
import { firstTurnId, sessionsWithTitleWord, titleFactsOf } from "../store/sessions_sql.ts";
import { chooseTitle } from "../sessions/titles.ts";
import type { Hit, SearchArgs } from "./rank.ts";
import { tokens } from "./query.ts";

/** Same weight as an exact structured match (rank.ts). */
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

function visibleSessions(db: Db, vis: SearchArgs["vis"]): number {
  const w = visibleWhere(vis);
  return (db.prepare(
    `SELECT count(*) AS n FROM sessions s LEFT JOIN session_meta m ON m.session_no = s.session_no
     WHERE ${w.sql}`,
  ).get(...w.params) as { n: number }).n;
}

/**
 * Title hits, best first. `above` is the best turn hit's relevance: a title that holds every
 * word names the session the person means, so it ranks over any single turn.
 */
export function titleHits(db: Db, a: SearchArgs, above: number): Hit[] {
  const f = a.filters;
  // a title is no turn of a tool, kind or path: those filters leave titles out
  if (f.tool || f.kind || (f.paths && f.paths.length) || f.sessionNo != null || f.quotable) {
    return [];
  }
  if (f.maxId !== undefined || a.query.folded.length === 0) return [];
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
  const score = TITLE_WEIGHT * Math.log(1 + visibleSessions(db, a.vis) / matched.length);
  const hits: Hit[] = [];
  for (const m of matched) {
    const id = firstTurnId(db, m.no);
    if (id === null) continue;
    const t = turnById(db, id)!;
    if (f.since && (t.ts === null || t.ts < f.since)) continue;
    if (f.until && (t.ts === null || t.ts > f.until)) continue;
    hits.push({
      turn_id: t.id,
      session_no: m.no,
      title: m.title,
      session_key: t.sessionKey,
      project: t.project,
      record_type: t.recordType,
      ts: t.ts,
      sidechain: t.sidechain,
      relevance: above + score,
      entity_score: score,
      matched_on: [{ kind: "title", value: m.title }],
      excerpt: "",
      candidate: {
        id: t.id,
        relevance: above + score,
        sessionNo: t.sessionNo,
        sessionKey: t.sessionKey,
        project: t.project,
        recordType: t.recordType,
        ts: t.ts,
        sidechain: t.sidechain,
        streamOffset: t.streamOffset,
        byteLen: t.byteLen,
        evicted: t.evicted,
        isToolResult: t.isToolResult,
        uuid: t.uuid,
      },
    });
  }
  return hits;
}
