/** terminus doctor [--json]: what is and is not wired into Claude Code. Writes nothing. */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { type Chunk, outcome, painted, terminalColumns, terminalStyle } from "../core/output.ts";
import { CHECKS, doctor, type Report } from "../core/setup/doctor.ts";

const CLOSING = "doctor changed nothing and never does.";

/** Where a finding starts: two spaces, the state (9), the check's name (23). */
const FINDING_AT = 34;

function render(r: Report, styled: boolean, columns: number | null): Chunk {
  const parts: (string | [string, string])[] = [];
  for (const k of CHECKS) {
    const c = r[k];
    parts.push("  ", [c.state, c.state.padEnd(9)], `${k.padEnd(23)}${c.finding}\n`);
    if (!c.fix) continue;
    // a fix is a line to copy: on a terminal too narrow for it in the column, it gets a line
    // of its own rather than being wrapped across two
    if (columns !== null && FINDING_AT + c.fix.length > columns) {
      parts.push(`  fix\n    ${c.fix}\n`);
    } else parts.push(`  ${"fix".padEnd(9)}${"".padEnd(23)}${c.fix}\n`);
  }
  const problems = CHECKS.filter((k) => r[k].state === "problem");
  const notes = CHECKS.filter((k) => r[k].state === "note");
  const noted = notes.length ? `, ${notes.length} note(s)` : "";
  parts.push("\n");
  parts.push(
    problems.length
      ? ["problem", `${problems.length} problem(s)${noted}. ${CLOSING}\n`]
      : [notes.length ? "note" : "ok", `no problems${noted}. ${CLOSING}\n`],
  );
  return painted(parts, styled);
}

const help: CommandHelp = {
  options: [JSON_OPTION],
  examples: ["terminus doctor"],
};

export const command: Command = {
  name: "doctor",
  help,
  usage: "terminus doctor [--json]",
  options: {},
  positionals: false,
  json: true,
  empty: () => ({}),
  async run(ctx, a) {
    const r = await doctor({ env: ctx.env, cwd: ctx.cwd });
    const problems = CHECKS.filter((k) => r[k].state === "problem");
    return outcome("doctor", r, {
      ok: problems.length === 0,
      exitCode: problems.length ? 1 : 0,
      reason: problems.length ? `${problems.length} problem(s): ${problems.join(", ")}` : null,
      human: [render(r, !a.json && terminalStyle(ctx), terminalColumns(ctx))],
    });
  },
};
