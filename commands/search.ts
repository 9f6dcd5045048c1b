/** terminus search <words>: find past turns by text, path, error line or identifier. */
import { basename, resolve } from "../core/posix.ts";
import type { Command } from "./types.ts";
import { outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";
import { boundFlag, day } from "../core/time.ts";
import { NO_WORDS_REASON, parseQuery, TRUNCATED_NOTE } from "../core/recall/query.ts";
import { hitDoc, search } from "../core/recall/search.ts";
import { egress } from "../core/egress.ts";
import { historyHits } from "../core/history/search.ts";
import { hasHistoryTables } from "../core/store/history_sql.ts";
import { normalisePath } from "../core/index/entities.ts";
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

export const command: Command = {
  name: "search",
  usage:
    "terminus search <words>... [--project <path>] [--tool <name>] [--kind <type>] [--path <path>]... [--since <time>] [--until <time>] [--limit <n>] [--raw] [--json]",
  options: {
    ...PROJECT_OPTION,
    ...BOUND_OPTIONS,
    tool: { type: "string" },
    kind: { type: "string" },
    path: { type: "string", multiple: true },
    limit: { type: "string" },
    raw: { type: "boolean" },
  },
  positionals: true,
  json: true,
  empty: (a) => {
    const q = parseQuery(a.positionals.join(" "));
    return { query: q.text, truncated: q.truncated, hits: [] };
  },
  async run(ctx, a) {
    if (a.positionals.length === 0) {
      throw new UsageError("search needs at least one word to look for");
    }
    const since = boundFlag("--since", str(a.values, "since"), "start");
    const until = boundFlag("--until", str(a.values, "until"), "end");
    const limitArg = wholeFlag(a.values, "limit", 1);
    const limit = Math.min(limitArg ?? SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX);
    const q = parseQuery(a.positionals.join(" "));
    const empty = { query: q.text, truncated: q.truncated, hits: [] as unknown[] };
    const warnings: string[] = [];
    if (q.truncated) warnings.push(TRUNCATED_NOTE);
    if (!q.match) return outcome("search", empty, { reason: NO_WORDS_REASON, warnings });
    const o = await openForRead(ctx);
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
      const hits = onlyHistory ? [] : search(o.db, {
        query: q,
        vis: scope.vis,
        filters: { tool, kind, paths, since, until },
        limit,
        filter,
      });
      // the spec's shape until history is imported; then `history` holds its hits
      const imported = hasHistoryTables(o.db);
      const history = imported && (onlyHistory || (!kind && !tool && paths.length === 0))
        ? historyHits(o.db, q, scope.vis, { since, until, limit }, filter)
        : [];
      const human = hits.map((h) =>
        `${h.turn_id}  ${day(h.ts)}  ${basename(h.session_key)}  ${h.project ?? "-"}${
          h.sidechain ? "  (subagent)" : ""
        }\n    ${h.matched_on.some((m) => m.kind === "title") ? "title: " : ""}${h.excerpt}\n`
      ).concat(
        history.map((h) =>
          `history  ${h.ts.slice(0, 16).replace("T", " ")}  ${h.project ?? "-"}\n    ${h.excerpt}\n`
        ),
      );
      return outcome("search", {
        query: q.text,
        truncated: q.truncated,
        hits: hits.map((h) => hitDoc(h, true)),
        ...(imported ? { history } : {}),
      }, {
        human,
        warnings,
        counts: [
          `${hits.length} hit(s)${history.length ? `, ${history.length} history prompt(s)` : ""}`,
        ],
        reason: hits.length === 0 && history.length === 0 ? "no turn matched every word" : null,
      });
    } finally {
      o.db.close();
    }
  },
};
