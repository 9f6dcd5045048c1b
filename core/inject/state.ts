/**
 * What the hooks remember between events of one Claude Code session, kept as one small file
 * per session in the data directory (the hooks never write SQLite): turns already handed over,
 * turns the brief quoted, and a compaction still owed its wider look.
 */
import { join } from "../posix.ts";
import { DIR_MODE, FILE_MODE } from "../constants.ts";

export const STATE_DIR = "state";

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

/** Writes atomically: a temp file in the same folder, then a rename. */
export function writeAtomic(dir: string, name: string, text: string): void {
  Deno.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  const tmp = join(dir, `.${name}.${crypto.randomUUID()}.tmp`);
  try {
    Deno.writeTextFileSync(tmp, text, { mode: FILE_MODE });
    Deno.renameSync(tmp, join(dir, name));
  } catch (e) {
    // a full disk leaves a half-written temp file: it goes, so it takes no more room
    try {
      Deno.removeSync(tmp);
    } catch { /* never created */ }
    throw e;
  }
}

export function writeState(dataDir: string, sessionId: string, s: SessionState): void {
  writeAtomic(join(dataDir, STATE_DIR), `${sessionId}.json`, JSON.stringify(s));
}
