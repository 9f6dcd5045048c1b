/**
 * terminus sessions: every archived session in the project, newest first, one line each.
 * Verbs on one session (by number, UUID, UUID prefix or path): show, export, restore, name,
 * tag, untag, delete, changes; search over sessions; and browse, the interactive browser.
 * Each verb is a file of this folder; this one folds them into the command's `subcommands`
 * declaration (commands/parse.ts checks it) and runs the one the first word names.
 */
import type { Command, CommandHelp } from "../types.ts";
import { JSON_OPTION, PROJECT, SINCE, UNTIL } from "../help_lines.ts";
import { outcome } from "../../core/output.ts";
import { UsageError } from "../../core/errors.ts";
import { SESSIONS_PAGE } from "../../core/constants.ts";
import { BOUND_OPTIONS, PROJECT_OPTION } from "../common.ts";
import { label, type Verb } from "./verb.ts";
import { list } from "./list.ts";
import { show } from "./show.ts";
import { exportVerb } from "./export.ts";
import { restore } from "./restore.ts";
import { browse } from "./browse.ts";
import { name } from "./name.ts";
import { tag } from "./tag.ts";
import { untag } from "./untag.ts";
import { deleteVerb } from "./delete.ts";
import { search } from "./search.ts";
import { changes } from "./changes.ts";

/** Every verb, in the order help and refusals name them; `list` is what runs with none. */
const VERBS: readonly Verb[] = [
  list,
  show,
  exportVerb,
  restore,
  browse,
  name,
  tag,
  untag,
  deleteVerb,
  search,
  changes,
];
const NAMES = VERBS.map((v) => v.name);
const BY_NAME = new Map(VERBS.map((v) => [v.name, v]));
const OPTIONS = Object.fromEntries(VERBS.map((v) => [v.name, v.options]));

/** The verb the parser chose (list when the first word named none). */
function verbOf(word: string | null | undefined): Verb {
  return BY_NAME.get(word ?? "list") ?? list;
}

const help: CommandHelp = {
  options: [
    PROJECT,
    SINCE,
    UNTIL,
    [
      "--limit <n>",
      `at most this many sessions, the newest (default ${SESSIONS_PAGE}; with --json all)`,
    ],
    ["--all", "list every session, not a page"],
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
    "terminus sessions list --all",
    "terminus sessions show 42",
    "terminus sessions export 42 --format md > auth-flow.md",
    "terminus sessions restore 42",
    "terminus sessions browse",
    "terminus sessions search auth flow --project '*'",
    "terminus sessions changes 42 --file src/auth.ts",
    "terminus sessions delete 42 --dry-run",
  ],
};

export const command: Command = {
  name: "sessions",
  help,
  subcommands: {
    names: NAMES,
    summaries: Object.fromEntries(VERBS.map((v) => [v.name, v.summary])),
    fallback: "list",
    first: true,
    options: OPTIONS,
    unknown: (word) => `sessions takes no argument '${word}'; its verbs are ${NAMES.join(", ")}`,
    notFirst: (verb) => `${verb} must come straight after sessions, before any option`,
    option: (verb, k) => {
      if (verb !== "list") return `sessions ${verb} takes no --${k}`;
      const takers = VERBS.filter((v) => v.options.includes(k)).map((v) => v.name);
      return `sessions takes no --${k} without a verb (${takers.join(", ")} ${
        takers.length > 1 ? "take" : "takes"
      } it)`;
    },
  },
  usage: [
    "terminus sessions [list] [--project <path>] [--since <time>] [--until <time>] [--limit <n> | --all] [--tag <t>]... [--json]",
    "terminus sessions show <session> [--full] [--no-pager] [--raw] [--json]",
    "terminus sessions export <session> [<path>] --format md|html|jsonl [--raw] [--json]",
    "terminus sessions restore <session> [--to <dir>] [--dry-run] [--json]",
    "terminus sessions browse",
    'terminus sessions name <session> "<title>" | --clear [--json]',
    "terminus sessions tag|untag <session> <tag>... [--json]",
    "terminus sessions delete <session>... [--yes] [--dry-run] [--transcript] [--snapshots] [--compact] [--json]",
    "terminus sessions search <words> [--project <path>] [--since <time>] [--until <time>] [--limit <n>] [--tag <t>]... [--json]",
    "terminus sessions changes <session> [--file <path>] [--json]",
  ].join("\n  "),
  options: {
    ...PROJECT_OPTION,
    ...BOUND_OPTIONS,
    limit: { type: "string" },
    all: { type: "boolean" },
    tag: { type: "string", multiple: true },
    full: { type: "boolean" },
    "no-pager": { type: "boolean" },
    raw: { type: "boolean" },
    format: { type: "string" },
    clear: { type: "boolean" },
    to: { type: "string" },
    "dry-run": { type: "boolean" },
    yes: { type: "boolean", short: "y" },
    transcript: { type: "boolean" },
    snapshots: { type: "boolean" },
    compact: { type: "boolean" },
    file: { type: "string" },
  },
  values: { format: ["md", "html", "jsonl"] },
  positionals: true,
  json: true,
  empty: (a) => verbOf(a.positionals[0]).empty(a),
  async run(ctx, a) {
    const verb = verbOf(a.subcommand);
    try {
      return await verb.run(ctx, a);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      // a failure is the verb's, under its own name, with its own empty document
      return outcome(label(verb.name), verb.empty(a), {
        ok: false,
        exitCode: 1,
        reason: (e as Error).message,
      });
    }
  },
};
