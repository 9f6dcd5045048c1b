/**
 * A session's file changes as text: the `sessions changes` listing, and the diff shown inline
 * under an edit's tool call in `sessions show` (coloured on a terminal) and in the Markdown and
 * HTML exports (a `diff` block, and styled lines). Transcript text is escaped for each medium.
 */
import { escapeControls } from "../output.ts";
import { type Change, diffLines, type SessionChanges } from "./changes.ts";

const RED = "\x1b[31m";
const GREEN = "\x1b[32m";
const CYAN = "\x1b[36m";
const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

/** What a change is, in a few words: `Edit`, `Write (created)`, `Edit (failed)`. */
export function changeLabel(c: Change): string {
  const marks: string[] = [];
  if (c.write) marks.push(c.write);
  if (c.cell) marks.push(`cell ${c.cell.id ?? "(new)"}: ${c.cell.mode}`);
  if (c.tool === "Bash") marks.push("by shell, not reconstructed");
  if (c.status === "failed") marks.push("failed: the tool result was an error");
  if (c.status === "unknown") marks.push("no result archived");
  if (!c.whole_file && c.hunks.length && c.tool !== "NotebookEdit") {
    marks.push("lines counted within the edit");
  }
  return `${c.tool}${marks.length ? ` (${marks.join("; ")})` : ""}`;
}

/** The body of one change: its diff, a Write's content, or what the shell did. */
function bodyLines(c: Change): string[] {
  if (c.tool === "Bash") return [`${c.shell}: ${c.command}`];
  if (c.content !== null) return c.content.replace(/\n$/, "").split("\n").map((l) => `+${l}`);
  if (c.cell && c.cell.mode === "delete") return ["(cell deleted)"];
  return diffLines(c);
}

function paint(line: string, styled: boolean): string {
  const e = escapeControls(line);
  if (!styled) return e;
  if (line.startsWith("@@")) return CYAN + e + RESET;
  if (line.startsWith("+")) return GREEN + e + RESET;
  if (line.startsWith("-")) return RED + e + RESET;
  return e;
}

/**
 * One change's lines for a terminal, each prefixed by `pad`; at most `max` of them (null:
 * all), the rest counted on a line of their own, set in `dim`.
 */
export function changeText(
  c: Change,
  pad: string,
  styled: boolean,
  max: number | null = null,
  dim: (s: string) => string = (s) => s,
): string {
  const all = bodyLines(c);
  const shown = max === null ? all : all.slice(0, max);
  const out = shown.map((l) => pad + paint(l, styled) + "\n");
  if (shown.length < all.length) {
    out.push(
      `${pad}${
        dim(`… ${all.length - shown.length} more line(s); --full or sessions changes shows them`)
      }\n`,
    );
  }
  return out.join("");
}

function shown(path: string, base: string | null): string {
  return base && path.startsWith(base.replace(/\/+$/, "") + "/")
    ? path.slice(base.replace(/\/+$/, "").length + 1)
    : path;
}

/** `+12 -3` */
export function plusMinus(added: number, removed: number): string {
  return `+${added} -${removed}`;
}

/** The `sessions changes` listing: each file's summary line, then its changes in order. */
export function changesText(c: SessionChanges, base: string | null, styled: boolean): string {
  const b = (s: string) => (styled ? BOLD + s + RESET : s);
  const d = (s: string) => (styled ? DIM + s + RESET : s);
  const out: string[] = [];
  for (const f of c.files) {
    out.push(`${b(escapeControls(shown(f.path, base)))}  ${plusMinus(f.added, f.removed)}\n`);
    for (const ch of f.changes) {
      const when = ch.ts ? `${ch.ts.slice(0, 10)} ${ch.ts.slice(11, 19)}` : "-";
      out.push(
        `  ${d(`turn ${ch.turn_id ?? "-"}  ${when}`)}  ${escapeControls(changeLabel(ch))}\n`,
      );
      out.push(changeText(ch, "    ", styled));
    }
  }
  out.push(
    `${c.total.files} file(s), ${c.total.changes} change(s)${
      c.total.failed ? `, ${c.total.failed} failed` : ""
    }: ${plusMinus(c.total.added, c.total.removed)}\n`,
  );
  return out.join("");
}

/** A Markdown fence longer than any run of backticks in the text. */
export function fence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  return "`".repeat(longest + 1);
}

/** One change as a Markdown `diff` block with its label. */
export function changeMarkdown(c: Change, pad: string): string {
  const body = bodyLines(c).map(escapeControls).join("\n");
  const f = fence(body);
  return `${pad}*${escapeControls(changeLabel(c))}*\n\n${pad}${f}diff\n${
    body.split("\n").map((l) => pad + l).join("\n")
  }\n${pad}${f}\n`;
}

/** One change as styled HTML lines (classes add, del, hunk); `h` escapes for HTML. */
export function changeHtml(c: Change, h: (s: string) => string): string {
  const lines = bodyLines(c).map((l) => {
    const cls = l.startsWith("@@")
      ? "hunk"
      : l.startsWith("+")
      ? "add"
      : l.startsWith("-")
      ? "del"
      : "ctx";
    return `<span class="${cls}">${h(l)}</span>`;
  });
  const failed = c.status === "failed" ? " failed" : "";
  return `<div class="change${failed}"><div class="label">${
    h(changeLabel(c))
  }</div><pre class="diff">${lines.join("\n")}</pre></div>\n`;
}

/** The styles the HTML export adds for diffs. */
export const CHANGES_CSS = `
.change { margin: .35rem 0 .35rem 1rem; font-size: .9rem; }
.change .label { color: var(--muted); font-size: .85rem; }
.change pre.diff { background: var(--card); border: 1px solid var(--border); border-radius: 6px;
  padding: .5rem .75rem; overflow-x: auto; margin: .2rem 0; white-space: pre;
  font-family: ui-monospace, Menlo, monospace; }
.change .add { color: #1a7f37; } .change .del { color: #cf222e; } .change .hunk { color: #0969da; }
@media (prefers-color-scheme: dark) {
  .change .add { color: #7ee787; } .change .del { color: #ffa198; } .change .hunk { color: #79c0ff; }
}
.change.failed pre.diff { opacity: .6; text-decoration: line-through; }
`;
