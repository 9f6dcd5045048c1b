/**
 * Transcript roots that cannot be walked. Roots in the config are used exactly as written, so
 * a `~/.claude` there names a folder called `~` and a pass silently walks nothing: status and
 * doctor say so instead.
 */
import { isAbsolute } from "./posix.ts";

/** One line for each root that is missing or not a folder. */
export function rootProblems(roots: string[]): string[] {
  const out: string[] = [];
  for (const root of roots) {
    let what: string | null = null;
    try {
      if (!Deno.statSync(root).isDirectory) what = "is not a folder";
    } catch (e) {
      what = e instanceof Deno.errors.NotFound
        ? "does not exist"
        : `cannot be read: ${(e as Error).message}`;
    }
    if (what === null) continue;
    const hint = root.startsWith("~")
      ? "; ~ is not expanded in roots, so write the full path"
      : !isAbsolute(root)
      ? "; a relative path is taken from the current folder, so write the full path"
      : "";
    out.push(`the transcript root ${root} ${what}, so nothing is archived from it${hint}`);
  }
  return out;
}
