/**
 * terminus help <command>: one command's usage line, each option in one line, and examples.
 * The usage line lives in the command's own module; the option lines and examples live in
 * HELP below, the one table of them. A test holds HELP to each command's parsed options.
 */
import type { Command } from "./types.ts";
import { find, usageText } from "./mod.ts";
import { outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";

export interface CommandHelp {
  /** [the option as typed, what it does]; every option the command parses, --json included. */
  options: Line[];
  /** Options the command parses that no person types (a detached worker's), kept out of help. */
  internal?: string[];
  examples: string[];
}

type Line = [string, string];
const PROJECT: Line = ["--project <path>", "the project containing <path>; '*' for every project"];
const SINCE: Line = ["--since <time>", "from this UTC time on (YYYY-MM-DD or ...THH:MM:SS.mmmZ)"];
const UNTIL: Line = [
  "--until <time>",
  "up to this UTC time; a bare date means the end of that day",
];
const JSON_OPTION: Line = ["--json", "write one JSON document on stdout"];
const RAW: Line = ["--raw", "with redact_recall on, print unfiltered text for this run"];

export const HELP: Record<string, CommandHelp> = {
  backfill: {
    options: [],
    internal: ["work"],
    examples: ["terminus backfill"],
  },
  compact: {
    options: [JSON_OPTION],
    examples: ["terminus compact", "terminus compact --json"],
  },
  data: {
    options: [["-y, --yes", "answer the move question yes"]],
    examples: ["mkdir -m 700 /mnt/big/terminus && terminus data move /mnt/big/terminus"],
  },
  doctor: {
    options: [JSON_OPTION],
    examples: ["terminus doctor"],
  },
  export: {
    options: [JSON_OPTION],
    examples: ["terminus export ~/terminus-export"],
  },
  help: {
    options: [],
    examples: ["terminus help search"],
  },
  hook: {
    options: [],
    examples: ["(run by Claude Code) terminus hook SessionStart"],
  },
  "import-history": {
    options: [
      ["--dry-run", "count what would be imported, import nothing"],
      JSON_OPTION,
    ],
    examples: ["terminus import-history --dry-run", "terminus import-history"],
  },
  ingest: {
    options: [],
    examples: ["terminus ingest", "terminus ingest ~/.claude/projects/-home-me-app/<uuid>.jsonl"],
  },
  install: {
    options: [],
    examples: ["terminus install"],
  },
  mcp: {
    options: [],
    examples: ["(run by Claude Code) terminus mcp"],
  },
  observations: {
    options: [
      PROJECT,
      ["--since <time>", "regenerate only: sessions whose last turn is at or after this time"],
      JSON_OPTION,
    ],
    examples: ["terminus observations --project '*'", "terminus observations regenerate"],
  },
  reindex: {
    options: [JSON_OPTION],
    examples: ["terminus reindex"],
  },
  replay: {
    options: [
      ["--ranked <n>", "ranked hits the threshold is applied over (default 10)"],
      ["--compacted-ranked <n>", "the window for the prompt after a compaction (default 50)"],
      ["--entity-rank <n>", "rank within which one matched entity is enough (default 3)"],
      ["--co-occurring <n>", "matched entities that make a hit eligible at any rank (default 2)"],
      ["--max-turns <n>", "most turns one prompt may be given; 0 is injection off (default 3)"],
      ["--max-candidates <n>", "paths and identifiers looked up per prompt (default 8)"],
      JSON_OPTION,
    ],
    examples: ["terminus replay", "terminus replay --max-turns 1"],
  },
  retention: {
    options: [["--dry-run", "accepted; the command only ever reports"], JSON_OPTION],
    examples: ["terminus retention --dry-run"],
  },
  search: {
    options: [
      PROJECT,
      ["--tool <name>", "only turns that called this tool, such as Bash or Read"],
      ["--kind <type>", "only records of this type: user, assistant, system, attachment"],
      ["--prompts", "only prompts typed by a person (tool results are user records too)"],
      ["--path <path>", "only turns whose tool call or result names this exact path; repeatable"],
      SINCE,
      UNTIL,
      ["--limit <n>", "how many hits (default 10, at most 50)"],
      RAW,
      JSON_OPTION,
    ],
    examples: [
      "terminus search SearchManager retry",
      "terminus search --path src/main.ts --project '*'",
    ],
  },
  sessions: {
    options: [
      PROJECT,
      SINCE,
      UNTIL,
      ["--limit <n>", "at most this many sessions, the newest (default all)"],
      ["--tag <t>", "only sessions carrying this tag; repeat to require several"],
      ["--full", "show: tool results printed whole"],
      ["--no-pager", "show: print straight to the terminal, not through $PAGER"],
      ["--raw", "show, export: with redact_recall on, the text unfiltered for this run"],
      ["--format md|html|jsonl", "export: the file's form"],
      ["--clear", "name: take the session's name off"],
      [
        "--to <dir>",
        "restore: the Claude Code config folder to write into (default: where it came from)",
      ],
      ["--dry-run", "restore, delete: say what would be done, change nothing"],
      ["-y, --yes", "delete: answer its questions yes"],
      ["--transcript", "delete: also delete Claude Code's transcript files (asked separately)"],
      ["--snapshots", "delete: also remove the session from every snapshot"],
      ["--compact", "delete: then clear its traces from the store file (as terminus compact)"],
      ["--file <path>", "changes: only this file's changes"],
      JSON_OPTION,
    ],
    examples: [
      "terminus sessions --project '*' --limit 5",
      "terminus sessions show 42",
      "terminus sessions export 42 --format md > auth-flow.md",
      "terminus sessions restore 42",
      "terminus sessions browse",
      "terminus sessions search auth flow --project '*'",
      "terminus sessions changes 42 --file src/auth.ts",
      "terminus sessions delete 42 --dry-run",
    ],
  },
  show: {
    options: [
      PROJECT,
      ["--before <n>", "also the turns before each record, same session (at most 25)"],
      ["--after <n>", "also the turns after each record, same session (at most 25)"],
      RAW,
      JSON_OPTION,
    ],
    examples: ["terminus show 50331652", "terminus show 50331652 --after 3"],
  },
  stats: {
    options: [JSON_OPTION],
    examples: ["terminus stats"],
  },
  status: {
    options: [JSON_OPTION],
    examples: ["terminus status", "terminus status --json"],
  },
  uninstall: {
    options: [
      ["--purge", "also delete the data directory, after asking once"],
      ["-y, --yes", "answer the --purge question yes"],
    ],
    examples: ["terminus uninstall", "terminus uninstall --purge"],
  },
  usage: {
    options: [JSON_OPTION],
    examples: ["terminus usage"],
  },
  verify: {
    options: [JSON_OPTION],
    examples: ["terminus verify"],
  },
};

/** The whole help text of one command. */
export function helpText(cmd: Command, summary: string): string {
  const h = HELP[cmd.name] ?? { options: [], examples: [] };
  const width = Math.max(0, ...h.options.map(([f]) => f.length)) + 2;
  const lines = [`usage: ${cmd.usage}`, "", summary];
  if (h.options.length) {
    lines.push("", "options:", ...h.options.map(([f, t]) => `  ${f.padEnd(width)}${t}`));
  }
  if (h.examples.length) lines.push("", "examples:", ...h.examples.map((e) => `  ${e}`));
  return lines.join("\n") + "\n";
}

export const command: Command = {
  name: "help",
  usage: "terminus help <command>",
  options: {},
  positionals: true,
  json: false,
  empty: () => null,
  async run(_ctx, a) {
    if (a.positionals.length === 0) return outcome("help", null, { human: [usageText()] });
    if (a.positionals.length > 1) throw new UsageError("help takes one command name");
    const name = a.positionals[0];
    const entry = find(name);
    if (!entry) throw new UsageError(`unknown command '${name}'`);
    const cmd = name === "help" ? command : await entry.load();
    return outcome("help", null, { human: [helpText(cmd, entry.summary)] });
  },
};
