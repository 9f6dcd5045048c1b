/**
 * terminus observations [--project <path>]: the mechanical facts of each closed session.
 * terminus observations regenerate [--since <time>]: recompute them from the archive.
 */
import { basename } from "../core/posix.ts";
import type { Command, CommandHelp, Parsed } from "./types.ts";
import { JSON_OPTION, PROJECT } from "./help_lines.ts";
import type { Context } from "../core/context.ts";
import { type Outcome, outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";
import { boundFlag, durationText as duration } from "../core/time.ts";
import { str } from "./common.ts";
import { foldCut } from "../core/transcript/titles.ts";
import { TITLE_PROMPT_CHARS } from "../core/constants.ts";
import { regenerateObservations, visibleObservations } from "../core/observe/observations.ts";

/** How many items of one list a person sees; the rest are counted ("+N more"). */
const LIST_SHOWN = 8;

function capped(items: string[]): string {
  const more = items.length - LIST_SHOWN;
  return items.slice(0, LIST_SHOWN).join(", ") + (more > 0 ? `, +${more} more` : "");
}

/** A file inside the project by its path from there; a command by its first line. */
function readable(kind: string, v: string, project: string | null): string {
  if (kind === "files_modified" || kind === "files_read") {
    return project && v.startsWith(project + "/") ? v.slice(project.length + 1) : v;
  }
  if (kind === "commands") {
    const nl = v.indexOf("\n");
    return nl < 0 ? v : `${v.slice(0, nl).trimEnd()} \u2026`;
  }
  return v;
}

function parseMechanical(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text; // not valid JSON: handed back as its stored text
  }
}

async function list(ctx: Context, a: Parsed): Promise<Outcome> {
  if (a.positionals.length > 0) {
    throw new UsageError(
      `observations takes no argument '${
        a.positionals[0]
      }'; regenerate must come straight after observations`,
    );
  }
  const seen = await visibleObservations(ctx, a.values.project as string | undefined);
  if (seen.reason !== null) {
    return outcome("observations", { observations: [] }, {
      reason: seen.reason,
      warnings: seen.warnings,
    });
  }
  const rows = seen.rows;
  const projects = rows.map((r) => r.project);
  const observations = rows.map((r) => ({
    session_key: r.sessionKey,
    session_id: r.sessionId,
    generated_at: r.generatedAt,
    mechanical: parseMechanical(r.mechanical),
  }));
  const human: string[] = [];
  for (const [i, ob] of observations.entries()) {
    const m = ob.mechanical as Record<string, unknown> | string | null;
    // the number `sessions show` takes, and the title `sessions` shows
    const no = `#${rows[i].sessionNo}  `;
    const title = seen.titles.get(rows[i].sessionNo);
    const titled = title ? [`  ${"title".padEnd(16)}${foldCut(title, TITLE_PROMPT_CHARS)}`] : [];
    if (!m || typeof m === "string") {
      human.push(
        [`${no}${basename(ob.session_key)}`, ...titled, `  mechanical      ${m ?? "-"}`].join(
          "\n",
        ) + "\n",
      );
      continue;
    }
    const lines = [
      `${no}${basename(ob.session_key)}  ${m.branch ?? "-"}  ${m.turns} turn(s)  ${
        duration(m.duration_seconds as number | null)
      }  ${m.compactions} compaction(s)`,
      ...titled,
    ];
    for (
      const [k, label] of [
        ["files_modified", "files modified"],
        ["files_read", "files read"],
        ["tools", "tools"],
        ["commands", "commands"],
        ["errors", "errors"],
        ["commits", "commits"],
        ["truncated", "truncated"],
      ]
    ) {
      const v = m[k];
      if (Array.isArray(v) && v.length) {
        const shown = v.map((x) => readable(k, String(x), projects[i]));
        lines.push(`  ${label.padEnd(16)}${capped(shown)}`);
      }
    }
    human.push(lines.join("\n") + "\n");
  }
  return outcome("observations", { observations }, {
    human,
    warnings: seen.warnings,
    counts: [`${observations.length} observation(s)`],
  });
}

const REGENERATE = "observations regenerate";

async function regen(ctx: Context, a: Parsed): Promise<Outcome> {
  if (a.positionals.length > 1) {
    throw new UsageError(`observations regenerate takes no argument '${a.positionals[1]}'`);
  }
  if (a.values.project !== undefined) {
    throw new UsageError("observations regenerate takes no --project");
  }
  const since = boundFlag("--since", str(a.values, "since"), "start");
  const empty = { since, selected: 0, regenerated: 0, notes: [] as string[] };
  // a failure is this subcommand's, with its own name and the bound it was given
  const failed = (reason: string) => outcome(REGENERATE, empty, { ok: false, exitCode: 1, reason });
  try {
    const done = await regenerateObservations(ctx, since);
    if (done.result === null) {
      return done.ok ? outcome(REGENERATE, empty, { reason: done.reason }) : failed(done.reason);
    }
    const res = done.result;
    // as reindex: under --json the document alone carries the notes; in human mode they
    // go to stderr with the counts
    return outcome(REGENERATE, { since, ...res }, {
      counts: [...res.notes, `${res.selected} selected, ${res.regenerated} regenerated`],
    });
  } catch (e) {
    if (e instanceof UsageError) throw e;
    return failed((e as Error).message);
  }
}

const help: CommandHelp = {
  options: [
    PROJECT,
    ["--since <time>", "regenerate only: sessions whose last turn is at or after this time"],
    JSON_OPTION,
  ],
  examples: ["terminus observations --project '*'", "terminus observations regenerate"],
};

export const command: Command = {
  name: "observations",
  help,
  subcommands: {
    names: ["regenerate"],
    summaries: { regenerate: "record the observations of closed sessions again" },
    fallback: "list",
    first: true,
    notFirst: () => "regenerate must come straight after observations, before any option",
    // regenerate checks its own (its extra argument is named before its options)
    options: { list: ["project"] },
    option: (_, k) => `observations takes --${k} only after regenerate`,
  },
  usage: [
    "terminus observations [--project <path>] [--json]",
    "terminus observations regenerate [--since <time>] [--json]",
  ].join("\n  "),
  options: { project: { type: "string" }, since: { type: "string" } },
  positionals: true,
  json: true,
  empty: (a) =>
    a.positionals[0] === "regenerate"
      ? {
        since: typeof a.values.since === "string" ? a.values.since : null,
        selected: 0,
        regenerated: 0,
        notes: [],
      }
      : { observations: [] },
  run(ctx, a) {
    return a.subcommand === "regenerate" ? regen(ctx, a) : list(ctx, a);
  },
};
