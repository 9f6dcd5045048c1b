/**
 * The two Claude Code settings Terminus reports and never changes: cleanupPeriodDays and
 * autoCompactEnabled. Read the way the guide describes: settings.json in Claude Code's config
 * directory, then .claude/settings.json and .claude/settings.local.json in the current
 * directory (no search for a project root), the last file holding the key winning.
 */
import type { Env } from "../paths.ts";
import { join } from "../posix.ts";
import {
  CLEANUP_PERIOD_DAYS_DEFAULT,
  CLEANUP_PERIOD_DAYS_FLOOR,
  CLEANUP_PERIOD_DAYS_SUGGESTED,
} from "../constants.ts";
import { readSettings } from "./settings.ts";

export interface Layered {
  /** The value of the file that wins, undefined when no file sets it. */
  value: unknown;
  /** The file it came from, null when unset. */
  from: string | null;
  /** Files that exist but will not parse: Claude Code's reading is then unsure. */
  unreadable: string[];
}

export function settingsLayers(userSettings: string, cwd: string): string[] {
  return [
    userSettings,
    join(cwd, ".claude", "settings.json"),
    join(cwd, ".claude", "settings.local.json"),
  ];
}

export function readLayered(files: string[], key: string): Layered {
  const out: Layered = { value: undefined, from: null, unreadable: [] };
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f)) continue;
    seen.add(f);
    const s = readSettings(f);
    if (s.error) {
      out.unreadable.push(s.error);
      continue;
    }
    if (s.doc && key in s.doc) {
      out.value = s.doc[key];
      out.from = f;
    }
  }
  return out;
}

export type Verdict = {
  state: "ok" | "note" | "unknown" | "problem";
  finding: string;
  fix: string | null;
};

export function cleanupEdit(path: string): string {
  return `set "cleanupPeriodDays": ${CLEANUP_PERIOD_DAYS_SUGGESTED} in ${path}`;
}

/** cleanupPeriodDays, judged: below the floor is a note carrying the one edit that raises it. */
export function judgeCleanup(l: Layered, userSettings: string): Verdict {
  if (l.unreadable.length) {
    return {
      state: "unknown",
      finding: `${
        l.unreadable[0]
      }; Claude Code pauses its transcript sweep while it cannot read its settings, so the period is not known`,
      fix: null,
    };
  }
  const cost =
    `Claude Code deletes transcripts older than that after a session starts; what Terminus archived stays, and a session it never read is lost with its transcript`;
  if (l.value === undefined) {
    return {
      state: "note",
      finding:
        `cleanupPeriodDays is not set, so Claude Code keeps transcripts ${CLEANUP_PERIOD_DAYS_DEFAULT} days. ${cost}`,
      fix: cleanupEdit(userSettings),
    };
  }
  if (typeof l.value !== "number" || !Number.isFinite(l.value)) {
    return {
      state: "problem",
      finding: `cleanupPeriodDays is ${
        JSON.stringify(l.value)
      } in ${l.from}, which is not a number`,
      fix: null,
    };
  }
  if (l.value < CLEANUP_PERIOD_DAYS_FLOOR) {
    return {
      state: "note",
      finding: `cleanupPeriodDays is ${l.value}, set in ${l.from}. ${cost}`,
      fix: cleanupEdit(l.from!),
    };
  }
  return {
    state: "ok",
    finding: `cleanupPeriodDays is ${l.value}, set in ${l.from}`,
    fix: null,
  };
}

/** DISABLE_AUTO_COMPACT set to anything but 0 or false turns auto-compaction off. */
export function envDisablesAutoCompact(env: Env): boolean {
  const v = env("DISABLE_AUTO_COMPACT");
  if (v === undefined) return false;
  const t = v.trim().toLowerCase();
  return t !== "0" && t !== "false";
}

export const AUTO_COMPACT_TRADE_OFF =
  "On, Claude Code summarizes older history as the context fills, which spends tokens and loses detail, and the session goes on. Off, a session that reaches the context limit stops until you run /compact or /clear. Terminus keeps the full history either way but does not manage the active context, and nothing shows its recall replaces compaction, so doctor recommends neither value";

export function judgeAutoCompact(l: Layered, env: Env): Verdict {
  if (envDisablesAutoCompact(env)) {
    return {
      state: "ok",
      finding: `autoCompactEnabled is off: DISABLE_AUTO_COMPACT is set. ${AUTO_COMPACT_TRADE_OFF}`,
      fix: null,
    };
  }
  if (l.unreadable.length) {
    return {
      state: "unknown",
      finding: `${l.unreadable[0]}, so whether auto-compaction is on is not known`,
      fix: null,
    };
  }
  if (l.value === undefined || l.value === true) {
    const where = l.value === undefined ? "not set, so on" : `on, set in ${l.from}`;
    return {
      state: "note",
      finding: `autoCompactEnabled is ${where}. ${AUTO_COMPACT_TRADE_OFF}`,
      fix: null,
    };
  }
  if (l.value === false) {
    return {
      state: "ok",
      finding: `autoCompactEnabled is off, set in ${l.from}. ${AUTO_COMPACT_TRADE_OFF}`,
      fix: null,
    };
  }
  return {
    state: "problem",
    finding: `autoCompactEnabled is ${
      JSON.stringify(l.value)
    } in ${l.from}, which is neither true nor false`,
    fix: null,
  };
}
