/**
 * `terminus sessions delete`'s use case: read the plan, show it and ask through the Context's
 * dialogue (on stderr: stdout carries only the outcome), then re-read the plan under the ingest
 * lock and do the work with the steps in delete.ts. The adapter (commands/sessions/delete.ts)
 * only reads the command line.
 */
import type { Context } from "../context.ts";
import { humanBytes, type Outcome, outcome } from "../output.ts";
import { egress } from "../egress.ts";
import { resolveAll } from "../resolve.ts";
import { LOCK_HELD, lockHeldMessage, withIngestLock } from "../store/lock.ts";
import {
  clearSnapshots,
  compactAfterDelete,
  type DeleteCompacted,
  deleteFromStore,
  type DeleteItem,
  type DeletePlan,
  deleteTranscripts,
  planItems,
  readDeletePlan,
  samePlan,
  tombstonesFor,
} from "./delete.ts";

const NAME = "sessions delete";

interface DeleteDoc {
  sessions: DeleteItem[];
  dry_run: boolean;
  deleted: boolean;
  prompts_deleted: number;
  tombstones: number;
  transcripts: { path: string; deleted: boolean }[];
  snapshots: { holding: number; cleared: number };
  compact: DeleteCompacted | null;
}

export const emptyDelete = (): DeleteDoc => ({
  sessions: [],
  dry_run: false,
  deleted: false,
  prompts_deleted: 0,
  tombstones: 0,
  transcripts: [],
  snapshots: { holding: 0, cleared: 0 },
  compact: null,
});

function itemLine(i: DeleteItem, indent: string): string {
  const title = i.title === null ? "(untitled)" : `"${i.title}"`;
  if (i.already_deleted) {
    return `${indent}${i.session_key}  already deleted from the store; only snapshots may hold it`;
  }
  const parts = [
    `#${i.session_no}`,
    title,
    `${i.turns} turn(s)`,
    `${humanBytes(i.bytes)} archived`,
  ];
  if (i.sidecar) parts.push("(subagent)");
  if (i.prompts > 0) parts.push(`${i.prompts} logged prompt(s) and their labels`);
  return indent + parts.join("  ");
}

function planText(p: DeletePlan): string {
  const lines: string[] = [];
  for (const t of p.targets) {
    lines.push(itemLine(t.session, ""));
    if (t.subagents.length) {
      lines.push(`  and its ${t.subagents.length} subagent session(s):`);
      for (const s of t.subagents) lines.push(itemLine(s, "    "));
    }
  }
  return lines.join("\n") + "\n";
}

/** The `--snapshots` command for what the snapshots still hold: by id, which outlives the number. */
function clearCommand(p: DeletePlan): string {
  const refs = p.targets.map((t) => t.session.session_id ?? t.session.session_key);
  return `terminus sessions delete ${refs.join(" ")} --snapshots`;
}

function docOf(p: DeletePlan, extra: Partial<DeleteDoc> = {}): DeleteDoc {
  return {
    ...emptyDelete(),
    sessions: planItems(p),
    snapshots: { holding: p.snapshots.length, cleared: 0 },
    ...extra,
  };
}

/** What the person asked for: the sessions, and each flag. */
export interface DeleteRequest {
  refs: string[];
  /** --yes: answer the questions yes. */
  yes: boolean;
  dryRun: boolean;
  /** --transcript: Claude Code's transcript files too (asked separately). */
  withTranscript: boolean;
  /** --snapshots: every snapshot too. */
  withSnapshots: boolean;
  /** --compact: then clear its traces from the store file. */
  withCompact: boolean;
}

/** Asks a yes-or-no question through the Context's dialogue. */
function confirmer(ctx: Context): (question: string) => Promise<boolean | null> {
  return (question) => {
    if (!ctx.io) throw new Error("sessions delete needs a dialogue to ask through");
    return ctx.io.confirm(question);
  };
}

