/**
 * terminus sessions: every archived session in the project, newest first, one line each.
 * Verbs on one session (by number, UUID, UUID prefix or path): show, export, restore, name,
 * tag, untag, delete, changes; search over sessions; and browse, the interactive browser.
 */
import type { Command, CommandHelp, Parsed } from "./types.ts";
import { JSON_OPTION, PROJECT, SINCE, UNTIL } from "./help_lines.ts";
import type { Context } from "../core/context.ts";
import { type Outcome, outcome, terminalColumns, terminalStyle } from "../core/output.ts";
import { NotFoundError, UsageError } from "../core/errors.ts";
import { boundFlag } from "../core/time.ts";
import { resolve } from "../core/posix.ts";
import { egress, isRedacting } from "../core/egress.ts";
import { listingLines, viewOf } from "../core/sessions/list.ts";
import { listVisibleSessions } from "../core/sessions/listing.ts";
import { resolveRef } from "../core/sessions/ref.ts";
import { loadSession, rawStream } from "../core/sessions/load.ts";
import { attachChanges, conversation } from "../core/sessions/messages.ts";
import { sessionChanges } from "../core/sessions/changes.ts";
import { renderText } from "../core/sessions/render.ts";
import { changeHandle, checkName, checkTags } from "../core/sessions/handles.ts";
import { exportBytes, exportFormat, writeExport } from "../core/sessions/export.ts";
import { planRestore, writeRestore } from "../core/sessions/restore.ts";
import { openTerminal, runBrowser } from "../core/browse/screen.ts";
import { storeSource } from "../core/browse/source.ts";
import { resolveScope } from "../core/open.ts";
import {
  BROWSE_CANCELLED_EXIT,
  SESSIONS_PAGE,
  SHOW_DIFF_LINES,
  SHOW_RESULT_LINES,
} from "../core/constants.ts";
import { deleteSessions, emptyDelete } from "./sessions_delete.ts";
import { emptySearch, searchSessions, tagFlags } from "./sessions_search.ts";
import { changes, emptyChanges } from "./sessions_changes.ts";
import { BOUND_OPTIONS, openForRead, PROJECT_OPTION, str, wholeFlag } from "./common.ts";

const VERBS = [
  "list",
  "show",
  "export",
  "restore",
  "browse",
  "name",
  "tag",
  "untag",
  "delete",
  "search",
  "changes",
] as const;
type Verb = typeof VERBS[number];

/** Which options each verb takes (besides --json, which the registry adds). */
const VERB_OPTIONS: Record<Verb, string[]> = {
  list: ["project", "since", "until", "limit", "all", "tag"],
  show: ["full", "no-pager", "raw"],
  export: ["format", "raw"],
  restore: ["to", "dry-run"],
  browse: [],
  name: ["clear"],
  tag: [],
  untag: [],
  delete: ["yes", "dry-run", "transcript", "snapshots", "compact"],
  search: ["project", "since", "until", "limit", "tag"],
  changes: ["file"],
};

const EMPTY: Record<Verb, (a: Parsed) => unknown> = {
  list: () => ({ sessions: [] }),
  show: () => ({ session: null, messages: [] }),
  export: () => ({ session: null, format: null, path: null, bytes: 0 }),
  restore: () => ({ session: null, config: null, files: [], resume: null, dry_run: false }),
  browse: () => null,
  name: () => ({ session: null, changed: false }),
  tag: () => ({ session: null, changed: [] }),
  untag: () => ({ session: null, changed: [] }),
  delete: emptyDelete,
  search: emptySearch,
  changes: emptyChanges,
};

const label = (v: Verb) => (v === "list" ? "sessions" : `sessions ${v}`);

