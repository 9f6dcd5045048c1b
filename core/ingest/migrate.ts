/**
 * Re-keying 2.0.x subagent files that earlier builds keyed by their bare name. Two projects
 * each holding an `agent-<id>.jsonl` were merged into one session and then flagged diverged;
 * each session now takes its file's canonical path as its key, and the other file is archived
 * under its own on the next pass.
 */
import { type Db, transaction } from "../store/db.ts";
import {
  bareAgentSessions,
  markAgentKeysMigrated,
  markWindowsProjectsMigrated,
  rekeySession,
  setProject,
  windowsProjectRows,
} from "../store/migrate.ts";
import { windowsPath } from "../posix.ts";
import { foldWorktree } from "../transcript/project.ts";
import { readWholeStream } from "../store/blocks.ts";
import { initReader } from "../store/codec.ts";
import { keyFor } from "../transcript/session_key.ts";
import { NotPlainFile, readPlainCapped } from "../plain_file.ts";

/** Returns notes for the run row; null once the store is migrated (nothing was looked at). */
export async function migrateAgentKeys(db: Db): Promise<string[] | null> {
  const found = bareAgentSessions(db);
  if (found === null) return null;
  const notes: string[] = [];
  if (found.length > 0) await initReader();
  transaction(db, () => {
    for (const s of found) {
      if (!s.transcriptPath) continue;
      const key = keyFor(s.transcriptPath, true).sessionKey;
      // the archived stream is the file's only when it is a prefix of it; a stream that mixes
      // two files keeps its old key and its diverged flag, and each file is archived afresh
      if (!s.evicted && !isPrefixOf(readWholeStream(db, s.sessionNo), s.transcriptPath)) {
        notes.push(
          `${s.sessionKey} holds bytes of two projects' files; it is kept as it is, and each file is archived under its own key`,
        );
        continue;
      }
      if (!rekeySession(db, s.sessionNo, key)) {
        notes.push(`${s.sessionKey}: not re-keyed, ${key} is archived already`);
        continue;
      }
      notes.push(`${s.sessionKey} re-keyed as ${key}`);
    }
    markAgentKeysMigrated(db);
  });
  return notes;
}

function isPrefixOf(stream: Uint8Array, path: string): boolean {
  let file: Uint8Array;
  try {
    file = readPlainCapped(path, Number.MAX_SAFE_INTEGER); // never blocks on a FIFO
  } catch (e) {
    if (e instanceof NotPlainFile) return false;
    return true; // the file is gone: the stream was archived from it
  }
  if (file.length < stream.length) return false;
  for (let i = 0; i < stream.length; i++) if (stream[i] !== file[i]) return false;
  return true;
}

/**
 * Sessions from Windows that an earlier build filed under their cwd as written (`D:\\repo`)
 * are filed under the project that cwd is now matched as (`D:/repo`, a worktree folded onto
 * its repository). Returns how many moved; null once the store is migrated.
 */
export function migrateWindowsProjects(db: Db): number | null {
  const rows = windowsProjectRows(db);
  if (rows === null) return null;
  transaction(db, () => {
    for (const r of rows) {
      const win = windowsPath(r.project);
      if (win === null) continue;
      const info = foldWorktree(win) ?? { project: win, preWorktree: null };
      setProject(db, r.sessionNo, info.project, info.preWorktree);
    }
    markWindowsProjectsMigrated(db);
  });
  return rows.length;
}
