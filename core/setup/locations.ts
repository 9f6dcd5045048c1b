/**
 * Where setup reads and writes: the link, the versions folder, Claude Code's two files and
 * the backups beside them. Pure resolution; nothing here creates anything.
 */
import { type Env, home } from "../paths.ts";
import { isAbsolute, join, normalize } from "../posix.ts";
import { PathError } from "../errors.ts";

export const BIN_NAME = "terminus";
export const SETTINGS_BACKUP_SUFFIX = ".terminus-backup";
/** The four hook events install wires, in the order the receipt and doctor list them. */
export const SETUP_HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "SessionEnd",
  "PostCompact",
] as const;
export type SetupHookEvent = typeof SETUP_HOOK_EVENTS[number];
/**
 * The events whose hook starts a pass whatever the last one did (a burst of prompts starts
 * one): the installed launcher starts theirs itself, before the runtime (see launcherText).
 */
export const PASS_ALWAYS_EVENTS: readonly SetupHookEvent[] = ["SessionStart", "SessionEnd"];
/** Set by the launcher on a hook whose pass it started; the hook then starts none. */
export const LAUNCHER_PASS_VAR = "TERMINUS_LAUNCHER_PASS";
/**
 * Set by the launcher on the pass it starts for a gated event (a prompt, a compaction): the
 * pass takes the burst gate itself, first, and exits when a pass started too recently.
 */
export const PASS_GATE_VAR = "TERMINUS_PASS_GATE";
/** The name of the MCP server in Claude Code's config. */
export const MCP_NAME = "terminus";

export interface Locations {
  home: string;
  /** `$TERMINUS_BIN_DIR/terminus`, else `~/.local/bin/terminus`. */
  link: string;
  /** `~/.local/lib/crenshawdev/terminus`: what uninstall's notes tell a person to delete. */
  libDir: string;
  /** `~/.local/lib/crenshawdev/terminus/versions`. */
  versionsDir: string;
  /** `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
  claudeDir: string;
  /** Claude Code's user settings.json. */
  settings: string;
  /** Where install keeps its copy of settings.json. */
  settingsBackup: string;
  /** `$CLAUDE_CONFIG_DIR/.claude.json`, else `~/.claude.json`. */
  claudeJson: string;
  /** A copy of .claude.json uninstall names but never restores. */
  claudeJsonBackup: string;
  /** `~/.local/share/man/man1/terminus.1`: man finds it for a program in `~/.local/bin`. */
  manPage: string;
}

/** The first line of the man page install writes, which uninstall looks for before removing. */
export const MAN_PAGE_MARK = ".TH TERMINUS 1 ";

export function locations(env: Env): Locations {
  const h = home(env);
  if (!isAbsolute(h)) throw new PathError(`HOME (${h}) is not an absolute path`);
  const binDir = env("TERMINUS_BIN_DIR");
  if (binDir !== undefined && !isAbsolute(binDir)) {
    throw new PathError(
      `TERMINUS_BIN_DIR (${binDir}) is not an absolute path; Claude Code runs the link by its full path`,
    );
  }
  const libDir = join(h, ".local", "lib", "crenshawdev", "terminus");
  const claudeEnv = env("CLAUDE_CONFIG_DIR");
  const claudeDir = claudeEnv ? normalize(claudeEnv) : join(h, ".claude");
  const settings = join(claudeDir, "settings.json");
  const claudeJson = claudeEnv ? join(claudeDir, ".claude.json") : join(h, ".claude.json");
  return {
    home: h,
    link: join(binDir ? normalize(binDir) : join(h, ".local", "bin"), BIN_NAME),
    libDir,
    versionsDir: join(libDir, "versions"),
    claudeDir,
    settings,
    settingsBackup: settings + SETTINGS_BACKUP_SUFFIX,
    claudeJson,
    claudeJsonBackup: claudeJson + SETTINGS_BACKUP_SUFFIX,
    manPage: join(h, ".local", "share", "man", "man1", `${BIN_NAME}.1`),
  };
}

/** `versions/<version>/terminus`. */
export function versionFile(loc: Locations, version: string): string {
  return join(loc.versionsDir, version, BIN_NAME);
}

/** The first executable `name` on PATH, as PATH spells it (not resolved), or null. */
export function findOnPath(name: string, env: Env): string | null {
  for (const dir of (env("PATH") ?? "").split(":")) {
    if (!dir || !isAbsolute(dir)) continue;
    const p = join(dir, name);
    try {
      const st = Deno.statSync(p);
      if (st.isFile && st.mode !== null && (st.mode & 0o111) !== 0) return p;
    } catch { /* not here */ }
  }
  return null;
}

/** Whether `dir` is one of PATH's folders (a trailing slash aside). */
export function onPath(dir: string, env: Env): boolean {
  const want = dir.replace(/\/+$/, "");
  return (env("PATH") ?? "").split(":").some((d) => d.replace(/\/+$/, "") === want);
}

/**
 * The line that puts `dir` on PATH in the person's login shell ($SHELL), and the file it
 * belongs in; fish's `fish_add_path` keeps it by itself.
 */
export function pathLine(dir: string, env: Env): { line: string; file: string | null } {
  const shell = (env("SHELL") ?? "").split("/").pop() ?? "";
  if (shell === "fish") return { line: `fish_add_path ${shellWord(dir)}`, file: null };
  const rc = shell === "zsh" ? ".zshrc" : shell === "bash" ? ".bashrc" : ".profile";
  const h = env("HOME");
  return { line: `export PATH=${shellWord(dir)}:"$PATH"`, file: h ? join(h, rc) : `~/${rc}` };
}

/** Quotes a word for a POSIX shell only when it needs it. */
export function shellWord(s: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function shellLine(words: string[]): string {
  return words.map(shellWord).join(" ");
}