async function listing(ctx: Context, a: Parsed): Promise<Outcome> {
  // `sessions list`, as gh and term-llm spell it, is the listing itself
  const extra = a.positionals.slice(a.positionals[0] === "list" ? 1 : 0);
  if (extra.length) throw new UsageError(`sessions takes no argument '${extra[0]}'`);
  const since = boundFlag("--since", str(a.values, "since"), "start");
  const until = boundFlag("--until", str(a.values, "until"), "end");
  const asked = wholeFlag(a.values, "limit", 1);
  const all = a.values.all === true;
  if (all && asked !== null) throw new UsageError("sessions takes --limit or --all, not both");
  // a person gets a page and the count of the rest; a script (--json) every row it asks for
  const paged = asked === null && !all && !a.json;
  const limit = paged ? SESSIONS_PAGE : asked;
  const tags = tagFlags(a);
  // --json lists in session_no order, as scripts are promised; a person reads newest first.
  // Either way --limit keeps the newest.
  const order = a.json ? "number" : "newest";
  const l = await listVisibleSessions(ctx, a.values.project as string | undefined, {
    since,
    until,
    limit,
    tags,
    order,
  });
  if (l.reason !== null) {
    return outcome("sessions", { sessions: [] }, { reason: l.reason, warnings: l.warnings });
  }
  const rest = l.total - l.views.length;
  return outcome("sessions", { sessions: l.views }, {
    human: listingLines(l.views, terminalColumns(ctx)),
    warnings: l.warnings,
    counts: [
      rest > 0
        ? `${l.views.length} of ${l.total} session(s), the newest; --limit <n> or --all lists more`
        : `${l.views.length} session(s)`,
    ],
    page: true,
  });
}

/** The one positional after the verb that names the session. */
function refArg(a: Parsed, verb: Verb): string {
  const ref = a.positionals[1];
  if (ref === undefined) {
    throw new UsageError(`sessions ${verb} needs a session (42, #42, a UUID or a path)`);
  }
  return ref;
}

async function show(ctx: Context, a: Parsed): Promise<Outcome> {
  const ref = refArg(a, "show");
  if (a.positionals.length > 2) {
    throw new UsageError(`sessions show takes one session; '${a.positionals[2]}' is extra`);
  }
  const o = await openForRead(ctx);
  if (!o.db) throw new NotFoundError(o.reason);
  try {
    const row = resolveRef(o.db, o.r.cfg, ctx.cwd, ref);
    const redacting = isRedacting(egress(o.r.cfg.privacy.redactRecall && a.values.raw !== true));
    const s = loadSession(o.db, row, { project: null, exclude: o.r.cfg.exclude }, redacting);
    const full = a.values.full === true;
    const messages = attachChanges(
      conversation(s.records, full ? null : SHOW_RESULT_LINES, s.subagents),
      sessionChanges(s.records, s.turnIds),
    );
    const styled = !a.json && terminalStyle(ctx);
    return outcome("sessions show", { session: s.view, messages }, {
      human: [
        new TextEncoder().encode(
          renderText(s.view, messages, styled, full ? null : SHOW_DIFF_LINES),
        ),
      ],
      page: a.values["no-pager"] !== true,
      warnings: o.warnings,
      reason: s.view.evicted
        ? `session #${s.view.session_no}'s text was evicted by retention; only its facts remain`
        : null,
    });
  } finally {
    o.db.close();
  }
}

