/**
 * terminus(1), the man page, written in roff from the command line as data (cli_spec.ts):
 * every command with its usage, summary, options and examples, and each verb's. Install
 * places it under ~/.local/share/man/man1/, where man finds it for a program in ~/.local/bin.
 */
import type { CommandSpec, OptionSpec } from "./cli_spec.ts";

/** Text safe in roff: backslashes and dashes escaped, a leading dot or quote defused. */
function roff(s: string): string {
  return s.replace(/\\/g, "\\e").replace(/-/g, "\\-").replace(/^([.'])/, "\\&$1");
}

function optionLines(options: OptionSpec[]): string[] {
  return options.flatMap((o) => [".TP", `.B ${roff(o.flag)}`, roff(o.help)]);
}

export function manPage(spec: CommandSpec[], version: string): string {
  const out = [
    `.TH TERMINUS 1 "" "terminus ${roff(version)}" "User Commands"`,
    ".SH NAME",
    "terminus \\- a local archive of Claude Code sessions",
    ".SH SYNOPSIS",
    ".B terminus",
    "[\\fB\\-\\-help\\fR | \\fB\\-h\\fR] [\\fB\\-\\-version\\fR | \\fB\\-V\\fR]",
    "\\fIcommand\\fR [\\fIargs\\fR]",
    ".SH DESCRIPTION",
    "Terminus keeps every Claude Code transcript whole in one SQLite file, indexes it, and hands",
    "the right pieces back: to Claude Code through its hooks and an MCP server, and to you",
    "through this command line. It never uses the network.",
    ".PP",
    "Every command takes \\fB\\-\\-help\\fR (or \\fB\\-h\\fR) and prints its help on",
    "stdout. Read commands take \\fB\\-\\-json\\fR and write one JSON document on stdout;",
    "counts and notes go to stderr.",
    ".SH COMMANDS",
  ];
  for (const c of spec) {
    out.push(".SS " + roff(c.name), roff(c.summary), ".PP", ".nf");
    for (const u of c.usage) out.push(roff(u));
    out.push(".fi");
    if (c.options.length) out.push(".RS", ...optionLines(c.options), ".RE");
    for (const v of c.verbs) {
      out.push(
        ".TP",
        `.B ${roff(`${c.name} ${v.name}`)}`,
        roff(v.summary),
        ".RS",
        ".nf",
        roff(v.usage),
        ".fi",
        ...optionLines(v.options),
        ".RE",
      );
    }
    if (c.examples.length) {
      out.push(".PP", "Examples:", ".RS", ".nf", ...c.examples.map(roff), ".fi", ".RE");
    }
  }
  out.push(
    ".SH EXIT STATUS",
    "0 on success, an empty answer included; 1 when the command could not do what it was",
    "asked; 2 for a mistake in the command line; 130 when a person leaves",
    "\\fBsessions browse\\fR.",
    ".SH ENVIRONMENT",
    ".TP",
    ".B TERMINUS_DATA_DIR",
    "Where the store is kept (default ~/.local/share/terminus).",
    ".TP",
    ".B TERMINUS_CONFIG_DIR",
    "Where terminus.toml is read from (default ~/.config/terminus).",
    ".TP",
    ".B CLAUDE_CONFIG_DIR",
    "Claude Code's folder (default ~/.claude): its transcripts and settings.json.",
    ".TP",
    ".B NO_COLOR",
    "Set to anything: no colour and no bold on a terminal.",
    ".TP",
    ".B PAGER",
    "The pager long answers go through on a terminal (default less \\-R; cat turns it off).",
    ".SH SEE ALSO",
    "\\fBterminus completions bash|zsh|fish\\fR prints a shell completion script.",
    "The user guide is docs/guide/ in the source.",
    "",
  );
  return out.join("\n");
}
