/** terminus doctor [--json]: what is and is not wired into Claude Code. Writes nothing. */
import type { Command } from "./types.ts";
import { outcome } from "../core/output.ts";
import { CHECKS, doctor, type Report } from "../core/setup/doctor.ts";

const CLOSING = "doctor changed nothing and never does.";

function render(r: Report): string {
  const lines: string[] = [];
  for (const k of CHECKS) {
    const c = r[k];
    lines.push(`  ${c.state.padEnd(9)}${k.padEnd(23)}${c.finding}`);
    if (c.fix) lines.push(`  ${"fix".padEnd(9)}${"".padEnd(23)}${c.fix}`);
  }
  const problems = CHECKS.filter((k) => r[k].state === "problem");
  lines.push("");
  lines.push(
    problems.length ? `${problems.length} problem(s). ${CLOSING}` : `no problems. ${CLOSING}`,
  );
  return lines.join("\n") + "\n";
}

export const command: Command = {
  name: "doctor",
  usage: "terminus doctor [--json]",
  options: {},
  positionals: false,
  json: true,
  empty: () => ({}),
  async run(ctx) {
    const r = await doctor({ env: ctx.env, cwd: ctx.cwd });
    const problems = CHECKS.filter((k) => r[k].state === "problem");
    return outcome("doctor", r, {
      ok: problems.length === 0,
      exitCode: problems.length ? 1 : 0,
      reason: problems.length ? `${problems.length} problem(s): ${problems.join(", ")}` : null,
      human: [render(r)],
    });
  },
};