async function exportOne(ctx: Context, a: Parsed): Promise<Outcome> {
  const ref = refArg(a, "export");
  const format = exportFormat(str(a.values, "format"));
  if (a.positionals.length > 3) {
    throw new UsageError(`sessions export takes one path; '${a.positionals[3]}' is extra`);
  }
  const target = a.positionals[2] === undefined ? null : resolve(ctx.cwd, a.positionals[2]);
  if (target === null && a.json) {
    throw new UsageError(
      "sessions export --json needs a path: without one, stdout carries the export itself",
    );
  }
  if (format === "jsonl" && a.values.raw !== undefined) {
    throw new UsageError(
      "--raw applies to md and html; jsonl is always the archived transcript as it is",
    );
  }
  const o = await openForRead(ctx);
  if (!o.db) throw new NotFoundError(o.reason);
  try {
    const row = resolveRef(o.db, o.r.cfg, ctx.cwd, ref);
    let bytes: Uint8Array;
    if (format === "jsonl") {
      if (row.evicted) {
        throw new NotFoundError(
          `session #${row.session_no}'s text was evicted by retention; there is nothing to export`,
        );
      }
      bytes = rawStream(o.db, row); // always raw, as `terminus export` is
    } else {
      const redacting = isRedacting(egress(o.r.cfg.privacy.redactRecall && a.values.raw !== true));
      // markdown-it is loaded only for an HTML export
      const md = format === "html"
        ? (await import("../core/sessions/markdown.ts")).markdownHtml
        : null;
      bytes = exportBytes(
        loadSession(o.db, row, { project: null, exclude: o.r.cfg.exclude }, redacting),
        format,
        md,
      );
    }
    const view = viewOf(row);
    if (target === null) {
      return outcome("sessions export", null, {
        human: [bytes],
        warnings: o.warnings,
        wrap: false,
      });
    }
    writeExport(target, bytes);
    return outcome(
      "sessions export",
      { session: view, format, path: target, bytes: bytes.length },
      {
        warnings: o.warnings,
        counts: [
          `session #${row.session_no} written to ${target} (${bytes.length} byte(s), ${format})`,
        ],
      },
    );
  } finally {
    o.db.close();
  }
}

async function restore(ctx: Context, a: Parsed): Promise<Outcome> {
  const ref = refArg(a, "restore");
  if (a.positionals.length > 2) {
    throw new UsageError(`sessions restore takes one session; '${a.positionals[2]}' is extra`);
  }
  const to = str(a.values, "to") ?? null;
  if (to === "") throw new UsageError("--to needs a folder (Claude Code's config folder)");
  const dryRun = a.values["dry-run"] === true;
  const o = await openForRead(ctx);
  if (!o.db) throw new NotFoundError(o.reason);
  try {
    const row = resolveRef(o.db, o.r.cfg, ctx.cwd, ref);
    const vis = { project: null, exclude: o.r.cfg.exclude };
    const plan = planRestore(o.db, row, vis, { roots: o.r.roots, to, cwd: ctx.cwd, dryRun });
    if (!dryRun) writeRestore(plan);
    const files = plan.files.map(({ path, bytes, status }) => ({ path, bytes, status }));
    return outcome("sessions restore", {
      session: viewOf(row, egress(o.r.cfg.privacy.redactRecall)),
      config: plan.config,
      files,
      resume: plan.resume,
      dry_run: dryRun,
    }, {
      human: plan.resume ? [plan.resume + "\n"] : [],
      wrap: false, // a command to copy
      warnings: o.warnings,
      counts: files.map((f) => `${f.status}: ${f.path} (${f.bytes} byte(s))`),
    });
  } finally {
    o.db.close();
  }
}

async function browse(ctx: Context, a: Parsed): Promise<Outcome> {
  if (a.json) throw new UsageError("sessions browse is interactive; it takes no --json");
  if (a.positionals.length > 1) {
    throw new UsageError(`sessions browse takes no argument; '${a.positionals[1]}' is extra`);
  }
  const term = openTerminal(ctx.streams); // before the store: no terminal, nothing opened
  const o = await openForRead(ctx);
  if (!o.db) throw new NotFoundError(o.reason);
  try {
    const scope = resolveScope(o.db, o.r.cfg, ctx.cwd, undefined);
    const src = storeSource({
      db: o.db,
      store: o.r.store,
      cfg: o.r.cfg,
      cwd: ctx.cwd,
      roots: o.r.roots,
      current: scope.ok ? scope.vis : null,
    });
    const end = await runBrowser(term, src, ctx.env("NO_COLOR") === undefined);
    // left with Esc or Ctrl-C: 130, as fzf exits, so `$(terminus sessions browse)` can tell
    return outcome("sessions browse", null, {
      human: end.print ? [end.print + "\n"] : [],
      wrap: false, // a command to copy or run
      warnings: o.warnings,
      exitCode: end.cancelled ? BROWSE_CANCELLED_EXIT : 0,
    });
  } finally {
    o.db.close();
  }
}

