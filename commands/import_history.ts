/**
 * terminus import-history: the prompts in Claude Code's history.jsonl, kept as history_prompt
 * entries: searchable by project and time, never handed to Claude.
 */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { outcome } from "../core/output.ts";
import { TerminusError } from "../core/errors.ts";
import { join } from "../core/posix.ts";
import { resolveAll } from "../core/setup_context.ts";
import { transcriptRoots } from "../core/paths.ts";
import { openRead, readFormat } from "../core/store/db.ts";
import { LOCK_HELD, lockHeldMessage, withLockedStore } from "../core/ingest/lock.ts";
import { emptyImport, importHistory, type ImportResult } from "../core/history/import.ts";
import { DERIVED_SCHEMA } from "../core/constants.ts";

function summary(r: ImportResult): string[] {
  const verb = r.dry_run ? "would be added" : "added";
  return [
    `${r.lines} line(s) read from ${r.file}: ${r.added} prompt(s) ${verb}, ${r.already} already imported, ${r.excluded} in excluded projects, ${r.broken} broken`,
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
    const r = resolveAll(ctx);
    // Claude Code keeps history.jsonl in its config folder, whatever roots Terminus reads
    const file = join(transcriptRoots([], ctx.env)[0], "history.jsonl");
    // the store first: a file that is not ours fails the same whatever the history holds
    const read = openRead(r.store);
    let res: ImportResult | typeof LOCK_HELD;
    try {
      let info: Deno.FileInfo | null = null;
      try {
        info = Deno.statSync(file);
      } catch { /* no history */ }
      if (!info) {
        return outcome("import-history", emptyImport(dryRun), {
          reason: `no prompt history at ${file}${read ? "" : ` (and no store yet at ${r.store})`}`,
        });
      }
      if (!info.isFile) throw new TerminusError(`${file} is not a file`);
      if (read && readFormat(read.db)?.derivedSchema !== DERIVED_SCHEMA) {
        throw new TerminusError(
          `${r.store} predates this build; run terminus ingest once, then import-history again`,
        );
      }
      if (dryRun) res = await importHistory(read?.db ?? null, r.cfg, file, true);
    } finally {
      read?.db.close();
    }
    // under the ingest lock, so that no data move copies the store from under the import
    res ??= await withLockedStore(
      r.dataDir,
      r.store,
      (db) => importHistory(db, r.cfg, file, false),
    );
    if (res === LOCK_HELD) {
      return outcome("import-history", emptyImport(dryRun), {
        ok: false,
        reason: `${lockHeldMessage(r.dataDir)}; run import-history again once it is done`,
      });
    }
    const done = res;
    return outcome("import-history", done, {
      counts: summary(done),
      // under --json the data names the broken lines; a person reads them on stderr
      warnings: a.json ? (read?.warnings ?? []) : [
        ...(read?.warnings ?? []),
        ...done.broken_lines.map((b) => `${file}:${b.line}: skipped, ${b.reason}`),
        ...(done.broken > done.broken_lines.length
          ? [`and ${done.broken - done.broken_lines.length} more broken line(s)`]
          : []),
      ],
    });
  },
};
