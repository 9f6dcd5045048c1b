/** terminus search <words>: find past turns by text, path, error line or identifier. */
import { basename, resolve } from "../core/posix.ts";
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION, PROJECT, RAW, SINCE, UNTIL } from "./help_lines.ts";
import {
  boldWanted,
  type Chunk,
  emphasized,
  outcome,
  stdoutIsTerminal,
  terminalColumns,
} from "../core/output.ts";
import { sessionHeader } from "../core/sessions/list.ts";
import { filterNotes, KINDS } from "./search_notes.ts";
import { UsageError } from "../core/errors.ts";
import { boundFlag, day } from "../core/time.ts";
import { NO_WORDS_REASON, parseQuery, TRUNCATED_NOTE } from "../core/recall/query.ts";
import {
  type Hit,
  hitDoc,
  type MatchKind,
  NO_FILTERED_REASON,
  NO_TURN_REASON,
  NO_WORD_REASON,
  runSearch,
  type TitleHit,
  toolCalled,
} from "../core/recall/search.ts";
import type { Candidate } from "../core/store/candidate.ts";
import { egress } from "../core/egress.ts";
import { historyHits } from "../core/history/search.ts";
import { hasHistoryTables } from "../core/store/history_sql.ts";
import { normalisePath } from "../core/posix.ts";
import { HISTORY_KIND, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from "../core/constants.ts";
import {
  BOUND_OPTIONS,
  list,
  openForRead,
  PROJECT_OPTION,
  scopeOf,
  str,
  wholeFlag,
} from "./common.ts";

/** What a hit is, in the words a person uses: Claude Code files tool results as user records. */
export function hitLabel(c: Candidate): string {
  if (c.recordType === "user") return c.isToolResult ? "tool result" : "prompt";
  if (c.recordType === "assistant") return c.toolName ? `tool call ${c.toolName}` : "reply";
  return c.recordType;
}

/** A session found by its title: its number (what `sessions show` takes), day and project. */
function titleLine(t: TitleHit): string {
  return `session #${t.session_no}  ${day(t.ts)}  ${basename(t.session_key)}  ${
    t.project ?? "-"
  }\n    title: ${t.title}\n`;
}

/** Drops the part-words an excerpt was cut through, marking each cut with an ellipsis. */
export function onWordBoundaries(excerpt: string, clipped: Hit["clipped"]): string {
  let s = excerpt;
  if (clipped.start) {
    const i = s.search(/\s/);
    if (i >= 0 && i < WORD_SLACK) s = s.slice(i + 1);
    s = "\u2026" + s;
  }
  if (clipped.end) {
    const i = s.search(/\s\S*$/);
    if (i >= 0 && s.length - i < WORD_SLACK) s = s.slice(0, i);
    s = s + "\u2026";
  }
  return s;
}

/** The longest part-word dropped at a cut; longer, the cut stays where it fell. */
const WORD_SLACK = 40;

/**
 * The line printed before a group of further answers (docs/guide: "When no turn holds every
 * word"); the spec's own answer, turns holding every word, comes first and has none.
 */
export const GROUP_LINES: Record<MatchKind, string | null> = {
  all_words_turn: null,
  all_words_session: "-- sessions that hold every word across their turns --",
  any_word: "-- turns that hold some of the words, rarer words weighing more --",
};

/** The hits cut into their match groups, in order, each with the line that heads it. */
function groups(hits: Hit[]): { line: string | null; hits: Hit[] }[] {
  const out: { line: string | null; hits: Hit[] }[] = [];
  for (const h of hits) {
    const last = out.at(-1);
    const m = h.match ?? "all_words_turn";
    if (last && (last.hits[0].match ?? "all_words_turn") === m) last.hits.push(h);
    else out.push({ line: GROUP_LINES[m], hits: [h] });
  }
  return out;
}

/** The plain form (a pipe or a file): two lines a hit, a line before each further group. */
function plainHits(hits: Hit[]): Chunk[] {
  const out: Chunk[] = [];
  for (const g of groups(hits)) {
    if (g.line) out.push(g.line + "\n");
    for (const h of g.hits) {
      out.push(
        `${h.turn_id}  ${day(h.ts)}  #${h.session_no}  ${basename(h.session_key)}  ${
          h.project ?? "-"
        }${h.sidechain ? "  (subagent)" : ""}\n    ${h.excerpt}\n`,
      );
    }
  }
  return out;
}

/**
 * The terminal form: the match groups in order, each after its line; in each, one header per
 * session (in the order of its best hit), its hits under it, each labelled; a record archived
 * twice (a resumed session copies earlier turns) once; excerpts cut on word boundaries, the
 * query's words in bold.
 */
function terminalHits(
  hits: Hit[],
  terms: string[],
  bold: boolean,
  columns: number | null,
): Chunk[] {
  const out: Chunk[] = [];
  const seen = new Set<string>();
  for (const g of groups(hits)) {
    if (g.line) out.push(emphasized(g.line, [], bold), "\n");
    out.push(...terminalGroup(g.hits, terms, bold, seen, columns));
  }
  return out;
}

function terminalGroup(
  hits: Hit[],
  terms: string[],
  bold: boolean,
  seen: Set<string>,
  columns: number | null,
): Chunk[] {
  const bySession = new Map<string, Hit[]>();
  for (const h of hits) {
    const key = h.candidate.uuid ?? `turn ${h.turn_id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const list = bySession.get(h.session_key) ?? [];
    list.push(h);
    bySession.set(h.session_key, list);
  }
  const out: Chunk[] = [];
  for (const list of bySession.values()) {
    const first = list[0];
    const header = sessionHeader(first, first.sidechain ? "(subagent)" : "", columns);
    out.push(emphasized(header, [header], bold), "\n");
    for (const h of list) {
      out.push(`  ${h.turn_id}  ${day(h.ts)}  ${hitLabel(h.candidate)}\n      `);
      out.push(emphasized(onWordBoundaries(h.excerpt, h.clipped), terms, bold), "\n");
    }
  }
  return out;
}

const help: CommandHelp = {
  options: [
    PROJECT,
    ["--tool <name>", "only turns that called this tool, such as Bash or Read"],
    ["--kind <type>", "only records of this type: user, assistant, system, attachment"],
    ["--prompts", "only prompts typed by a person (tool results are user records too)"],
    ["--path <path>", "only turns whose tool call or result names this exact path; repeatable"],
    SINCE,
    UNTIL,
    ["--limit <n>", "how many hits (default 10, at most 50)"],
    [
      "--strict",
      "only turns holding every word: no sessions holding them across turns, no partial matches",
    ],
    RAW,
    JSON_OPTION,
  ],
  examples: [
    "terminus search SearchManager retry",
    "terminus search --path src/main.ts --project '*'",
    "terminus search --strict retry budget",
  ],
};

export const command: Command = {
  name: "search",
  help,
  wordsMayLookLikeOptions: true,
  usage:
    "terminus search [<words>...] [--project <path>] [--tool <name>] [--kind <type>] [--prompts] [--path <path>]... [--since <time>] [--until <time>] [--limit <n>] [--strict] [--raw] [--json]",
  options: {
    ...PROJECT_OPTION,
    ...BOUND_OPTIONS,
    tool: { type: "string" },
    kind: { type: "string" },
    path: { type: "string", multiple: true },
    limit: { type: "string" },
    raw: { type: "boolean" },
    prompts: { type: "boolean" },
    strict: { type: "boolean" },
  },
  // the record types; any other --kind is accepted and matches nothing, as the spec says
  values: { kind: KINDS },
  positionals: true,
  json: true,
  empty: (a) => {
    const q = parseQuery(a.positionals.join(" "));
    return { query: q.text, truncated: q.truncated, hits: [] };
  },
  async run(ctx, a) {
    const filtered = ["path", "tool", "kind", "prompts"].some((f) => a.values[f] !== undefined);
    if (a.positionals.length === 0 && !filtered) {
      throw new UsageError(
        "search needs words to look for, or --path, --tool, --kind or --prompts to select by",
      );
    }
    const since = boundFlag("--since", str(a.values, "since"), "start");
    const until = boundFlag("--until", str(a.values, "until"), "end");
    const limitArg = wholeFlag(a.values, "limit", 1, SEARCH_LIMIT_MAX);
    const limit = Math.min(limitArg ?? SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX);
    const q = parseQuery(a.positionals.join(" "));
    const empty = { query: q.text, truncated: q.truncated, hits: [] as unknown[] };
    const warnings: string[] = [];
    if (q.truncated) warnings.push(TRUNCATED_NOTE);
    // Filters alone rank by time; words that leave nothing to search find nothing.
    const byTime = a.positionals.length === 0;
    if (!q.match && !byTime) return outcome("search", empty, { reason: NO_WORDS_REASON, warnings });
    // zstd is loaded below, only once a hit needs a block read
    const o = await openForRead(ctx, false);
    if (!o.db) return outcome("search", empty, { reason: o.reason, warnings });
    try {
      warnings.push(...o.warnings);
      const scope = scopeOf(ctx, o.db, o.r, a.values);
      if (!scope.ok) return outcome("search", empty, { reason: scope.reason, warnings });
      const paths = list(a.values, "path").flatMap((p) => {
        const n = normalisePath(p);
        const abs = resolve(ctx.cwd, n);
        return abs === n ? [n] : [n, abs];
      });
      const raw = a.values.raw === true;
      const filter = egress(o.r.cfg.privacy.redactRecall && !raw);
      const kind = str(a.values, "kind");
      const tool = str(a.values, "tool");
      // imported prompts are their own kind: --kind history_prompt asks for them alone
      const onlyHistory = kind === HISTORY_KIND;
      const args = {
        query: q,
        vis: scope.vis,
        filters: { tool, kind, prompts: a.values.prompts === true, paths, since, until },
        limit,
        byTime,
        filter,
      };
      const strict = a.values.strict === true;
      const { hits, titles, further } = onlyHistory
        ? { hits: [], titles: [], further: null }
        : await runSearch(o.db, { ...args, titles: true, strict });
      const called = (name: string) => toolCalled(o.db!, scope.vis, name);
      warnings.push(...filterNotes(kind, tool, hits.length, called));
      // the spec's shape until history is imported; then `history` holds its hits (found by
      // words only: filters select turns)
      const imported = hasHistoryTables(o.db);
      const history = imported && q.match !== null && !a.values.prompts &&
          (onlyHistory || (!kind && !tool && paths.length === 0))
        ? historyHits(o.db, q, scope.vis, { since, until, limit }, filter)
        : [];
      const historyLines = history.map((h) =>
        `history  ${h.ts.slice(0, 16).replace("T", " ")}  ${h.project ?? "-"}\n    ${h.excerpt}\n`
      );
      const human: Chunk[] = [
        ...(!a.json && stdoutIsTerminal(ctx)
          ? terminalHits(hits, q.folded, boldWanted(ctx.env), terminalColumns(ctx))
          : plainHits(hits)),
        ...titles.map(titleLine),
        ...historyLines,
      ];
      return outcome("search", {
        query: q.text,
        truncated: q.truncated,
        hits: hits.map((h) => hitDoc(h, true)),
        // sessions found by their title: a part of their own, present when there are any
        ...(titles.length ? { titles } : {}),
        ...(imported ? { history } : {}),
      }, {
        human,
        warnings,
        counts: [
          `${hits.length} hit(s)${titles.length ? `, ${titles.length} session title(s)` : ""}${
            history.length ? `, ${history.length} history prompt(s)` : ""
          }`,
          // why answers beyond turns holding every word were added (the --json reason)
          ...(further ? [further] : []),
        ],
        reason: hits.length === 0 && history.length === 0 && titles.length === 0
          ? (byTime ? NO_FILTERED_REASON : strict ? NO_TURN_REASON : NO_WORD_REASON)
          : further,
      });
    } finally {
      o.db.close();
    }
  },
};
