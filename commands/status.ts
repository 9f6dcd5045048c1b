/** terminus status: the store, its counts, and the last archive pass (core/status.ts). */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { humanBytes, outcome, painted, row, terminalStyle } from "../core/output.ts";
import { IN_FLIGHT_NOTE, readStatus } from "../core/status.ts";

const lines = (s: string | null) => (s ? s.split("\n") : null);

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
  async run(ctx, a) {
    const st = await readStatus(ctx);
    if (st.store === null) {
      return outcome("status", empty(), { ok: st.ok, reason: st.reason, warnings: st.warnings });
    }
    const { run, counts: c, warnings } = st;
    const size = st.sizeBytes;
    const data = {
      store: st.store,
      size_bytes: size,
      sessions: c.sessions,
      turns: c.turns,
      watermarks: c.watermarks,
      watermark_bytes: c.watermarkBytes,
      excluded: st.excluded,
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
      row("store", st.store),
      row("size", humanBytes(size)),
      row("sessions", c.sessions),
      row("turns", c.turns),
      row("watermarks", `${c.watermarks} covering ${c.watermarkBytes} byte(s)`),
    ];
    if (st.excluded.length) out.push(row("excluded", st.excluded.join(", ")));
    if (run) {
      out.push(
        row("last run", run.startedAt),
        row("  duration", run.inFlight ? "not finished" : `${run.durationMs} ms`),
        ...(run.inFlight ? [row("  progress", st.progress ?? "")] : []),
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
    const styled = !a.json && terminalStyle(ctx);
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
    return outcome("status", data, { human: [human], warnings });
  },
};