export async function deleteSessions(ctx: Context, req: DeleteRequest): Promise<Outcome> {
  const { refs, dryRun, withTranscript, withSnapshots, withCompact } = req;
  const r = resolveAll(ctx);
  const filter = egress(r.cfg.privacy.redactRecall);
  const read = () => readDeletePlan(r, ctx.cwd, refs, filter);
  const first = read();
  const plan = first.plan;
  const warnings = [...first.warnings, ...plan.problems];
  const live = planItems(plan).filter((i) => !i.already_deleted);
  const onDisk = live.filter((i) => i.transcript !== null);
  if (live.length === 0 && !withSnapshots && !withCompact) {
    return outcome(NAME, docOf(plan), {
      human: [planText(plan)],
      warnings,
      counts: plan.snapshots.length
        ? [`${plan.snapshots.length} snapshot(s) still hold it; ${clearCommand(plan)} clears them`]
        : ["no snapshot holds it either; there is nothing left to delete"],
    });
  }
  if (dryRun) return dryRunOutcome(plan, onDisk, withTranscript, withSnapshots, warnings);

  // the questions, both before anything is touched: no answer to either deletes nothing
  const asked = await askToDelete(ctx, req, plan, live, onDisk, warnings);
  if ("outcome" in asked) return asked.outcome;
  const c: Confirmed = { r, read, plan, onDisk, removeFiles: asked.removeFiles, warnings };
  const done = await withIngestLock(r.dataDir, () => deleteUnderLock(req, c));
  if (done === LOCK_HELD) {
    return outcome(NAME, docOf(plan), {
      ok: false,
      reason: `${lockHeldMessage(r.dataDir)}; a pass is running, so nothing was deleted`,
      warnings,
    });
  }
  return done;
}

/** What `--dry-run` says: the plan, and what a real run would do. */
function dryRunOutcome(
  plan: DeletePlan,
  onDisk: DeleteItem[],
  withTranscript: boolean,
  withSnapshots: boolean,
  warnings: string[],
): Outcome {
  const counts = ["dry run: nothing was deleted"];
  if (onDisk.length && withTranscript) {
    counts.push(`--transcript would also delete: ${onDisk.map((i) => i.transcript).join(", ")}`);
  } else if (onDisk.length) {
    counts.push(
      `${onDisk.length} transcript(s) stay on disk; a tombstone keeps the next passes from archiving them again`,
    );
  }
  counts.push(
    withSnapshots
      ? `${plan.snapshots.length} snapshot(s) would be cleared of it`
      : `${plan.snapshots.length} snapshot(s) hold it`,
  );
  return outcome(NAME, docOf(plan, { dry_run: true }), {
    human: [planText(plan)],
    warnings,
    counts,
  });
}

/**
 * Both questions, before anything is touched (`--yes` answers them): whether to delete, and
 * whether Claude Code's transcripts go too. An outcome when the answer ends it.
 */
async function askToDelete(
  ctx: Context,
  req: DeleteRequest,
  plan: DeletePlan,
  live: DeleteItem[],
  onDisk: DeleteItem[],
  warnings: string[],
): Promise<{ outcome: Outcome } | { removeFiles: boolean }> {
  const ask = confirmer(ctx);
  const fromSnapshots = req.withSnapshots ? plan.snapshots.length : 0;
  const question = live.length
    ? `Delete ${
      live.length === 1 ? "this session" : `these ${live.length} sessions`
    } from the archive for good${
      fromSnapshots ? ` and from ${fromSnapshots} snapshot(s)` : ""
    }? [y/N] `
    : fromSnapshots
    ? `Remove it from ${fromSnapshots} snapshot(s)? [y/N] `
    : null; // compacting alone deletes nothing more
  if (!req.yes && question !== null) {
    const answer = await ask(`${planText(plan)}${question}`);
    if (answer !== true) {
      return {
        outcome: outcome(NAME, docOf(plan), {
          ok: false,
          reason: answer === null
            ? "no answer to read (stdin is closed); nothing was deleted. --yes answers yes"
            : "nothing was deleted",
          warnings,
        }),
      };
    }
  }
  let removeFiles = false;
  if (req.withTranscript && onDisk.length) {
    if (req.yes) removeFiles = true;
    else {
      const answer = await ask(
        `Also delete Claude Code's transcript file(s)?\n${
          onDisk.map((i) => `  ${i.transcript}\n`).join("")
        }[y/N] `,
      );
      if (answer === null) {
        return {
          outcome: outcome(NAME, docOf(plan), {
            ok: false,
            reason: "no answer to read (stdin is closed); nothing was deleted. --yes answers yes",
            warnings,
          }),
        };
      }
      removeFiles = answer;
    }
  }
  return { removeFiles };
}

