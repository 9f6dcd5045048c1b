/**
 * Shell completion scripts for bash, zsh and fish, written from the command line as data
 * (cli_spec.ts): the commands, each command's verbs, the options each takes, and the values
 * of an option that takes a fixed few. `terminus completions <shell>` prints one; nothing
 * here writes a file or touches a shell's profile.
 */
import type { CommandSpec, OptionSpec } from "./cli_spec.ts";

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = typeof SHELLS[number];

/** What a person adds to their shell's startup file to turn completions on, by shell. */
export const ENABLE: Record<Shell, { line: string; file: string }> = {
  bash: { line: 'eval "$(terminus completions bash)"', file: "~/.bashrc" },
  zsh: { line: 'eval "$(terminus completions zsh)"', file: "~/.zshrc (after compinit)" },
  fish: { line: "terminus completions fish | source", file: "~/.config/fish/config.fish" },
};

/** The top level's own options. */
const TOP = ["--help", "-h", "--version", "-V"];

/** Single-quoted for sh, bash, zsh and fish alike ('it'\''s'; fish reads \' inside quotes). */
function sq(s: string, fish = false): string {
  return fish
    ? `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`
    : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Each key a command line can be in: the command, or the command and its verb. */
interface Key {
  key: string;
  options: OptionSpec[];
  words?: readonly string[];
}

function keys(spec: CommandSpec[]): Key[] {
  return spec.flatMap((c) => [
    { key: c.name, options: c.options, ...(c.words ? { words: c.words } : {}) },
    ...c.verbs.map((v) => ({ key: `${c.name} ${v.name}`, options: v.options })),
  ]);
}

function optionWords(o: OptionSpec): string[] {
  return [`--${o.name}`, ...(o.short ? [`-${o.short}`] : [])];
}

/** How a value is completed: its fixed values, folders, files, or nothing to offer. */
function valueKind(o: OptionSpec): { values: readonly string[] } | "dirs" | "files" | "none" {
  if (o.values) return { values: o.values };
  if (o.placeholder === "dir" || o.name === "project") return "dirs";
  if (o.placeholder === "path") return "files";
  return "none";
}

export function bashScript(spec: CommandSpec[]): string {
  const withVerbs = spec.filter((c) => c.verbs.length);
  const lines = [
    "# terminus completions for bash, written from its command registry.",
    `# To turn them on, add this line to ~/.bashrc: ${ENABLE.bash.line}`,
    "_terminus() {",
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
    '  local i=1 cmd="" key="" words=""',
    "  while [ $i -lt $COMP_CWORD ]; do",
    '    case "${COMP_WORDS[i]}" in -*) ;; *) cmd="${COMP_WORDS[i]}"; break ;; esac',
    "    i=$((i + 1))",
    "  done",
    '  if [ -z "$cmd" ]; then',
    `    COMPREPLY=($(compgen -W ${sq([...TOP, ...spec.map((c) => c.name)].join(" "))} -- "$cur"))`,
    "    return",
    "  fi",
    '  key="$cmd"',
    "  # a verb comes straight after its command",
    '  local verb="${COMP_WORDS[i+1]}"',
    '  case "$cmd" in',
    ...withVerbs.map((c) =>
      `    ${c.name}) if [ $COMP_CWORD -gt $((i + 1)) ]; then case "$verb" in ${
        c.verbs.map((v) => v.name).join("|")
      }) key="$cmd $verb" ;; esac; fi ;;`
    ),
    "  esac",
    "  # the value after an option that takes one",
    '  case "$key $prev" in',
  ];
  for (const k of keys(spec)) {
    for (const o of k.options.filter((o) => o.takesValue)) {
      const kind = valueKind(o);
      const pattern = optionWords(o).map((w) => sq(`${k.key} ${w}`)).join("|");
      const reply = typeof kind === "object"
        ? `COMPREPLY=($(compgen -W ${sq(kind.values.join(" "))} -- "$cur"))`
        : kind === "dirs"
        ? 'COMPREPLY=($(compgen -d -- "$cur"))'
        : kind === "files"
        ? 'COMPREPLY=($(compgen -f -- "$cur"))'
        : "COMPREPLY=()";
      lines.push(`    ${pattern}) ${reply}; return ;;`);
    }
  }
  lines.push("  esac", '  local opts=""', '  case "$key" in');
  for (const k of keys(spec)) {
    const c = spec.find((x) => x.name === k.key);
    const verbs = c && c.verbs.length ? c.verbs.map((v) => v.name) : [];
    const opts = [...k.options.flatMap(optionWords), "--help", "-h"];
    // the verbs (or fixed words) are offered only straight after the command
    const first = [...verbs, ...(k.words ?? [])];
    lines.push(
      `    ${sq(k.key)}) opts=${sq(opts.join(" "))}${
        first.length ? `; [ $COMP_CWORD -eq $((i + 1)) ] && words=${sq(first.join(" "))}` : ""
      } ;;`,
    );
  }
  lines.push(
    "  esac",
    '  case "$cur" in',
    '    -*) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;',
    '    *) if [ -n "$words" ]; then COMPREPLY=($(compgen -W "$words" -- "$cur"));',
    '       else COMPREPLY=($(compgen -f -- "$cur")); fi ;;',
    "  esac",
    "}",
    "complete -o filenames -F _terminus terminus",
    "",
  );
  return lines.join("\n");
}

/** An _arguments description: no brackets, which would end it. */
function zdesc(s: string): string {
  return s.replace(/[[\]]/g, "").replace(/:/g, " -");
}

function zshSpec(o: OptionSpec): string[] {
  const kind = valueKind(o);
  const value = !o.takesValue
    ? ""
    : typeof kind === "object"
    ? `:${o.placeholder ?? "value"}:(${kind.values.join(" ")})`
    : kind === "dirs"
    ? `:${o.placeholder ?? "dir"}:_files -/`
    : kind === "files"
    ? `:${o.placeholder ?? "path"}:_files`
    : `:${o.placeholder ?? "value"}: `;
  const star = o.repeatable ? "*" : "";
  return optionWords(o).map((w) => sq(`${star}${w}[${zdesc(o.help)}]${value}`));
}

export function zshScript(spec: CommandSpec[]): string {
  const lines = [
    "#compdef terminus",
    "# terminus completions for zsh, written from its command registry.",
    `# To turn them on, add this line to ~/.zshrc, after compinit: ${ENABLE.zsh.line}`,
    "_terminus() {",
    "  local -a cmds verbs specs",
    "  cmds=(",
    ...spec.map((c) => `    ${sq(`${c.name}:${c.summary.replace(/:/g, " -")}`)}`),
    "  )",
    "  if (( CURRENT == 2 )); then",
    "    if [[ $PREFIX == -* ]]; then",
    `      compadd -- ${TOP.join(" ")}`,
    "    else",
    "      _describe -t commands 'terminus command' cmds",
    "    fi",
    "    return",
    "  fi",
    '  local cmd="$words[2]" key="$words[2]"',
    '  case "$cmd" in',
  ];
  for (const c of spec.filter((c) => c.verbs.length)) {
    lines.push(
      `    ${c.name})`,
      "      verbs=(",
      ...c.verbs.map((v) => `        ${sq(`${v.name}:${v.summary.replace(/:/g, " -")}`)}`),
      "      )",
      "      if (( CURRENT == 3 )) && [[ $PREFIX != -* ]]; then",
      `        _describe -t verbs ${sq(`${c.name} verb`)} verbs`,
      c.options.length ? "        _arguments -s : '--help[this help]'" : "",
      "        return",
      "      fi",
      `      case "$words[3]" in ${
        c.verbs.map((v) => v.name).join("|")
      }) key="$cmd $words[3]" ;; esac`,
      "      ;;",
    );
  }
  lines.push("  esac", '  case "$key" in');
  for (const k of keys(spec)) {
    const specs = k.options.flatMap(zshSpec);
    const rest = k.words
      ? sq(`1:${k.key === "completions" ? "shell" : "word"}:(${k.words.join(" ")})`)
      : sq("*:file:_files");
    lines.push(
      `    ${sq(k.key)}) specs=(${
        [...specs, sq("(- *)--help[this help]"), sq("(- *)-h[this help]"), rest].join(" ")
      }) ;;`,
    );
  }
  lines.push(
    "    *) specs=('*:file:_files') ;;",
    "  esac",
    "  _arguments -s : $specs",
    "}",
    "if (( $+functions[compdef] )); then",
    "  compdef _terminus terminus",
    "else",
    '  print -u2 "terminus completions: run compinit first (autoload -Uz compinit && compinit)"',
    "fi",
    "",
  );
  return lines.filter((l) => l !== "").join("\n") + "\n";
}

export function fishScript(spec: CommandSpec[]): string {
  const withVerbs = spec.filter((c) => c.verbs.length);
  const lines = [
    "# terminus completions for fish, written from its command registry.",
    `# To turn them on, add this line to ~/.config/fish/config.fish: ${ENABLE.fish.line}`,
    "function __terminus_key",
    "    set -l w (commandline -opc)",
    "    set -e w[1]",
    "    set -l cmd",
    "    for x in $w",
    "        if not string match -q -- '-*' $x",
    "            set cmd $x",
    "            break",
    "        end",
    "    end",
    '    test -n "$cmd"; or return',
    "    set -l verb",
    "    test (count $w) -ge 2; and set verb $w[2]",
    "    switch $cmd",
    ...withVerbs.flatMap((c) => [
      `        case ${c.name}`,
      `            if contains -- "$verb" ${
        c.verbs.map((v) => v.name).join(" ")
      }; and test (count $w) -ge 2`,
      '                echo "$cmd $verb"',
      "                return",
      "            end",
    ]),
    "    end",
    "    echo $cmd",
    "end",
    "function __terminus_is",
    "    set -l k (__terminus_key)",
    '    test "$k" = "$argv[1]"',
    "end",
    "function __terminus_at_verb",
    "    set -l w (commandline -opc)",
    '    test (count $w) -eq 2; and test "$w[2]" = $argv[1]',
    "end",
    "complete -c terminus -f",
    ...TOP.filter((t) => t.startsWith("--")).map((t) =>
      `complete -c terminus -n __fish_use_subcommand -l ${t.slice(2)}`
    ),
  ];
  for (const c of spec) {
    lines.push(
      `complete -c terminus -n __fish_use_subcommand -a ${c.name} -d ${sq(c.summary, true)}`,
    );
    for (const v of c.verbs) {
      lines.push(
        `complete -c terminus -n ${sq(`__terminus_at_verb ${c.name}`, true)} -a ${v.name} -d ${
          sq(v.summary, true)
        }`,
      );
    }
    if (c.words) {
      lines.push(
        `complete -c terminus -n ${sq(`__terminus_at_verb ${c.name}`, true)} -a ${
          sq(c.words.join(" "), true)
        }`,
      );
    }
  }
  for (const k of keys(spec)) {
    const cond = sq(`__terminus_is '${k.key}'`, true);
    for (const o of [...k.options]) {
      const kind = valueKind(o);
      const value = !o.takesValue
        ? ""
        : typeof kind === "object"
        ? ` -x -a ${sq(kind.values.join(" "), true)}`
        : kind === "dirs"
        ? " -x -a '(__fish_complete_directories)'"
        : kind === "files"
        ? " -r -F"
        : " -x";
      lines.push(
        `complete -c terminus -n ${cond} -l ${o.name}${
          o.short ? ` -s ${o.short}` : ""
        }${value} -d ${sq(o.help, true)}`,
      );
    }
    lines.push(`complete -c terminus -n ${cond} -l help -s h -d 'this help'`);
  }
  return lines.join("\n") + "\n";
}

export function completionScript(shell: Shell, spec: CommandSpec[]): string {
  return shell === "bash" ? bashScript(spec) : shell === "zsh" ? zshScript(spec) : fishScript(spec);
}
