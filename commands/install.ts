/** terminus install: wire Terminus into Claude Code and print a receipt of every file touched. */
import type { Command, CommandHelp } from "./types.ts";
import { humanBytes, outcome } from "../core/output.ts";
import { VERSION } from "../core/constants.ts";
import { install, type InstallReport } from "../core/setup/install.ts";
import { SETUP_HOOK_EVENTS } from "../core/setup/locations.ts";
import { dirname, join } from "../core/posix.ts";
import { transcriptRoots } from "../core/paths.ts";
import { historyImported } from "../core/history/import_history.ts";
import type { Context } from "../core/context.ts";
import type { Outcome } from "../core/output.ts";
import { manPage } from "../core/setup/manpage.ts";
import { ENABLE, type Shell, SHELLS } from "../core/setup/completions.ts";
import { cliSpec, type RegistryEntry } from "./spec.ts";

const AUTO_COMPACT_NOTE =
  "autoCompactEnabled is a trade-off Terminus leaves to you, whatever it is set to. On, Claude Code summarizes older history as the context fills: that spends tokens and loses detail, and the session carries on. Off, a session that reaches the context limit stops until you run /compact or /clear. Terminus keeps the whole history either way, but it does not manage the active context, and nothing shows its recall replaces compaction.";

function pad(label: string): string {
  return `  ${label.padEnd(14)}`;
}

/**
 * Claude Code's prompt history, if there is one: install offers its import, never runs it,
 * and once it has been imported a re-install says nothing more about it.
 */
function historyOffer(env: (name: string) => string | undefined): string | null {
  const file = join(transcriptRoots([], env)[0], "history.jsonl");
  if (historyImported(env)) return null;
  try {
    const size = Deno.statSync(file).size;
    return `history: ${file} holds ${
      humanBytes(size)
    } of past prompts, some perhaps from sessions already deleted; to make them searchable, run: terminus import-history`;
  } catch {
    return null;
  }
}

