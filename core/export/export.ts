/**
 * terminus export: every visible session's stream, exactly as archived, one .jsonl file each,
 * and a manifest.json. Nothing is filtered: a folder the user names is not egress, so the
 * notice says what the files are instead.
 */
import type { ProgressFactory } from "../progress.ts";
import { dirname, join } from "../posix.ts";
import type { Config } from "../config.ts";
import { DIR_MODE, FILE_MODE, LINEAGE_MARK } from "../constants.ts";
import { canonicalJson } from "../output.ts";
import type { Db } from "../store/db.ts";
import {
  type ExportSession,
  exportSessions,
  inReadTransaction,
  streamBlocks,
} from "../store/export_sql.ts";

export const EXPORT_NOTICE =
  "This export is the verbatim, unredacted transcripts: [privacy] redact_recall does not apply to it, so anything a transcript held, a secret included, is in these files. Keep them where only you can read them.";

export const MANIFEST = "manifest.json";
/** Where a session keyed by a canonical path (a transcript outside any projects folder) goes. */
const OUTSIDE = "outside-projects";

export interface ExportFile {
  file: string;
  session_key: string;
  session_id: string | null;
  project: string | null;
  turns: number;
  bytes: number;
  evicted: boolean;
  first_turn_at: string | null;
  last_turn_at: string | null;
}

export interface ExportResult {
  manifest: string;
  sessions: number;
  turns: number;
  evicted: number;
  bytes: number;
  /** Sessions whose blocks would not give their bytes up: left out, one line each. */
  failed: string[];
}

/**
 * Refuses a destination that is not a new or empty directory, before any byte is written.
 * Returns null when it may be used, else the reason naming it.
 */
export function destinationRefusal(dest: string): string | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(dest);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    return `${dest} cannot be examined: ${(e as Error).message}; nothing was written`;
  }
  if (info.isSymlink) return `${dest} is a symlink, not a directory; nothing was written`;
  if (!info.isDirectory) return `${dest} is not a directory; nothing was written`;
  try {
    for (const _ of Deno.readDirSync(dest)) {
      return `${dest} already holds files; export writes only into a new or empty directory, and nothing was written`;
    }
  } catch (e) {
    return `${dest} cannot be listed: ${(e as Error).message}; nothing was written`;
  }
  return null;
}

/**
 * The file a session goes to: its session_key as a path below the destination, which is how
 * Claude Code lays the transcripts out below a project folder. A key that would not stay a
 * plain relative path is flattened.
 */
export function exportFileFor(sessionKey: string): string {
  // a rewritten transcript's later lineage, `<name>.jsonl#2`, is still a .jsonl file
  const lineage = new RegExp(`^(.*)\\.jsonl(${LINEAGE_MARK}\\d+)$`).exec(sessionKey);
  if (lineage) return exportFileFor(`${lineage[1]}${lineage[2]}.jsonl`);
  const rel = sessionKey.startsWith("/") ? OUTSIDE + sessionKey : sessionKey;
  const segs = rel.split("/");
  if (segs.some((s) => s === "" || s === "." || s === "..") || rel === MANIFEST) {
    return encodeURIComponent(sessionKey) + ".jsonl";
  }
  return rel;
}

function writeAll(f: Deno.FsFile, buf: Uint8Array): void {
  while (buf.length > 0) buf = buf.subarray(f.writeSync(buf));
}

/** Creates a file this command alone writes: never over an existing one, 0600 from the start. */
function createFile(path: string): Deno.FsFile {
  Deno.mkdirSync(dirname(path), { recursive: true, mode: DIR_MODE });
  return Deno.openSync(path, { write: true, createNew: true, mode: FILE_MODE });
}

/** Writes one session's stream; returns its byte count. */
function writeSession(db: Db, s: ExportSession, path: string): number {
  const f = createFile(path);
  let bytes = 0;
  try {
    if (!s.evicted) {
      for (const block of streamBlocks(db, s.sessionNo)) {
        writeAll(f, block);
        bytes += block.length;
      }
    }
  } catch (e) {
    f.close();
    Deno.removeSync(path); // a part of a stream is not the stream: leave no half file behind
    throw e;
  }
  f.close();
  return bytes;
}

/**
 * Exports into `dest`, which destinationRefusal has passed: created 0700 when missing.
 * Reads in one transaction, so the files and the manifest describe one state of the store.
 */
export function exportStore(
  db: Db,
  archiveFormat: number,
  cfg: Config,
  dest: string,
  progress?: ProgressFactory,
): ExportResult {
  Deno.mkdirSync(dest, { recursive: true, mode: DIR_MODE });
  const files: ExportFile[] = [];
  const failed: string[] = [];
  const taken = new Set<string>([MANIFEST]);
  inReadTransaction(db, () => {
    const sessions = exportSessions(db, { project: null, exclude: cfg.exclude });
    const shown = progress?.("exporting", sessions.reduce((n, s) => n + s.bytes, 0), "bytes");
    for (const s of sessions) {
      let file = exportFileFor(s.sessionKey);
      if (taken.has(file)) file = file.replace(/(\.jsonl)?$/, `.${s.sessionNo}.jsonl`);
      taken.add(file);
      let bytes: number;
      try {
        bytes = writeSession(db, s, join(dest, file));
        shown?.add(s.bytes);
      } catch (e) {
        failed.push(`${s.sessionKey}: could not be exported: ${(e as Error).message}`);
        continue;
      }
      files.push({
        file,
        session_key: s.sessionKey,
        session_id: s.sessionId,
        project: s.project,
        turns: s.turns,
        bytes,
        evicted: s.evicted,
        first_turn_at: s.firstTurnAt,
        last_turn_at: s.lastTurnAt,
      });
    }
    shown?.finish();
  });
  const sum = (f: (x: ExportFile) => number) => files.reduce((n, x) => n + f(x), 0);
  const firsts = files.map((f) => f.first_turn_at).filter((t): t is string => t !== null).sort();
  const lasts = files.map((f) => f.last_turn_at).filter((t): t is string => t !== null).sort();
  const result: ExportResult = {
    manifest: join(dest, MANIFEST),
    sessions: files.length,
    turns: sum((f) => f.turns),
    evicted: files.filter((f) => f.evicted).length,
    bytes: sum((f) => f.bytes),
    failed,
  };
  const manifest = {
    notice: EXPORT_NOTICE,
    archive_format: archiveFormat,
    sessions: result.sessions,
    turns: result.turns,
    evicted: result.evicted,
    bytes: result.bytes,
    projects: [...new Set(files.map((f) => f.project).filter((p): p is string => p !== null))]
      .sort(),
    first_turn_at: firsts[0] ?? null,
    last_turn_at: lasts[lasts.length - 1] ?? null,
    files,
  };
  // written last: a directory without its manifest is visibly an export that did not finish
  const f = createFile(result.manifest);
  try {
    writeAll(f, new TextEncoder().encode(canonicalJson(manifest, 2) + "\n"));
  } finally {
    f.close();
  }
  return result;
}
