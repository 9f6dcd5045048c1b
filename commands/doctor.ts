/** terminus doctor [--json]: what is and is not wired into Claude Code. Writes nothing. */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { type Chunk, outcome, painted, terminalStyle } from "../core/output.ts";
import { CHECKS, doctor, type Report } from "../core/setup/doctor.ts";

const CLOSING = "doctor changed nothing and never does.";

function render(r: Report, styled: boolean): Chunk {
  const parts: (string | [string, string])[] = [];
  for (const k of CHECKS) {
    const c = r[k];
    parts.push("  ", [c.state, c.state.padEnd(9)], `${k.padEnd(23)}${c.finding}\n`);
    if (c.fix) parts.push(`  ${"fix".padEnd(9)}${"".padEnd(23)}${c.fix}\n`);
  }
  const problems = CHECKS.filter((k) => r[k].state === "problem");
  parts.push("\n");
  parts.push(
    problems.length
      ? ["problem", `${problems.length} problem(s). ${CLOSING}\n`]
      : ["ok", `no problems. ${CLOSING}\n`],
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
      human: [render(r, !a.json && terminalStyle(ctx))],
    });
  },
};
