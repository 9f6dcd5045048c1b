/**
 * A session as `terminus sessions` presents it: the stored row plus its number, title,
 * tags, duration and the command that resumes it in Claude Code.
 */
import { basename } from "../posix.ts";
import type { SessionRow } from "../store/query.ts";
import { day, durationText, secondsBetween } from "../time.ts";
import { chooseTitle, foldCut, type TitleSource } from "./titles.ts";
import { TITLE_PROMPT_CHARS } from "../constants.ts";

/** The stored row, less the raw title facts, plus what a person reads off it. */
export interface SessionView
  extends Omit<SessionRow, "cwd" | "custom_title" | "ai_title" | "summary" | "first_prompt"> {
  title: string | null;
  title_source: TitleSource | null;
  duration_seconds: number | null;
  resume: string | null;
}

/** A path as one shell word: bare when it is plain, single-quoted otherwise. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * `cd <dir> && claude --resume <uuid>`. Claude Code finds a transcript under the directory the
 * session ran in, so that directory (its first cwd) is used, falling back to the project. A
 * subagent's sidecar cannot be resumed on its own.
 */
export function resumeCommand(r: SessionRow): string | null {
  if (r.sidecar || !r.session_id) return null;
  const dir = r.cwd ?? r.project;
  if (!dir) return null;
  return `cd ${shellWord(dir)} && claude --resume ${r.session_id}`;
}

/** `filter` is the egress filter: a title is archived text like any other. */
export function viewOf(r: SessionRow, filter: (s: string) => string = (s) => s): SessionView {
  const t = chooseTitle(r);
  if (t.title !== null) t.title = filter(t.title);
  return {
    session_key: r.session_key,
    session_no: r.session_no,
    session_id: r.session_id,
    project: r.project,
    project_pre_worktree: r.project_pre_worktree,
    branch: r.branch,
    first_turn_at: r.first_turn_at,
    last_turn_at: r.last_turn_at,
    turns: r.turns,
    watermark: r.watermark,
    sidecar: r.sidecar,
    evicted: r.evicted,
    title: t.title,
    title_source: t.source,
    name: r.name === null ? null : filter(r.name),
    tags: r.tags,
    duration_seconds: secondsBetween(r.first_turn_at, r.last_turn_at),
    resume: resumeCommand(r),
  };
}

/** One listing line: number, day, title, file, turns, project, branch, tags, marks, duration. */
export function listingLine(v: SessionView): string {
  const parts = [
    `#${v.session_no}`,
    day(v.first_turn_at),
    v.title === null ? "(untitled)" : foldCut(v.title, TITLE_PROMPT_CHARS),
    basename(v.session_key),
    `${v.turns} turn(s)`,
    v.project ?? "-",
    v.branch ?? "-",
  ];
  if (v.tags.length) parts.push(v.tags.map((t) => `+${t}`).join(" "));
  if (v.sidecar) parts.push("(subagent)");
  if (v.evicted) parts.push("(evicted)");
  parts.push(durationText(v.duration_seconds));
  return parts.join("  ") + "\n";
}
