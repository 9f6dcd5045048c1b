/**
 * `import-history`'s use case: find Claude Code's history.jsonl, check the store can take it,
 * then count (dry run) or import its prompts under the ingest lock.
 */
import type { Context } from "../context.ts";
import { TerminusError } from "../errors.ts";
import { join } from "../posix.ts";
import { openStore, predatesBuild } from "../open.ts";
import { LOCK_HELD, lockHeldMessage, withLockedStore } from "../store/lock.ts";
import { importHistory, type ImportResult } from "./import.ts";
import { dataDir, type Env, storePath, transcriptRoots } from "../paths.ts";
import { openRead } from "../store/db.ts";
import { hasHistoryTables, historyCount } from "../store/history_sql.ts";

export type HistoryImport =
  /** Nothing imported: no history to read, or a pass holds the lock (`ok` false). */
  | { result: null; ok: boolean; reason: string }
  | { result: ImportResult; file: string; warnings: string[] };

export async function runImportHistory(ctx: Context, dryRun: boolean): Promise<HistoryImport> {
  // the store first: a file that is not ours fails the same whatever the history holds
  const read = await openStore(ctx);
  const r = read.r;
  // Claude Code keeps history.jsonl in its config folder, whatever roots Terminus reads
  const file = join(transcriptRoots([], ctx.env)[0], "history.jsonl");
  let res: ImportResult | typeof LOCK_HELD | undefined;
  try {
    let info: Deno.FileInfo | null = null;
    try {
      info = Deno.statSync(file);
    } catch { /* no history */ }
    if (!info) {
      return {
        result: null,
        ok: true,
        reason: `no prompt history at ${file}${read.db ? "" : ` (and no store yet at ${r.store})`}`,
      };
    }
    if (!info.isFile) throw new TerminusError(`${file} is not a file`);
    if (read.db && predatesBuild(read.format)) {
      throw new TerminusError(
        `${r.store} predates this build; run terminus ingest once, then import-history again`,
      );
    }
    if (dryRun) res = await importHistory(read.db, r.cfg, file, true);
  } finally {
    read.db?.close();
  }
  // under the ingest lock, so that no data move copies the store from under the import
  res ??= await withLockedStore(
    r.dataDir,
    r.store,
    (db) => importHistory(db, r.cfg, file, false),
  );
  if (res === LOCK_HELD) {
    return {
      result: null,
      ok: false,
      reason: `${lockHeldMessage(r.dataDir)}; run import-history again once it is done`,
    };
  }
  return { result: res, file, warnings: read.db ? read.warnings : [] };
}

/** Whether prompt history was imported into the store already (install stops offering it). */
export function historyImported(env: Env): boolean {
  try {
    const o = openRead(storePath(dataDir(env)));
    if (!o) return false;
    try {
      return hasHistoryTables(o.db) && historyCount(o.db) > 0;
    } finally {
      o.db.close();
    }
  } catch {
    return false; // a store that cannot be read: the offer stands
  }
}
