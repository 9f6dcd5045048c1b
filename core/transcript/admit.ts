/**
 * Whether `terminus ingest <path>` may archive a file: only a transcript by Claude Code's
 * naming rule, below a configured root. Anything else (a stray `/etc/passwd`, a `notes.jsonl`)
 * would become a session with no project that nothing could remove afterwards.
 */
import { keyFor } from "./session_key.ts";

function real(p: string): string {
  try {
    return Deno.realPathSync(p);
  } catch {
    return p;
  }
}

/** The reason the path is refused, or null when it is a transcript under one of the roots. */
export function ingestRefusal(path: string, roots: string[]): string | null {
  const rule =
    "ingest takes a transcript as Claude Code names it, <root>/projects/<project folder>/<session uuid>.jsonl or a subagent's agent-*.jsonl below a project folder";
  const key = keyFor(path);
  if (key.projectFolder === null) return `${path} is not a transcript: ${rule}`;
  const root = key.projectFolder.slice(0, key.projectFolder.lastIndexOf("/projects/"));
  const mine = real(root);
  if (!roots.some((r) => real(r) === mine)) {
    return `${path} is not under a configured root (${roots.join(", ") || "none"}): ${rule}`;
  }
  return null;
}
