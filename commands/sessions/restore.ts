/** `terminus sessions restore <session>`: put back a transcript Claude Code deleted. */
import type { Parsed } from "../types.ts";
import type { Context } from "../../core/context.ts";
import { type Outcome, outcome } from "../../core/output.ts";
import { NotFoundError, UsageError } from "../../core/errors.ts";
import type { Verb } from "./verb.ts";
import { egress } from "../../core/egress.ts";
import { viewOf } from "../../core/sessions/list.ts";
import { resolveRef } from "../../core/sessions/ref.ts";
import { planRestore, writeRestore } from "../../core/sessions/restore.ts";
import { openForRead, str } from "../common.ts";
import { refArg } from "./verb.ts";

async function restoreOne(ctx: Context, a: Parsed): Promise<Outcome> {
  const ref = refArg(a, "restore");
  if (a.positionals.length > 2) {
    throw new UsageError(`sessions restore takes one session; '${a.positionals[2]}' is extra`);
  }
  const to = str(a.values, "to") ?? null;
  if (to === "") throw new UsageError("--to needs a folder (Claude Code's config folder)");
  const dryRun = a.values["dry-run"] === true;
  const o = await openForRead(ctx);
  if (!o.db) throw new NotFoundError(o.reason);
  try {
    const row = resolveRef(o.db, o.r.cfg, ctx.cwd, ref);
    const vis = { project: null, exclude: o.r.cfg.exclude };
    const plan = planRestore(o.db, row, vis, { roots: o.r.roots, to, cwd: ctx.cwd, dryRun });
    if (!dryRun) writeRestore(plan);
    const files = plan.files.map(({ path, bytes, status }) => ({ path, bytes, status }));
    return outcome("sessions restore", {
      session: viewOf(row, egress(o.r.cfg.privacy.redactRecall)),
      config: plan.config,
      files,
      resume: plan.resume,
      dry_run: dryRun,
    }, {
      human: plan.resume ? [plan.resume + "\n"] : [],
      wrap: false, // a command to copy
      warnings: o.warnings,
      counts: files.map((f) => `${f.status}: ${f.path} (${f.bytes} byte(s))`),
    });
  } finally {
    o.db.close();
  }
}

export const restore: Verb = {
  name: "restore",
  summary: "put back a transcript Claude Code deleted, so --resume works",
  options: ["to", "dry-run"],
  empty: () => ({ session: null, config: null, files: [], resume: null, dry_run: false }),
  run: restoreOne,
};
