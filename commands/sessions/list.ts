/** `terminus sessions` (or `sessions list`): a page of sessions, newest first. */
import type { Parsed } from "../types.ts";
import type { Context } from "../../core/context.ts";
import { type Outcome, outcome } from "../../core/output.ts";
import { UsageError } from "../../core/errors.ts";
import type { Verb } from "./verb.ts";
import { terminalColumns } from "../../core/output.ts";
import { boundFlag } from "../../core/time.ts";
import { listingLines } from "../../core/sessions/list.ts";
import { listVisibleSessions } from "../../core/sessions/listing.ts";
import { SESSIONS_PAGE } from "../../core/constants.ts";
import { str, wholeFlag } from "../common.ts";
import { tagFlags } from "./search.ts";

async function listing(ctx: Context, a: Parsed): Promise<Outcome> {
  // `sessions list`, as gh and term-llm spell it, is the listing itself
  const extra = a.positionals.slice(a.positionals[0] === "list" ? 1 : 0);
  if (extra.length) throw new UsageError(`sessions takes no argument '${extra[0]}'`);
  const since = boundFlag("--since", str(a.values, "since"), "start");
  const until = boundFlag("--until", str(a.values, "until"), "end");
  const asked = wholeFlag(a.values, "limit", 1);
  const all = a.values.all === true;
  if (all && asked !== null) throw new UsageError("sessions takes --limit or --all, not both");
  // a person gets a page and the count of the rest; a script (--json) every row it asks for
  const paged = asked === null && !all && !a.json;
  const limit = paged ? SESSIONS_PAGE : asked;
  const tags = tagFlags(a);
  // --json lists in session_no order, as scripts are promised; a person reads newest first.
  // Either way --limit keeps the newest.
  const order = a.json ? "number" : "newest";
  const l = await listVisibleSessions(ctx, a.values.project as string | undefined, {
    since,
    until,
    limit,
    tags,
    order,
  });
  if (l.reason !== null) {
    return outcome("sessions", { sessions: [] }, { reason: l.reason, warnings: l.warnings });
  }
  const rest = l.total - l.views.length;
  return outcome("sessions", { sessions: l.views }, {
    human: listingLines(l.views, terminalColumns(ctx)),
    warnings: l.warnings,
    counts: [
      rest > 0
        ? `${l.views.length} of ${l.total} session(s), the newest; --limit <n> or --all lists more`
        : `${l.views.length} session(s)`,
    ],
    page: true,
  });
}

export const list: Verb = {
  name: "list",
  summary: "the sessions, newest first: what terminus sessions prints with no verb",
  options: ["project", "since", "until", "limit", "all", "tag"],
  empty: () => ({ sessions: [] }),
  run: listing,
};
