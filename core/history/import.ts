/**
 * `terminus import-history`: Claude Code's history.jsonl (the prompts a person typed, with
 * their time and folder, kept even after the transcripts are gone) into the store as
 * `history_prompt` rows. Streamed line by line; a line that is not an entry is counted and
 * named, and the rest go on. A second import adds nothing: a prompt is known by its time,
 * folder and text.
 *
 * A long paste is not in the line: Claude Code writes `{id, type, contentHash}` there and the
 * text to `paste-cache/<contentHash>.txt` beside history.jsonl (the hash is the first 16 hex
 * digits of the text's SHA-256). The import reads it in, checks it against the hash, and keeps
 * it in the entry's pasted contents as `content`, so it is searchable like a short paste.
 */
import { type Config, isExcluded } from "../config.ts";
import { HISTORY_BATCH_ROWS, HISTORY_BROKEN_NAMED, HISTORY_LINE_MAX_BYTES } from "../constants.ts";
import type { Db } from "../store/db.ts";
import {
  ensureHistoryTables,
  historyHas,
  historyIndexKeepsPositions,
  type HistoryRow,
  insertHistory,
  rebuildHistoryIndex,
} from "../store/history_sql.ts";
import { ProjectResolver } from "../transcript/project.ts";
import { dirname, join } from "../posix.ts";
import { readLines } from "./lines.ts";
import { bodyOf, isTextPaste } from "./search.ts";

export interface ImportResult {
  file: string | null;
  lines: number;
  added: number;
  already: number;
  excluded: number;
  /** Session controls typed as prompts (`/exit`, `/clear`): nothing to search for, left out. */
  skipped: number;
  broken: number;
  broken_lines: { line: number; reason: string }[];
  dry_run: boolean;
}

/**
 * A prompt that only steered the session (`/exit`, `/clear`, `/compact`, ...), with nothing
 * after the command: no question or answer to find again.
 */
export function isSessionControl(display: string): boolean {
  return /^\/(exit|quit|clear|compact|resume|continue|logout|login|cost|status|help|config|model|doctor|vim|theme|permissions|memory|mcp|hooks|agents|ide|upgrade)$/
    .test(display.trim());
}

export function emptyImport(dryRun: boolean): ImportResult {
  return {
    file: null,
    lines: 0,
    added: 0,
    already: 0,
    excluded: 0,
    skipped: 0,
    broken: 0,
    broken_lines: [],
    dry_run: dryRun,
  };
}

const decoder = new TextDecoder("utf-8", { fatal: true });

type Draft = Omit<HistoryRow, "project">;

/** One line as an entry, or why it is not one. Unknown fields are passed over. */
export function parseEntry(bytes: Uint8Array): Draft | string {
  let v: unknown;
  try {
    v = JSON.parse(decoder.decode(bytes));
  } catch (e) {
    return e instanceof TypeError ? "not UTF-8" : "not JSON";
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) return "not a JSON object";
  const o = v as Record<string, unknown>;
  if (typeof o.display !== "string") return "no display text";
  let ms: number;
  if (typeof o.timestamp === "number") ms = o.timestamp;
  else if (typeof o.timestamp === "string") ms = Date.parse(o.timestamp);
  else return "no timestamp";
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return "a timestamp that is no time";
  if (o.project !== undefined && o.project !== null && typeof o.project !== "string") {
    return "a project that is not a path";
  }
  const pasted = o.pastedContents && typeof o.pastedContents === "object"
    ? JSON.stringify(o.pastedContents)
    : null;
  return {
    at: new Date(ms).toISOString(),
    cwd: (o.project as string | undefined) ?? null,
    sessionId: typeof o.sessionId === "string" ? o.sessionId : null,
    display: o.display,
    pasted,
    body: bodyOf(o.display, pasted),
  };
}

/** How Claude Code names a paste it keeps aside (it refuses any other name too). */
const PASTE_HASH = /^[0-9a-f]{16}$/;

/** The text of a paste kept in `dir`/paste-cache, or null when it is gone or not that text. */
async function cachedPaste(dir: string, hash: string): Promise<string | null> {
  if (!PASTE_HASH.test(hash)) return null;
  const path = join(dir, "paste-cache", `${hash}.txt`);
  try {
    const st = await Deno.lstat(path);
    if (!st.isFile || st.size > HISTORY_LINE_MAX_BYTES) return null;
    const bytes = await Deno.readFile(path);
    const sum = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
    return sum.subarray(0, 8).toHex() === hash ? decoder.decode(bytes) : null;
  } catch {
    return null; // missing, unreadable or not UTF-8: the entry keeps the hash alone
  }
}

/** `d` with the text of each paste kept aside read in from `dir`/paste-cache, where it is. */
async function withCachedPastes(d: Draft, dir: string): Promise<Draft> {
  if (!d.pasted?.includes('"contentHash"')) return d;
  const all = JSON.parse(d.pasted) as Record<string, unknown>;
  let found = false;
  for (const p of Object.values(all)) {
    if (!isTextPaste(p) || typeof p.content === "string" || typeof p.contentHash !== "string") {
      continue;
    }
    const text = await cachedPaste(dir, p.contentHash);
    if (text === null) continue;
    p.content = text;
    found = true;
  }
  if (!found) return d;
  const pasted = JSON.stringify(all);
  return { ...d, pasted, body: bodyOf(d.display, pasted) };
}

/**
 * Reads `file` and imports it into `db` (null on a dry run with no store yet). On a dry run
 * nothing is written; `added` then counts what would be.
 */
export async function importHistory(
  db: Db | null,
  cfg: Config,
  file: string,
  dryRun: boolean,
): Promise<ImportResult> {
  const res: ImportResult = { ...emptyImport(dryRun), file };
  const resolver = new ProjectResolver();
  if (db && !dryRun) {
    ensureHistoryTables(db);
    // an index made before it kept positions ranks nothing: remade from the kept prompts
    if (!historyIndexKeepsPositions(db)) rebuildHistoryIndex(db, bodyOf);
  }
  let batch: HistoryRow[] = [];
  const flush = () => {
    if (!batch.length) return;
    if (dryRun) {
      for (const r of batch) {
        if (db && historyHas(db, r)) res.already++;
        else res.added++;
      }
    } else {
      const n = insertHistory(db!, batch);
      res.added += n;
      res.already += batch.length - n;
    }
    batch = [];
  };
  const broken = (line: number, reason: string) => {
    res.broken++;
    if (res.broken_lines.length < HISTORY_BROKEN_NAMED) res.broken_lines.push({ line, reason });
  };
  for await (const l of readLines(file, HISTORY_LINE_MAX_BYTES)) {
    res.lines = l.no;
    if (l.bytes === null) {
      broken(l.no, `longer than ${HISTORY_LINE_MAX_BYTES} bytes (${l.tooLong})`);
      continue;
    }
    if (l.bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0d)) continue; // blank
    const parsed = parseEntry(l.bytes);
    if (typeof parsed === "string") {
      broken(l.no, parsed);
      continue;
    }
    if (isSessionControl(parsed.display) && !parsed.pasted?.includes('"content"')) {
      res.skipped++;
      continue;
    }
    const cwd = parsed.cwd;
    const project = cwd ? (await resolver.resolve(cwd)).project : null;
    if (isExcluded(cfg, project) || isExcluded(cfg, cwd)) {
      res.excluded++;
      continue;
    }
    batch.push({ ...(await withCachedPastes(parsed, dirname(file))), project });
    if (batch.length >= HISTORY_BATCH_ROWS) flush();
  }
  flush();
  return res;
}
