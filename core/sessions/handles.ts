/**
 * Setting a session's name and tags: checks every value first, then writes in one
 * transaction, so bad input changes nothing.
 */
import { closeWrite, type Db, openWrite, transaction } from "../store/db.ts";
import { listSessions } from "../store/session_listing.ts";
import type { Context } from "../context.ts";
import { openStore, predatesBuild } from "../open.ts";
import { NotFoundError, TerminusError } from "../errors.ts";
import { resolveRef } from "./ref.ts";
import { type SessionView, viewOf } from "./list.ts";
import { addTags, clearName, removeTags, setName, tagsOf } from "../store/sessions_sql.ts";
import { UsageError } from "../errors.ts";
import { nameProblem, tagProblem } from "../transcript/titles.ts";

/** Every tag checked before any is written; the first bad one is named. */
/** The tags as stored: lowercased (`BugHunt` is `bughunt`, as the browser's +tag is), then checked. */
export function checkTags(tags: string[]): string[] {
  if (tags.length === 0) throw new UsageError("give at least one tag after the session");
  const lower = tags.map((t) => t.toLowerCase());
  for (const t of lower) {
    const p = tagProblem(t);
    if (p) throw new UsageError(p);
  }
  return [...new Set(lower)];
}

export function checkName(name: string): string {
  const p = nameProblem(name);
  if (p) throw new UsageError(p);
  return name.trim();
}

export function nameSession(db: Db, sessionNo: number, name: string | null): { changed: boolean } {
  return transaction(db, () => {
    if (name === null) return { changed: clearName(db, sessionNo) };
    setName(db, sessionNo, name, new Date().toISOString());
    return { changed: true };
  });
}

export function tagSession(
  db: Db,
  sessionNo: number,
  tags: string[],
  add: boolean,
): { changed: string[]; tags: string[] } {
  return transaction(db, () => {
    const changed = add ? addTags(db, sessionNo, tags) : removeTags(db, sessionNo, tags);
    return { changed, tags: tagsOf(db, sessionNo) };
  });
}

/** A name set (or cleared, null), or tags added or taken away. */
export type HandleChange =
  | { verb: "name"; name: string | null }
  | { verb: "tag" | "untag"; tags: string[] };

export interface HandleChanged {
  sessionNo: number;
  /** The session as it reads after the change. */
  view: SessionView;
  /** name: whether it changed; tag/untag: the tags that did. */
  changed: boolean | string[];
  warnings: string[];
}

/**
 * name / tag / untag: finds the session `ref` names read-only, then writes only the handle.
 * `command` names the command in the message that asks for a pass first.
 */
export async function changeHandle(
  ctx: Context,
  ref: string,
  change: HandleChange,
  command: string,
): Promise<HandleChanged> {
  const o = await openStore(ctx);
  if (!o.db) throw new NotFoundError(o.reason);
  let sessionNo: number;
  try {
    // a name is no reason to rebuild derived tables without the ingest lock: a pass does that
    if (predatesBuild(o.format)) {
      throw new TerminusError(
        `${o.r.store} predates this build; run terminus ingest once, then ${command} again`,
      );
    }
    sessionNo = resolveRef(o.db, o.r.cfg, ctx.cwd, ref).session_no;
  } finally {
    o.db.close();
  }
  const { db } = openWrite(o.r.store);
  try {
    const changed = change.verb === "name"
      ? nameSession(db, sessionNo, change.name).changed
      : tagSession(db, sessionNo, change.tags, change.verb === "tag").changed;
    const row = listSessions(db, { project: null, exclude: o.r.cfg.exclude }, { sessionNo })[0];
    return { sessionNo, view: viewOf(row), changed, warnings: o.warnings };
  } finally {
    closeWrite(db);
  }
}