/** What a confirmed delete carries under the lock. */
interface Confirmed {
  r: ReturnType<typeof resolveAll>;
  read: () => ReturnType<typeof readDeletePlan>;
  plan: DeletePlan;
  onDisk: DeleteItem[];
  removeFiles: boolean;
  warnings: string[];
}

/** Snapshots, then the store, then the transcripts, then compacting: run under the lock. */
function deleteUnderLock(req: DeleteRequest, c: Confirmed): Outcome {
  const { withSnapshots, withCompact } = req;
  const { r, read, plan, onDisk, removeFiles, warnings } = c;
  const live = planItems(plan).filter((i) => !i.already_deleted);
  const again = read();
  if (!samePlan(plan, again.plan)) {
    return outcome(NAME, docOf(again.plan), {
      ok: false,
      reason:
        "the sessions changed while the question waited (a pass archived more of them); nothing was deleted, run it again",
      warnings,
    });
  }
  const now = new Date();
  const tombstones = tombstonesFor(plan, now);
  const counts: string[] = [];
  // snapshots first: a kill after them leaves the session in the store, and running the
  // command again finishes the work
  let cleared = 0;
  if (withSnapshots) {
    const c = clearSnapshots(plan, tombstones);
    cleared = c.snapshots;
    warnings.push(...c.problems);
    if (c.stranded > 0) {
      warnings.push(
        `${c.stranded} free page(s) stay in snapshots made without incremental vacuum; their cells were zeroed`,
      );
    }
    counts.push(`${c.snapshots} snapshot(s) cleared of ${c.sessions} session(s)`);
  }
  const prompts = plan.sessionNos.length ? deleteFromStore(r.store, plan, tombstones) : 0;
  const transcripts = removeFiles ? deleteTranscripts(plan) : [];
  for (const t of transcripts) {
    if (!t.deleted) warnings.push(`${t.path} could not be deleted: ${t.error}`);
  }
  const kept = onDisk.length - transcripts.filter((t) => t.deleted).length;
  if (kept > 0) {
    counts.push(
      `${kept} transcript(s) stay on disk; the next passes skip them (a tombstone records each)`,
    );
  }
  if (!withSnapshots && plan.snapshots.length) {
    counts.push(
      `${plan.snapshots.length} snapshot(s) still hold it; ${clearCommand(plan)} clears them`,
    );
  }
  let compact: DeleteDoc["compact"] = null;
  if (withCompact) {
    compact = compactAfterDelete(r.store); // merges the search index first
    counts.push(`compacted: ${compact.reclaimed_bytes} byte(s) reclaimed`);
  } else if (plan.sessionNos.length) {
    counts.push(
      "its freed pages stay in the store file, and traces of its words in the search index, until terminus compact (or a delete with --compact) clears them",
    );
  }
  const human = live.map((i) => `deleted ${itemLine(i, "")}\n`);
  return outcome(
    NAME,
    docOf(plan, {
      deleted: plan.sessionNos.length > 0,
      prompts_deleted: prompts,
      tombstones: tombstones.length - plan.buried.length,
      transcripts: transcripts.map(({ path, deleted }) => ({ path, deleted })),
      snapshots: { holding: plan.snapshots.length, cleared },
      compact,
    }),
    {
      ok: transcripts.every((t) => t.deleted),
      reason: transcripts.every((t) => t.deleted) ? null : "a transcript could not be deleted",
      human,
      counts,
      warnings,
    },
  );
}
