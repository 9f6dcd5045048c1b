/** `terminus sessions search <words>`: the adapter for core/sessions/search.ts. */
import type { Parsed } from "../types.ts";
import type { Context } from "../../core/context.ts";
import { type Outcome, outcome, terminalColumns } from "../../core/output.ts";
import { table } from "../../core/table.ts";
import { UsageError } from "../../core/errors.ts";
import { boundFlag, day } from "../../core/time.ts";
import { NO_WORDS_REASON, parseQuery, TRUNCATED_NOTE } from "../../core/recall/query.ts";
import { foldCut, tagProblem } from "../../core/transcript/titles.ts";
import { TITLE_PROMPT_CHARS } from "../../core/constants.ts";
import { list, str, wholeFlag } from "../common.ts";
import type { Verb } from "./verb.ts";

const NAME = "sessions search";

/** The empty document, the query echoed as `terminus search` echoes its own. */
export function emptySearch(a: Parsed) {
  const q = parseQuery(a.positionals.slice(1).join(" "));
  return { query: q.text, truncated: q.truncated, sessions: [] as unknown[] };
}

/** The `--tag` values, lowercased as tags are stored, each checked (exit 2 on one that cannot be). */
export function tagFlags(a: Parsed): string[] {
  const tags = list(a.values, "tag").map((t) => t.toLowerCase());
  for (const t of tags) {
    const p = tagProblem(t);
    if (p) throw new UsageError(`--tag: ${p}`);
  }
  return tags;
}

export async function searchSessions(ctx: Context, a: Parsed): Promise<Outcome> {
  const words = a.positionals.slice(1);
  if (words.length === 0) throw new UsageError("sessions search needs words to look for");
  const since = boundFlag("--since", str(a.values, "since"), "start");
  const until = boundFlag("--until", str(a.values, "until"), "end");
  const limit = wholeFlag(a.values, "limit", 1);
  const tags = tagFlags(a);
  const q = parseQuery(words.join(" "));
  const empty = emptySearch(a);
  const warnings: string[] = q.truncated ? [TRUNCATED_NOTE] : [];
  if (!q.match) return outcome(NAME, empty, { reason: NO_WORDS_REASON, warnings });
  // loaded here rather than with the verb: every `sessions` listing loads this module (tagFlags,
  // the verb table) and would otherwise carry the whole search and its decoder
  const [{ searchSessionsFrom }, { onWordBoundaries }] = await Promise.all([
    import("../../core/sessions/search.ts"),
    import("../search.ts"),
  ]);
  const found = await searchSessionsFrom(ctx, q, a.values.project as string | undefined, {
    since,
    until,
    tags,
    limit,
  });
  warnings.push(...found.warnings);
  if (found.reason !== null) return outcome(NAME, empty, { reason: found.reason, warnings });
  const r = found;
  const columns = terminalColumns(ctx);
  const human = r.hits.map((h) => {
    const v = h.session;
    const marks = [v.sidecar ? "(subagent)" : "", v.evicted ? "(evicted)" : ""].join(" ").trim();
    // the title gives way to the terminal's width; the number, day and count never do
    const [line] = table(
      [[
        `#${v.session_no}`,
        day(v.first_turn_at),
        v.title === null ? "(untitled)" : foldCut(v.title, TITLE_PROMPT_CHARS),
        `${h.hits} hit(s)`,
        marks,
      ]],
      [{}, {}, { cut: 1, min: 4 }, {}, {}],
      columns,
    );
    return `${line}\n    ${onWordBoundaries(h.best.excerpt, h.best.clipped)}\n`;
  });
  return outcome(NAME, {
    query: q.text,
    truncated: q.truncated,
    sessions: r.hits.map((h) => ({
      ...h.session,
      hits: h.hits,
      best: {
        turn_id: h.best.turn_id,
        ts: h.best.ts,
        relevance: h.best.relevance,
        excerpt: h.best.excerpt,
      },
    })),
  }, {
    human,
    warnings,
    counts: [`${r.hits.length} session(s)`],
    reason: r.hits.length === 0 ? "no turn matched every word" : null,
  });
}

export const search: Verb = {
  name: "search",
  summary: "which sessions talked about these words, best first",
  options: ["project", "since", "until", "limit", "tag"],
  empty: emptySearch,
  run: searchSessions,
};
