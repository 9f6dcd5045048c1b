/**
 * The command registry: a static list, sorted by name. Modules load lazily so a hook run
 * pays only for the code it uses.
 */
import type { Command } from "./types.ts";

export interface Entry {
  name: string;
  summary: string;
  load: () => Promise<Command>;
}

export const REGISTRY: readonly Entry[] = [
  {
    name: "ingest",
    summary: "archive new transcript bytes (or one file)",
    load: async () => (await import("./ingest.ts")).command,
  },
  {
    name: "status",
    summary: "the store and the last archive pass",
    load: async () => (await import("./status.ts")).command,
  },
  {
    name: "verify",
    summary: "check every archived block against its hash",
    load: async () => (await import("./verify.ts")).command,
  },
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
  ];
  return lines.join("\n") + "\n";
}
