/**
 * terminus uninstall [--purge] [-y]: take out what install added; with --purge, also delete
 * the data directory after asking once.
 *
 * The one command that writes before it returns: a question has to reach the terminal
 * before its answer can be read, so `ask` puts it on stderr itself (everything else goes
 * through the outcome, as in every command).
 */
import type { Command, CommandHelp } from "./types.ts";
import { escapeControls, outcome } from "../core/output.ts";
import { uninstall } from "../core/setup/uninstall.ts";
import { readLine, writeAll } from "../io.ts";

/** Writes the question to stderr and reads one line; null when stdin ends first. */
export async function ask(question: string): Promise<boolean | null> {
  writeAll("stderr", [escapeControls(question)]);
  const answer = await readLine(1024);
  if (answer === null) {
    writeAll("stderr", ["\n"]);
    return null;
  }
  const a = answer.trim().toLowerCase();
  return a === "y" || a === "yes";
}

const help: CommandHelp = {
  options: [
    ["--purge", "also delete the data directory, after asking once"],
    ["-y, --yes", "answer the --purge question yes"],
  ],
  examples: ["terminus uninstall", "terminus uninstall --purge"],
};

export const command: Command = {
  name: "uninstall",
  help,
  usage: "terminus uninstall [--purge] [-y | --yes]",
  options: {
    purge: { type: "boolean" },
    yes: { type: "boolean", short: "y" },
  },
  positionals: false,
  json: false,
  empty: () => null,
  async run(ctx, args) {
    const r = await uninstall({
      env: ctx.env,
      purge: args.values.purge === true,
      yes: args.values.yes === true,
      confirm: ask,
    });
    const lines: string[] = [];
    for (const s of r.steps) {
      lines.push(`  ${(s.ok ? "done" : "failed").padEnd(8)}${s.label.padEnd(15)}${s.text}`);
    }
    lines.push("", "kept:");
    for (const k of r.kept) lines.push(`  ${k.label.padEnd(10)}${k.text}`);
    const failed = r.steps.filter((s) => !s.ok);
    return outcome("uninstall", null, {
      ok: failed.length === 0,
      exitCode: failed.length ? 1 : 0,
      reason: failed.length
        ? `uninstall: ${failed.length} step(s) could not be done: ${
          failed.map((s) => s.label).join(", ")
        }`
        : null,
      human: [lines.join("\n") + "\n"],
    });
  },
};
