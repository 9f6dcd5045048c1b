/** `terminus sessions changes <session>`: the adapter for core/sessions/changes.ts. */
import type { Parsed } from "../types.ts";
import type { Context } from "../../core/context.ts";
import { type Outcome, outcome, styledChunk, terminalStyle } from "../../core/output.ts";
import { NotFoundError, UsageError } from "../../core/errors.ts";
import { egress, isRedacting } from "../../core/egress.ts";
import { resolveRef } from "../../core/sessions/ref.ts";
import { loadSession } from "../../core/sessions/load.ts";
import { viewOf } from "../../core/sessions/list.ts";
import { onlyFile, sessionChanges } from "../../core/sessions/changes.ts";
import { changesText } from "../../core/sessions/changes_render.ts";
import { openForRead, str } from "../common.ts";
import type { Verb } from "./verb.ts";

const NAME = "sessions changes";

export const emptyChanges = () => ({
  session: null,
  files: [],
  total: { files: 0, changes: 0, added: 0, removed: 0, failed: 0 },
});

async function changesOf(ctx: Context, a: Parsed): Promise<Outcome> {
  const ref = a.positionals[1];
  if (ref === undefined) {
    throw new UsageError("sessions changes needs a session (42, #42, a UUID or a path)");
  }
  if (a.positionals.length > 2) {
    throw new UsageError(`sessions changes takes one session; '${a.positionals[2]}' is extra`);
  }
  const file = str(a.values, "file");
  if (file === "") throw new UsageError("--file needs a path");
  const o = await openForRead(ctx);
  if (!o.db) throw new NotFoundError(o.reason);
  try {
    const row = resolveRef(o.db, o.r.cfg, ctx.cwd, ref);
    if (row.evicted) {
      throw new NotFoundError(
        `session #${row.session_no}'s text was evicted by retention; its changes went with it`,
      );
    }
    // diffs are archived text on their way to a person, as `sessions show` prints it
    const redacting = isRedacting(egress(o.r.cfg.privacy.redactRecall));
    const s = loadSession(o.db, row, { project: null, exclude: o.r.cfg.exclude }, redacting);
    let c = sessionChanges(s.records, s.turnIds);
    if (file !== undefined) c = onlyFile(c, file, ctx.cwd);
    const styled = !a.json && terminalStyle(ctx);
    return outcome(NAME, { session: viewOf(row, egress(redacting)), ...c }, {
      human: c.files.length ? [styledChunk(changesText(c, row.project, styled), styled)] : [],
      warnings: o.warnings,
      // what the transcript cannot prove, said where a person reads the listing
      counts: c.files.length
        ? [
          "from the session's own tool calls: a file changed any other way (an editor, a formatter, any shell command but mv and rm) is not shown",
        ]
        : [],
      reason: c.files.length === 0
        ? (file !== undefined
          ? `session #${row.session_no} made no change to ${file} that its tool calls show`
          : `session #${row.session_no} made no file change that its tool calls show`)
        : null,
    });
  } finally {
    o.db.close();
  }
}

export const changes: Verb = {
  name: "changes",
  summary: "what a session did to files, as diffs",
  options: ["file"],
  empty: emptyChanges,
  run: changesOf,
};
