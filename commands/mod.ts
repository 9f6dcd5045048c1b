/**
 * The command registry: a static list, sorted by name. Modules load lazily so a hook run
 * pays only for the code it uses.
 */
import type { Command } from "./types.ts";
import { INGEST_SUMMARY, SEARCH_SUMMARY } from "./help_lines.ts";

export interface Entry {
  name: string;
  summary: string;
  load: () => Promise<Command>;
}

const e = (name: string, summary: string, load: () => Promise<{ command: Command }>): Entry => ({
  name,
  summary,
  load: async () => (await load()).command,
});

/**
 * Sorted by name (tests/registry_test.ts holds it to that). Literal imports keep `deno compile`
 * able to see them.
 */
export const REGISTRY: readonly Entry[] = [
  e("backfill", "archive every transcript on disk, detached", () => import("./backfill.ts")),
  e("compact", "give back the disk space retention freed", () => import("./compact.ts")),
  e(
    "completions",
    "a shell completion script: completions bash|zsh|fish",
    async () => ({ command: (await import("./completions.ts")).completionsCommand(REGISTRY) }),
  ),
  e("data", "data move <path>: move the data directory", () => import("./data.ts")),
  e("doctor", "what is and is not wired into Claude Code", () => import("./doctor.ts")),
  e("export", "write every visible session out as .jsonl files", () => import("./export.ts")),
  e(
    "help",
    "a command's options and examples: help <command>",
    async () => ({ command: (await import("./help.ts")).helpCommand({ find, usageText }) }),
  ),
  e("hook", "run by Claude Code on its hook events", () => import("./hook.ts")),
  e(
    "import-history",
    "import Claude Code's prompt history (history.jsonl)",
    () => import("./import_history.ts"),
  ),
  e("ingest", INGEST_SUMMARY, () => import("./ingest.ts")),
  e(
    "install",
    "wire Terminus into Claude Code",
    async () => ({ command: (await import("./install.ts")).installCommand(REGISTRY) }),
  ),
  e("mcp", "the MCP server Claude Code starts", () => import("./mcp.ts")),
  e("observations", "mechanical facts of closed sessions", () => import("./observations.ts")),
  e("reindex", "rebuild the search index from the blocks", () => import("./reindex.ts")),
  e("replay", "re-score logged prompts under other thresholds", () => import("./replay.ts")),
  e("retention", "what the [retention] rule would act on next", () => import("./retention.ts")),
  e("search", SEARCH_SUMMARY, () => import("./search.ts")),
  e("sessions", "list the archived sessions of a project", () => import("./sessions/mod.ts")),
  e("show", "print the archived record behind turn ids", () => import("./show.ts")),
  e("stats", "is what is handed over on each prompt helping?", () => import("./stats.ts")),
  e("status", "the store and the last archive pass", () => import("./status.ts")),
  e("uninstall", "take Terminus out of Claude Code", () => import("./uninstall.ts")),
  e("usage", "where the bytes went: by project, month and table", () => import("./usage.ts")),
  e("verify", "check every archived block against its hash", () => import("./verify.ts")),
];

export function find(name: string): Entry | undefined {
  return REGISTRY.find((e) => e.name === name);
}

export function usageText(): string {
  const width = Math.max(...REGISTRY.map((e) => e.name.length)) + 2;
  const lines = [
    "usage: terminus [--help | -h] [--version | -V] <command> [<args>]",
    "",
    "A local archive of Claude Code sessions.",
    "",
    "commands:",
    ...REGISTRY.map((e) => `  ${e.name.padEnd(width)}${e.summary}`),
    "",
    "Read commands take --json and write one JSON document on stdout.",
    "terminus <command> --help (or terminus help <command>) lists its options, with examples.",
  ];
  return lines.join("\n") + "\n";
}
