/**
 * What the hooks remember between events of one Claude Code session, kept as one small file
 * per session in the data directory (the hooks never write SQLite): turns already handed over,
 * turns the brief quoted, and a compaction still owed its wider look.
 */
import { join } from "../posix.ts";
import { DIR_MODE, FILE_MODE } from "../constants.ts";
import { writeFileAtomic } from "../fs.ts";
import { STATE_DIR, TEMP_DIR } from "../paths.ts";

export interface SessionState {
  injected: number[];
  brief_quoted: number[];
  /** Set by SessionStart(compact) / PostCompact: the boundaries known then. */
  compaction_owed: { known_boundaries: number } | null;
  /** The project the session started in (an excluded start keeps the whole session out). */
  start_project: string | null;
}

const EMPTY: SessionState = {
  injected: [],
  brief_quoted: [],
  compaction_owed: null,
  start_project: null,
};

/** Session ids name files: only an allow-listed shape is accepted. */
export function safeSessionId(id: unknown): string | null {
  return typeof id === "string" && /^[A-Za-z0-9_-]{1,128}$/.test(id) ? id : null;
}

function path(dataDir: string, sessionId: string): string {
  return join(dataDir, STATE_DIR, `${sessionId}.json`);
}

export function readState(dataDir: string, sessionId: string): SessionState {
  try {
    const v = JSON.parse(Deno.readTextFileSync(path(dataDir, sessionId)));
    return { ...EMPTY, ...v };
  } catch {
    return { ...EMPTY };
  }
}

/** Writes atomically (core/fs.ts): a failed write leaves neither a half file nor its temp. */
export function writeAtomic(dir: string, name: string, text: string): void {
  Deno.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  // temporaries in their own folder: the pass sweeps what a killed hook left by listing it
  // alone, not the state folder's file per session
  writeFileAtomic(join(dir, name), text, { mode: FILE_MODE, tmpDir: join(dir, TEMP_DIR) });
}

export function writeState(dataDir: string, sessionId: string, s: SessionState): void {
  writeAtomic(join(dataDir, STATE_DIR), `${sessionId}.json`, JSON.stringify(s));
}
