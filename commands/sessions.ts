/** terminus sessions: every archived session in the project, one line each. */
import { basename } from "../core/posix.ts";
import type { Command } from "./types.ts";
import { outcome } from "../core/output.ts";
import { boundFlag, day } from "../core/time.ts";
import { listSessions } from "../core/store/query.ts";
import { BOUND_OPTIONS, openForRead, PROJECT_OPTION, scopeOf, str, wholeFlag } from "./common.ts";

export const command: Command = {
  name: "sessions",
  usage:
    "terminus sessions [--project <path>] [--since <time>] [--until <time>] [--limit <n>] [--json]",
  options: { ...PROJECT_OPTION, ...BOUND_OPTIONS, limit: { type: "string" } },
  positionals: false,
  json: true,
  empty: () => ({ sessions: [] }),
  async run(ctx, a) {
    const since = boundFlag("--since", str(a.values, "since"), "start");
    const until = boundFlag("--until", str(a.values, "until"), "end");
    const limit = wholeFlag(a.values, "limit", 1);
    const o = await openForRead(ctx, false);
    if (!o.db) return outcome("sessions", { sessions: [] }, { reason: o.reason });
    try {
      const scope = scopeOf(ctx, o.db, o.r, a.values);
      if (!scope.ok) {
        return outcome("sessions", { sessions: [] }, {
          reason: scope.reason,
          warnings: o.warnings,
        });
      }
      const rows = listSessions(o.db, scope.vis, since, until, limit);
      const human = rows.map((s) =>
        `${day(s.first_turn_at)}  ${basename(s.session_key)}  ${s.turns} turn(s)  ${
          s.project ?? "-"
        }  ${s.branch ?? "-"}${s.sidecar ? "  (subagent)" : ""}${s.evicted ? "  (evicted)" : ""}\n`
      );
      return outcome("sessions", { sessions: rows }, {
        human,
        warnings: o.warnings,
        counts: [`${rows.length} session(s)`],
      });
    } finally {
      o.db.close();
    }
  },
};
