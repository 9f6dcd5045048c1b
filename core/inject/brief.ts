/**
 * The resume brief (SessionStart): where the project's newest non-subagent session left
 * off. Day only, so the text is byte-stable; only the two quotes shrink to fit brief_chars.
 */
import type { Db } from "../store/db.ts";
import type { Visibility } from "../store/visibility.ts";
import {
  lastReplyQuote,
  lastTypedQuote,
  newestSession,
  projectTotals,
} from "../store/inject_sql.ts";
import { QUOTE_CHARS } from "../constants.ts";
import { BRIEF_HEAD, CLOSE_TAG, cut, length, neutralise, OPEN_TAG } from "./frame.ts";

/** The answer line of a session whose assistant never answered (a prompt, then the end). */
const NO_ANSWER = "nothing; the session ended before a reply";

export interface Brief {
  text: string;
  quoted: number[];
}

export function buildBrief(
  db: Db,
  vis: Visibility & { project: string },
  maxChars: number,
  filter: (s: string) => string,
): Brief | null {
  const s = newestSession(db, vis);
  if (!s) return null;
  const asked = lastTypedQuote(db, s.sessionNo);
  const answered = lastReplyQuote(db, s.sessionNo);
  const totals = projectTotals(db, vis);
  const project = vis.project;
  const day = s.lastTurnAt ? s.lastTurnAt.slice(0, 10) : "on an unknown day";
  const clean = (t: string) => neutralise(filter(t)).replace(/\s+/g, " ").trim();
  const askedText = asked ? clean(asked.text) : null;
  const answeredText = answered ? clean(answered.text) : null;

  const compose = (quoteMax: number): string => {
    const lines = [
      BRIEF_HEAD,
      OPEN_TAG,
      // Outside a repository, or detached, there is no branch worth naming.
      s.branch && s.branch !== "HEAD"
        ? `The last session in ${project} ended ${day}, on branch ${s.branch}.`
        : `The last session in ${project} ended ${day}.`,
    ];
    if (askedText !== null) lines.push(`It last asked: ${cut(askedText, quoteMax)}`);
    // the spec's brief always has the line: a session that ended on tool calls quotes its
    // last words (or, with none, its last call); one with no assistant turn says so
    lines.push(
      `It last answered: ${answeredText !== null ? cut(answeredText, quoteMax) : NO_ANSWER}`,
    );
    lines.push(
      "",
      `Terminus has ${totals.sessions} sessions and ${totals.turns} turns archived for ${project}, searchable at turn granularity.`,
      "Reach them with the recall_search, recall_context and recall_get tools rather than guessing.",
      CLOSE_TAG,
    );
    return neutraliseInner(lines.join("\n"));
  };
  // Only the quotes shrink; a budget too small for the wording itself means no brief.
  // Both quotes shrink together, so cutting the cap by the whole excess overshoots (to no
  // brief at all when the excess passes 240): the longest cap that fits is halved down to.
  let quoteMax = QUOTE_CHARS;
  let text = compose(quoteMax);
  if (length(text) > maxChars) {
    let fits = 0;
    let over = QUOTE_CHARS;
    while (over - fits > 1) {
      const mid = (fits + over) >> 1;
      if (length(compose(mid)) <= maxChars) fits = mid;
      else over = mid;
    }
    quoteMax = fits;
    text = compose(quoteMax);
  }
  if (length(text) > maxChars) return null;
  if (quoteMax === 0 && (askedText || answeredText)) return null;
  return { text, quoted: [asked?.id, answered?.id].filter((x): x is number => x !== undefined) };
}

/** The project path and branch are archived text too: neutralise inside the tags only. */
function neutraliseInner(text: string): string {
  const start = text.indexOf(OPEN_TAG) + OPEN_TAG.length;
  const end = text.lastIndexOf(CLOSE_TAG);
  return text.slice(0, start) + neutralise(text.slice(start, end)) + text.slice(end);
}