/** name / tag / untag: find the session read-only, then write only the handle. */
async function handle(ctx: Context, a: Parsed, verb: "name" | "tag" | "untag"): Promise<Outcome> {
  const ref = refArg(a, verb);
  const rest = a.positionals.slice(2);
  let name: string | null = null;
  let tags: string[] = [];
  if (verb === "name") {
    if (a.values.clear === true) {
      if (rest.length) throw new UsageError("sessions name --clear takes no title");
    } else {
      if (rest.length !== 1) {
        throw new UsageError(
          'sessions name takes one title (quote it: "investigate auth flow"), or --clear',
        );
      }
      name = checkName(rest[0]);
    }
  } else {
    tags = checkTags(rest);
  }
  const { sessionNo, view, changed, warnings } = await changeHandle(
    ctx,
    ref,
    verb === "name" ? { verb, name } : { verb, tags },
    label(verb),
  );
  const said = verb === "name"
    ? (name === null
      ? (changed ? `#${sessionNo}: name cleared` : `#${sessionNo} had no name`)
      : `#${sessionNo} named`)
    : `#${sessionNo}: ${(changed as string[]).length} tag(s) ${
      verb === "tag" ? "added" : "removed"
    }${
      rest.some((t) => t !== t.toLowerCase())
        ? ` (tags are lowercase: ${rest.filter((t) => t !== t.toLowerCase()).join(", ")} as ${
          rest.filter((t) => t !== t.toLowerCase()).map((t) => t.toLowerCase()).join(", ")
        })`
        : ""
    }`;
  return outcome(label(verb), { session: view, changed }, {
    human: [
      `#${view.session_no}  ${view.title ?? "(untitled)"}${
        view.tags.length ? "  " + view.tags.map((t) => `+${t}`).join(" ") : ""
      }\n`,
    ],
    counts: [said],
    warnings,
  });
}

function runVerb(ctx: Context, a: Parsed, verb: Verb): Promise<Outcome> {
  switch (verb) {
    case "list":
      return listing(ctx, a);
    case "show":
      return show(ctx, a);
    case "export":
      return exportOne(ctx, a);
    case "restore":
      return restore(ctx, a);
    case "browse":
      return browse(ctx, a);
    case "delete":
      return deleteSessions(ctx, a);
    case "search":
      return searchSessions(ctx, a);
    case "changes":
      return changes(ctx, a);
    default:
      return handle(ctx, a, verb);
  }
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
    names: VERBS,
    summaries: {
      list: "the sessions, newest first: what terminus sessions prints with no verb",
      show: "one session as a conversation",
      export: "one session as a Markdown, HTML or .jsonl file",
      restore: "put back a transcript Claude Code deleted, so --resume works",
      browse: "find a session as you type; Enter prints its claude --resume line",
      name: "give a session a title of your own",
      tag: "add tags to a session",
      untag: "take tags off a session",
      delete: "forget sessions for good (asks first)",
      search: "which sessions talked about these words, best first",
      changes: "what a session did to files, as diffs",
    },
    fallback: "list",
    first: true,
    options: VERB_OPTIONS,
    unknown: (word) => `sessions takes no argument '${word}'; its verbs are ${VERBS.join(", ")}`,
    notFirst: (verb) => `${verb} must come straight after sessions, before any option`,
    option: (verb, k) => {
      if (verb !== "list") return `sessions ${verb} takes no --${k}`;
      const takers = VERBS.filter((v) => VERB_OPTIONS[v].includes(k));
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
  empty: (a) => {
    const first = a.positionals[0];
    return (VERBS as readonly string[]).includes(first) ? EMPTY[first as Verb](a) : EMPTY.list(a);
  },
  async run(ctx, a) {
    const verb = a.subcommand as Verb;
    try {
      return await runVerb(ctx, a, verb);
    } catch (e) {
      if (e instanceof UsageError) throw e;
      // a failure is the verb's, under its own name, with its own empty document
      return outcome(label(verb), EMPTY[verb](a), {
        ok: false,
        exitCode: 1,
        reason: (e as Error).message,
      });
    }
  },
};
