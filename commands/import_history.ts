/**
 * terminus import-history: the prompts in Claude Code's history.jsonl, kept as history_prompt
 * entries: searchable by project and time, never handed to Claude.
 */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { outcome } from "../core/output.ts";
import { emptyImport, type ImportResult } from "../core/history/import.ts";
import { runImportHistory } from "../core/history/import_history.ts";

function summary(r: ImportResult): string[] {
  const verb = r.dry_run ? "would be added" : "added";
  return [
    `${r.lines} line(s) read from ${r.file}: ${r.added} prompt(s) ${verb}, ${r.already} already imported, ${r.excluded} in excluded projects, ${r.skipped} session command(s) such as /exit left out, ${r.broken} broken`,
  ];
}

const help: CommandHelp = {
  options: [
    ["--dry-run", "count what would be imported, import nothing"],
    JSON_OPTION,
  ],
  examples: ["terminus import-history --dry-run", "terminus import-history"],
};

export const command: Command = {
  name: "import-history",
  help,
  usage: "terminus import-history [--dry-run] [--json]",
  options: { "dry-run": { type: "boolean" } },
  positionals: false,
  json: true,
  empty: (a) => emptyImport(a.values["dry-run"] === true),
  async run(ctx, a) {
    const dryRun = a.values["dry-run"] === true;
    const done = await runImportHistory(ctx, dryRun);
    if (done.result === null) {
      return outcome("import-history", emptyImport(dryRun), {
        ok: done.ok,
        reason: done.reason,
      });
    }
    const res = done.result;
    return outcome("import-history", res, {
      counts: summary(res),
      // under --json the data names the broken lines; a person reads them on stderr
      warnings: a.json ? done.warnings : [
        ...done.warnings,
        ...res.broken_lines.map((b) => `${done.file}:${b.line}: skipped, ${b.reason}`),
        ...(res.broken > res.broken_lines.length
          ? [`and ${res.broken - res.broken_lines.length} more broken line(s)`]
          : []),
      ],
    });
  },
};