function receipt(
  r: InstallReport,
  history: string | null,
  env: (name: string) => string | undefined,
): string[] {
  const out: string[] = [];
  if (r.incomplete) {
    out.push(
      "install incomplete: the mcp server is not registered",
      `${pad("reason")}${r.incomplete.reason}`,
      `${pad("to finish")}${r.incomplete.finish}`,
      "",
    );
  }
  out.push(`terminus ${VERSION} installed`);
  const target = r.version.file;
  out.push(
    `${pad("link")}${r.loc.link} -> ${target} (${
      r.link.wrote ? (r.link.was ? `moved from ${r.link.was}` : "placed") : "already current"
    })`,
  );
  const kind = r.version.fromSource ? "launcher for a self-contained source copy" : "binary";
  out.push(
    `${pad("version file")}${target}, the ${kind} (${
      r.version.wrote ? "stored" : "already current"
    })`,
  );
  if (r.version.unbundled) {
    out.push(
      `${
        pad("")
      }it runs its modules one by one, not as a bundle (${r.version.unbundled}): each start takes a few ms longer`,
    );
  }
  let settingsLine: string;
  if (r.settings.added.length === 0) settingsLine = "the four hook entries are already current";
  else if (r.settings.added.length === SETUP_HOOK_EVENTS.length) {
    settingsLine = `added the four hook entries${r.settings.created ? " (new file)" : ""}`;
  } else {settingsLine = `added the hook entries for ${
      r.settings.added.join(", ")
    }; the rest were already current`;}
  out.push(`${pad("settings.json")}${r.loc.settings}: ${settingsLine}`);
  if (r.settings.rewroteForm) {
    out.push(
      `${
        pad("")
      }the file was not in two-space form, so all of it was rewritten in two-space form; its keys and values are unchanged`,
    );
  }
  if (r.backupWritten) {
    out.push(`${pad("backup")}${r.backupWritten}, a copy of settings.json as it was`);
  }
  const how = {
    current: "the 'terminus' server is already current; no claude was run",
    added: "registered the 'terminus' server with claude mcp add-json --scope user",
    replaced:
      "replaced an entry in another shape: claude mcp remove --scope user, then claude mcp add-json --scope user",
    "not registered": "not registered (see above)",
  }[r.mcp];
  out.push(`${pad(".claude.json")}${r.loc.claudeJson}: ${how}`);
  out.push(`${pad("data")}${r.dataDir}`);
  out.push(`${pad("transcripts")}${r.roots.length ? r.roots.join(", ") : "not known (see below)"}`);
  if (r.manPage) {
    out.push(
      `${pad("man page")}${r.manPage.path}: ${
        r.manPage.problem
          ? `could not be written (${r.manPage.problem})`
          : r.manPage.wrote
          ? "written; man terminus reads it"
          : "already current"
      }`,
    );
  }
  out.push(`${pad("undo")}terminus uninstall`);
  if (r.pathLine) {
    const where = r.pathLine.file ? `; add it to ${r.pathLine.file} for new shells` : "";
    out.push(
      "",
      `${
        dirname(r.loc.link)
      } is not on PATH, so typing terminus finds nothing yet. This shell line fixes that${where}:`,
      `  ${r.pathLine.line}`,
    );
  }
  out.push("");
  out.push(`${r.cleanup.finding}.`);
  if (r.cleanup.fix) {
    out.push(`  to keep them longer: ${r.cleanup.fix} (terminus never changes it)`);
  }
  out.push(AUTO_COMPACT_NOTE);
  out.push("");
  const b = r.backfill;
  if (b.sizing) {
    for (const p of b.sizing.problems) out.push(`problem: ${p}`);
    if (b.sizing.transcripts === 0) {
      out.push("backfill: no transcripts on disk yet, so nothing was started");
    } else if (b.sizing.pending === 0) {
      out.push(
        `backfill: ${b.sizing.transcripts} transcript(s), nothing to archive, so nothing was started`,
      );
    } else {
      out.push(
        `backfill: ${b.sizing.pendingFiles} of ${b.sizing.transcripts} transcript(s) not yet archived (${
          humanBytes(b.sizing.pending)
        })${
          b.started
            ? "; archiving them in the background, at normal priority. terminus status shows how far it has got."
            : "."
        }`,
      );
    }
  }
  if (b.problem) out.push(`problem: ${b.problem}`);
  if (history) out.push(history);
  out.push(completionsLine(env));
  return out;
}

/**
 * How to turn on tab completion in the person's shell ($SHELL), or in each: the line and the
 * startup file it belongs in. Install never edits a shell's startup file.
 */
function completionsLine(env: (name: string) => string | undefined): string {
  const shell = (env("SHELL") ?? "").split("/").pop() ?? "";
  if ((SHELLS as readonly string[]).includes(shell)) {
    const e = ENABLE[shell as Shell];
    return `completions: to complete commands and options with Tab, add this line to ${e.file}: ${e.line} (install never edits it)`;
  }
  return `completions: terminus completions bash|zsh|fish prints a script for your shell; its first lines say how to turn it on`;
}

const help: CommandHelp = {
  options: [],
  examples: ["terminus install"],
};

/** The command, given the registry its man page is written from. */
export function installCommand(registry: readonly RegistryEntry[]): Command {
  return {
    name: "install",
    help,
    usage: "terminus install",
    options: {},
    positionals: false,
    json: false,
    empty: () => null,
    run: async (ctx) => answer(ctx, manPage(await cliSpec(registry), VERSION)),
  };
}

async function answer(ctx: Context, page: string): Promise<Outcome> {
  const r = await install({
    env: ctx.env,
    self: ctx.self,
    manPage: page,
  });
  if (r.refused) {
    return outcome("install", null, { ok: false, reason: `install refused: ${r.refused}` });
  }
  const failed = r.incomplete !== null;
  return outcome("install", null, {
    ok: !failed,
    exitCode: failed ? 1 : 0,
    human: [receipt(r, historyOffer(ctx.env), ctx.env).join("\n") + "\n"],
  });
}
