/** `terminus sessions show <session>`: one session as a conversation. */
import type { Parsed } from "../types.ts";
import type { Context } from "../../core/context.ts";
import { type Outcome, outcome } from "../../core/output.ts";
import { NotFoundError, UsageError } from "../../core/errors.ts";
import type { Verb } from "./verb.ts";
import { terminalStyle } from "../../core/output.ts";
import { egress, isRedacting } from "../../core/egress.ts";
import { resolveRef } from "../../core/sessions/ref.ts";
import { loadSession } from "../../core/sessions/load.ts";
import { attachChanges, conversation } from "../../core/sessions/messages.ts";
import { sessionChanges } from "../../core/sessions/changes.ts";
import { renderText } from "../../core/sessions/render.ts";
import { SHOW_DIFF_LINES, SHOW_RESULT_LINES } from "../../core/constants.ts";
import { openForRead } from "../common.ts";
import { refArg } from "./verb.ts";

async function showOne(ctx: Context, a: Parsed): Promise<Outcome> {
  const ref = refArg(a, "show");
  if (a.positionals.length > 2) {
    throw new UsageError(`sessions show takes one session; '${a.positionals[2]}' is extra`);
  }
  const o = await openForRead(ctx);
  if (!o.db) throw new NotFoundError(o.reason);
  try {
    const row = resolveRef(o.db, o.r.cfg, ctx.cwd, ref);
    const redacting = isRedacting(egress(o.r.cfg.privacy.redactRecall && a.values.raw !== true));
    const s = loadSession(o.db, row, { project: null, exclude: o.r.cfg.exclude }, redacting);
    const full = a.values.full === true;
    const messages = attachChanges(
      conversation(s.records, full ? null : SHOW_RESULT_LINES, s.subagents),
      sessionChanges(s.records, s.turnIds),
    );
    const styled = !a.json && terminalStyle(ctx);
    return outcome("sessions show", { session: s.view, messages }, {
      human: [
        new TextEncoder().encode(
          renderText(s.view, messages, styled, full ? null : SHOW_DIFF_LINES),
        ),
      ],
      page: a.values["no-pager"] !== true,
      warnings: o.warnings,
      reason: s.view.evicted
        ? `session #${s.view.session_no}'s text was evicted by retention; only its facts remain`
        : null,
    });
  } finally {
    o.db.close();
  }
}

export const show: Verb = {
  name: "show",
  summary: "one session as a conversation",
  options: ["full", "no-pager", "raw"],
  empty: () => ({ session: null, messages: [] }),
  run: showOne,
};
