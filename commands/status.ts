/** terminus status: the store, its counts, and the last archive pass. Takes no lock. */
import { noStoreYet } from "../core/errors.ts";
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { humanBytes, outcome, painted, row, terminalStyle } from "../core/output.ts";
import { resolveAll } from "../core/setup_context.ts";
import { openRead } from "../core/store/db.ts";
import { counts, fileSizes } from "../core/store/inspect.ts";
import { IN_FLIGHT_NOTE, lastRun } from "../core/store/runs.ts";
import { rootProblems } from "../core/roots.ts";
import { runningProgress } from "../core/ingest/backfill.ts";
import { allSessionStates } from "../core/store/archive.ts";

const lines = (s: string | null) => (s ? s.split("\n") : null);

/** Why no pass could ever create a store in `dir`, or null when it is absent or a folder. */
function unusableDataDir(dir: string): string | null {
  try {
    if (Deno.statSync(dir).isDirectory) return null;
    return `the data directory ${dir} is not a folder, so no store can be kept there`;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    return `the data directory ${dir} cannot be read: ${(e as Error).message}`;
  }
}

function empty() {
  return {
    store: null,
    size_bytes: 0,
    sessions: 0,
    turns: 0,
    watermarks: 0,
    watermark_bytes: 0,
    excluded: null,
    last_run: null,
  };
}

const help: CommandHelp = {
  options: [JSON_OPTION],
  examples: ["terminus status", "terminus status --json"],
};

export const command: Command = {
  name: "status",
  help,
  usage: "terminus status [--json]",
  options: {},
  positionals: false,
  json: true,
  empty,
  run(ctx, a) {
    const r = resolveAll(ctx);
    // configured roots are used as written: one that is not there is walked for nothing
    const roots = r.cfg.roots.length > 0 ? rootProblems(r.roots) : [];
    const opened = openRead(r.store);
    if (!opened) {
      const unusable = unusableDataDir(r.dataDir);
      return Promise.resolve(outcome("status", empty(), {
        ok: unusable === null,
        reason: unusable ?? noStoreYet(r.store),
        warnings: roots,
      }));
    }
    const { db } = opened;
    const warnings = [...roots, ...opened.warnings];
    try {
      const c = counts(db);
      const run = lastRun(db);
      const size = fileSizes(r.store).total;
      const data = {
        store: r.store,
        size_bytes: size,
        sessions: c.sessions,
        turns: c.turns,
        watermarks: c.watermarks,
        watermark_bytes: c.watermarkBytes,
        excluded: r.cfg.excludeListed,
        last_run: run
          ? {
            started_at: run.startedAt,
            // a pass in flight has no duration yet, and says so rather than pass for an empty one
            duration_ms: run.inFlight ? null : run.durationMs,
            files_seen: run.filesSeen,
            files_committed: run.filesCommitted,
            files_failed: run.filesFailed,
            bytes_read: run.bytesRead,
            turns_added: run.turnsAdded,
            error: lines(run.error),
            notes: run.inFlight ? [IN_FLIGHT_NOTE] : lines(run.notes),
          }
          : null,
      };
      const out = [
        row("store", r.store),
        row("size", humanBytes(size)),
        row("sessions", c.sessions),
        row("turns", c.turns),
        row("watermarks", `${c.watermarks} covering ${c.watermarkBytes} byte(s)`),
      ];
      if (r.cfg.excludeListed.length) out.push(row("excluded", r.cfg.excludeListed.join(", ")));
      if (run) {
        out.push(
          row("last run", run.startedAt),
          row("  duration", run.inFlight ? "not finished" : `${run.durationMs} ms`),
          ...(run.inFlight
            ? [row("  progress", runningProgress(r, allSessionStates(db), run))]
            : []),
          row(
            "  files",
            `${run.filesSeen} walked, ${run.filesCommitted} committed, ${run.filesFailed} failed`,
          ),
          row("  bytes read", run.bytesRead),
          row("  turns added", run.turnsAdded),
        );
        for (const n of run.inFlight ? [IN_FLIGHT_NOTE] : lines(run.notes) ?? []) {
          out.push(row("  notes", n));
        }
        for (const e of lines(run.error) ?? []) out.push(row("  error", e));
      } else {
        out.push(row("last run", "none yet"));
      }
      // on a terminal a failed file or an error is red, a pass still running yellow
      const styled = !a.json && terminalStyle(ctx.env);
      const state = (l: string) =>
        /^ {2}error/.test(l) || /[1-9]\d* failed$/.test(l)
          ? "problem"
          : /^ {2}(duration +not finished|progress)/.test(l)
          ? "note"
          : null;
      const human = painted(
        out.map((l) => {
          const s = state(l);
          return s ? [s, l + "\n"] as [string, string] : l + "\n";
        }),
        styled,
      );
      return Promise.resolve(outcome("status", data, { human: [human], warnings }));
    } finally {
      db.close();
    }
  },
};
