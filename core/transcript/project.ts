/**
 * Which project a session belongs to: the git repository its working directory is in, else
 * the directory itself; `<repo>/.claude/worktrees/<name>` (or below) is filed under `<repo>`.
 */
import { GIT_TIMEOUT_MS } from "../constants.ts";
import { windowsPath } from "../posix.ts";

export interface ProjectInfo {
  project: string;
  /** What the project was before a worktree was folded onto its repository, else null. */
  preWorktree: string | null;
}

const WORKTREE = /^(.*)\/\.claude\/worktrees\/([^/]+)(?:\/.*)?$/;

export function foldWorktree(dir: string): ProjectInfo | null {
  const m = WORKTREE.exec(dir);
  if (!m || m[1] === "") return null;
  return { project: m[1], preWorktree: `${m[1]}/.claude/worktrees/${m[2]}` };
}

async function gitToplevel(cwd: string): Promise<string | null> {
  try {
    const st = await Deno.stat(cwd);
    if (!st.isDirectory) return null;
  } catch {
    return null;
  }
  try {
    const out = await new Deno.Command("git", {
      args: ["rev-parse", "--show-toplevel"],
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(GIT_TIMEOUT_MS),
      env: { GIT_OPTIONAL_LOCKS: "0" },
    }).output();
    if (!out.success) return null;
    const top = new TextDecoder().decode(out.stdout).trim();
    return top.startsWith("/") ? top : null;
  } catch {
    return null; // git missing, not permitted, or too slow: the cwd stands
  }
}

/** Resolves projects, remembering each cwd's answer for the life of one pass. */
export class ProjectResolver {
  #cache = new Map<string, Promise<ProjectInfo>>();

  resolve(cwd: string): Promise<ProjectInfo> {
    let p = this.#cache.get(cwd);
    if (!p) {
      p = this.#resolve(cwd);
      this.#cache.set(cwd, p);
    }
    return p;
  }

  async #resolve(cwd: string): Promise<ProjectInfo> {
    // a cwd from Windows (`D:\repo`) is absolute, and no git here can answer for it: it is
    // matched with `/` separators, its worktree folded like any other
    const win = windowsPath(cwd);
    if (win !== null) return foldWorktree(win) ?? { project: win, preWorktree: null };
    const direct = foldWorktree(cwd);
    if (direct) return direct;
    const top = await gitToplevel(cwd);
    if (top) return foldWorktree(top) ?? { project: top, preWorktree: null };
    return { project: cwd, preWorktree: null };
  }
}
