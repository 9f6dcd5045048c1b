/**
 * Setting a session's name and tags: checks every value first, then writes in one
 * transaction, so bad input changes nothing.
 */
import { type Db, transaction } from "../store/db.ts";
import { addTags, clearName, removeTags, setName, tagsOf } from "../store/sessions_sql.ts";
import { UsageError } from "../errors.ts";
import { nameProblem, tagProblem } from "./titles.ts";

/** Every tag checked before any is written; the first bad one is named. */
export function checkTags(tags: string[]): string[] {
  if (tags.length === 0) throw new UsageError("give at least one tag after the session");
  for (const t of tags) {
    const p = tagProblem(t);
    if (p) throw new UsageError(p);
  }
  return [...new Set(tags)];
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
