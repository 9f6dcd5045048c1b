/**
 * `terminus sessions delete <session>...`: the adapter. It reads the command line; the
 * procedure (the plan, its questions through the Context's dialogue, the work under the ingest
 * lock) is core/sessions/delete_sessions.ts.
 */
import type { Parsed } from "../types.ts";
import type { Context } from "../../core/context.ts";
import type { Outcome } from "../../core/output.ts";
import { UsageError } from "../../core/errors.ts";
import { deleteSessions, emptyDelete } from "../../core/sessions/delete_sessions.ts";
import type { Verb } from "./verb.ts";

function forget(ctx: Context, a: Parsed): Promise<Outcome> {
  const refs = a.positionals.slice(1);
  if (refs.length === 0) {
    throw new UsageError("sessions delete needs at least one session (42, #42, a UUID or a path)");
  }
  const yes = a.values.yes === true;
  const dryRun = a.values["dry-run"] === true;
  const withCompact = a.values.compact === true;
  if (dryRun && (yes || withCompact)) {
    throw new UsageError(`--dry-run changes nothing; it takes no --${yes ? "yes" : "compact"}`);
  }
  return deleteSessions(ctx, {
    refs,
    yes,
    dryRun,
    withTranscript: a.values.transcript === true,
    withSnapshots: a.values.snapshots === true,
    withCompact,
  });
}

export const deleteVerb: Verb = {
  name: "delete",
  summary: "forget sessions for good (asks first)",
  options: ["yes", "dry-run", "transcript", "snapshots", "compact"],
  empty: emptyDelete,
  run: forget,
};
