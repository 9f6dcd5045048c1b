/**
 * terminus uninstall [--purge] [-y]: take out what install added; with --purge, also delete
 * the data directory after asking once. The question reaches the terminal before its answer
 * can be read, so it goes through the Context's dialogue (on stderr); everything else goes
 * through the outcome, as in every command.
 */
import type { Command, CommandHelp } from "./types.ts";
import { outcome } from "../core/output.ts";
import { uninstall } from "../core/setup/uninstall.ts";

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
      confirm: (q) => {
        if (!ctx.io) throw new Error("uninstall --purge needs a dialogue to ask through");
        return ctx.io.confirm(q);
      },
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
