/**
 * A session as `terminus sessions` presents it: the stored row plus its number, title,
 * tags, duration and the command that resumes it in Claude Code.
 */
import { basename } from "../posix.ts";
import type { SessionRow } from "../store/session_listing.ts";
import { day, durationText } from "../time.ts";
import { chooseTitle, foldCut, type TitleSource } from "../transcript/titles.ts";
import { LIST_TITLE_MIN, TITLE_PROMPT_CHARS } from "../constants.ts";
import { type Cell, type Column, table } from "../table.ts";

/** The stored row, less the raw title facts, plus what a person reads off it. */
export interface SessionView extends
  Omit<
    SessionRow,
    | "cwd"
    | "custom_title"
    | "ai_title"
    | "summary"
    | "first_prompt"
    | "transcript_path"
    | "active_seconds"
  > {
  title: string | null;
  title_source: TitleSource | null;
  duration_seconds: number | null;
  resume: string | null;
  /**
   * False when Claude Code has deleted the transcript (its 30-day sweep, or by hand): then
   * `claude --resume` cannot find it and `terminus sessions restore` is the way back. Null
   * when the store does not know where the transcript was.
   */
  transcript_present: boolean | null;
}

/** Whether the transcript is still where it was archived from. */
export function transcriptPresent(path: string | null): boolean | null {
  if (path === null) return null;
  try {
    Deno.statSync(path);
    return true;
  } catch (e) {
    // a folder that cannot be read says nothing about the file: only "not there" counts
    return e instanceof Deno.errors.NotFound ? false : null;
  }
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
export function resumeCommand(r: SessionRow, present = true): string | null {
  if (r.sidecar || !r.session_id || !present) return null;
  const dir = r.cwd ?? r.project;
  if (!dir) return null;
  return `cd ${shellWord(dir)} && claude --resume ${r.session_id}`;
}

/**
 * `filter` is the egress filter: a title is archived text like any other. `present` says
 * whether the transcript is still there (the browser passes one that remembers).
 */
export function viewOf(
  r: SessionRow,
  filter: (s: string) => string = (s) => s,
  present: (path: string | null) => boolean | null = transcriptPresent,
): SessionView {
  const t = chooseTitle(r);
  if (t.title !== null) t.title = filter(t.title);
  const there = present(r.transcript_path);
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
    duration_seconds: r.active_seconds,
    resume: resumeCommand(r, there !== false),
    transcript_present: there,
  };
}

/** A project's last folder, for a narrow terminal: `D:\\work\\app` and `/home/me/app` give `app`. */
export function lastFolder(path: string): string {
  const parts = path.split(/[\\/]+/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? path;
}

/**
 * One session's header line over its hits (`search`, `sessions search`): `#N  title  file
 * project  marks`, fitted to the terminal's width as the listing is: the file name goes first,
 * then the project shrinks to its last folder and goes, and only then is the title cut.
 */
export function sessionHeader(
  h: { session_no: number; title: string | null; session_key: string; project: string | null },
  marks: string,
  max: number | null,
): string {
  const project = h.project ?? "-";
  const row: Cell[] = [`#${h.session_no}`];
  const cols: Column[] = [{}];
  if (h.title) {
    row.push(h.title);
    cols.push({ steps: [{ at: 4, cut: 4 }] });
  }
  row.push(basename(h.session_key), [project, lastFolder(project)], marks);
  cols.push({ steps: [{ at: 1, drop: true }] }, {
    steps: [{ at: 2, short: true }, { at: 3, drop: true }],
  }, {});
  return table([row], cols, max)[0];
}

/**
 * The listing, one aligned line per session: number, day, title, file, turns, project, branch,
 * tags and marks, duration. Given the terminal's width, the columns a person needs least give
 * way first: the file name goes, the project shrinks to its last folder, the branch is cut,
 * the project and the duration go; only then is the title cut, then the branch and the turn
 * count go, the marks are cut, and the title is cut to what is left. The number and the day
 * never are.
 */
export function listingLines(views: SessionView[], max: number | null): string[] {
  const rows = views.map((v) => {
    const marks = [
      ...(v.tags.length ? [v.tags.map((t) => `+${t}`).join(" ")] : []),
      ...(v.sidecar ? ["(subagent)"] : []),
      ...(v.evicted ? ["(evicted)"] : []),
      ...(v.transcript_present === false ? ["(deleted)"] : []),
    ].join(" ");
    const project = v.project ?? "-";
    return [
      `#${v.session_no}`,
      day(v.first_turn_at),
      v.title === null ? "(untitled)" : foldCut(v.title, TITLE_PROMPT_CHARS),
      basename(v.session_key),
      `${v.turns} turn(s)`,
      [project, lastFolder(project)] as const,
      v.branch ?? "-",
      marks,
      durationText(v.duration_seconds),
    ];
  });
  return table(rows, [
    {},
    {},
    { steps: [{ at: 6, cut: LIST_TITLE_MIN }, { at: 10, cut: 4 }] },
    { steps: [{ at: 1, drop: true }] },
    { steps: [{ at: 8, drop: true }] },
    { steps: [{ at: 2, short: true }, { at: 4, drop: true }] },
    { steps: [{ at: 3, cut: 12 }, { at: 7, drop: true }] },
    { steps: [{ at: 9, cut: 8 }] },
    { steps: [{ at: 5, drop: true }] },
  ], max).map((l) => l + "\n");
}
