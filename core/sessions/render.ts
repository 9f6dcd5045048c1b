/**
 * Turning a conversation into text: for the terminal (plain, or with ANSI bold/dim), as
 * Markdown, and as one self-contained HTML page. Transcript text is always escaped for the
 * medium: control characters in the terminal and Markdown, markup in HTML.
 */
import { escapeControls } from "../output.ts";
import { durationText } from "../time.ts";
import type { Message } from "./messages.ts";
import type { SessionView } from "./list.ts";
import {
  changeHtml,
  changeLabel,
  changeMarkdown,
  CHANGES_CSS,
  changeText,
  fence,
} from "./changes_render.ts";

export interface Header {
  view: SessionView;
}

const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

function when(ts: string | null): string {
  return ts ? `${ts.slice(0, 10)} ${ts.slice(11, 19)}` : "-";
}

/** The header facts, label and value, shared by every format. */
export function headerFacts(v: SessionView): [string, string][] {
  const facts: [string, string][] = [
    ["project", v.project ?? "-"],
    ["branch", v.branch ?? "-"],
    ["started", when(v.first_turn_at)],
    ["ended", when(v.last_turn_at)],
    ["duration", durationText(v.duration_seconds)],
    ["turns", String(v.turns)],
    ["session", v.session_key],
  ];
  if (v.tags.length) facts.push(["tags", v.tags.join(" ")]);
  if (v.sidecar) facts.push(["kind", "subagent"]);
  if (v.evicted) facts.push(["text", "evicted by retention"]);
  // Claude Code deleted the transcript, so `claude --resume` would fail: offer the restore
  if (v.transcript_present === false) {
    facts.push([
      "restore",
      v.evicted
        ? "the transcript was deleted by Claude Code and its text evicted: nothing to restore"
        : v.sidecar
        ? "the transcript was deleted by Claude Code; restoring its parent session brings it back"
        : `the transcript was deleted by Claude Code; terminus sessions restore ${v.session_no} brings it back`,
    ]);
  }
  if (v.resume) facts.push(["resume", v.resume]);
  return facts;
}

export function titleLine(v: SessionView): string {
  return `#${v.session_no}  ${v.title ?? "(untitled)"}`;
}

function indent(text: string, pad: string): string {
  return text.split("\n").map((l) => pad + l).join("\n");
}

function roleOf(m: Message): "you" | "claude" | null {
  if (m.type === "prompt" || m.type === "command") return "you";
  if (m.type === "text" || m.type === "tool_call") return "claude";
  return null;
}

/**
 * The conversation for a terminal; `styled` adds ANSI bold/dim. Text is escaped here. A
 * call's diff is folded to `diffMax` lines (null: whole), as its result is.
 */
export function renderText(
  v: SessionView,
  msgs: Message[],
  styled: boolean,
  diffMax: number | null = null,
): string {
  const e = escapeControls;
  const b = (s: string) => (styled ? BOLD + s + RESET : s);
  const d = (s: string) => (styled ? DIM + s + RESET : s);
  const out: string[] = [b(e(titleLine(v))) + "\n"];
  for (const [k, val] of headerFacts(v)) out.push(`  ${d(k.padEnd(9))}${e(val)}\n`);
  let role: string | null = null;
  for (const m of msgs) {
    const r = roleOf(m);
    if (r && r !== role) out.push(`\n${b(r)} ${d("· " + when(m.ts))}\n`);
    role = r;
    switch (m.type) {
      case "prompt":
      case "text":
        out.push(indent(e(m.text), "  ") + "\n");
        break;
      case "command":
        out.push(`  ${b(e(m.text))}\n`);
        break;
      case "tool_call": {
        out.push(`  ${d("▸")} ${b(e(m.tool))}  ${e(m.argument)}\n`);
        if (m.result && m.result.lines > 0) {
          const mark = m.result.is_error ? "✗ " : "";
          out.push(d(indent(mark + e(m.result.text), "    │ ")) + "\n");
          if (m.result.folded) {
            const more = m.result.lines - m.result.text.split("\n").length;
            out.push(`    ${d(`… ${more} more line(s); --full shows them`)}\n`);
          }
        }
        for (const c of m.changes ?? []) {
          out.push(`    ${d(e(changeLabel(c)))}\n`, changeText(c, "    ", styled, diffMax, d));
        }
        break;
      }
      case "compaction": {
        const why = [m.trigger, m.pre_tokens !== null ? `${m.pre_tokens} tokens before` : null]
          .filter(Boolean).join(", ");
        out.push(`\n${d(`── compacted${why ? ` (${e(why)})` : ""} · ${when(m.ts)} ──`)}\n`);
        role = null;
        break;
      }
      case "subagent":
        out.push(`  ${d("↳ subagent")} ${b(`#${m.session_no}`)}  ${e(m.title ?? "(untitled)")}\n`);
        break;
    }
  }
  return out.join("");
}

/** Markdown's inline specials, so archived text cannot turn into links, headings or markup. */
function mdInline(s: string): string {
  return escapeControls(s).replace(/([\\`*_{}\[\]()#+!|<>~])/g, "\\$1");
}

/** The conversation as Markdown with a header. */
export function renderMarkdown(v: SessionView, msgs: Message[]): string {
  const out: string[] = [`# ${mdInline(titleLine(v))}\n\n`];
  for (const [k, val] of headerFacts(v)) out.push(`- **${k}**: ${mdInline(val)}\n`);
  let role: string | null = null;
  for (const m of msgs) {
    const r = roleOf(m);
    if (r && r !== role) out.push(`\n## ${r} · ${when(m.ts)}\n\n`);
    role = r;
    switch (m.type) {
      case "prompt":
      case "text": {
        const t = escapeControls(m.text);
        const f = fence(t);
        // a prompt is quoted as typed; the assistant's Markdown is kept as Markdown
        out.push(m.type === "prompt" ? `${f}text\n${t}\n${f}\n\n` : `${t}\n\n`);
        break;
      }
      case "command":
        out.push(`**${mdInline(m.text)}**\n\n`);
        break;
      case "tool_call": {
        out.push(`- **${mdInline(m.tool)}** ${mdInline(m.argument)}\n`);
        if (m.result && m.result.lines > 0) {
          const t = escapeControls(m.result.text);
          const f = fence(t);
          out.push(`\n${indent(`${f}\n${t}\n${f}`, "  ")}\n`);
          if (m.result.folded) {
            out.push(`  *… ${m.result.lines - m.result.text.split("\n").length} more line(s)*\n`);
          }
          out.push("\n");
        }
        for (const c of m.changes ?? []) out.push(`\n${changeMarkdown(c, "  ")}\n`);
        break;
      }
      case "compaction":
        out.push(
          `\n---\n\n*compacted${m.trigger ? ` (${mdInline(m.trigger)})` : ""} · ${when(m.ts)}*\n\n`,
        );
        role = null;
        break;
      case "subagent":
        out.push(`- ↳ subagent **#${m.session_no}** ${mdInline(m.title ?? "(untitled)")}\n`);
        break;
    }
  }
  return out.join("");
}

/** Text made safe for HTML element content and attribute values. */
export function htmlEscape(s: string): string {
  return escapeControls(s).replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

const CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1d1d1f; --muted: #6e6e73;
  --you: #0b57d0; --card: #f5f5f7; --border: #d2d2d7; --err: #b3261e; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #151516; --fg: #e8e8ed; --muted: #98989d; --you: #8ab4f8; --card: #232325;
    --border: #3a3a3c; --err: #f2b8b5; }
}
body { background: var(--bg); color: var(--fg); margin: 0 auto; max-width: 56rem;
  padding: 1.5rem; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem;
  color: var(--muted); font-size: .9rem; margin: 0 0 1.5rem; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.msg { margin: 1rem 0; } .role { font-weight: 700; } .when { color: var(--muted); font-size: .85rem; }
.you .role { color: var(--you); }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: .25rem 0 0; }
.md { overflow-wrap: anywhere; margin: .25rem 0 0; } .md > :first-child { margin-top: 0; }
.md pre, .md code { font-family: ui-monospace, Menlo, monospace; font-size: .9rem; }
.md pre { background: var(--card); border: 1px solid var(--border); border-radius: 6px;
  padding: .5rem .75rem; overflow-x: auto; }
.md table { border-collapse: collapse; } .md th, .md td { border: 1px solid var(--border);
  padding: .2rem .5rem; }
.tool { margin: .35rem 0 .35rem 1rem; font-size: .9rem; }
.tool summary, .tool .call { cursor: pointer; font-family: ui-monospace, Menlo, monospace; }
.tool pre { background: var(--card); border: 1px solid var(--border); border-radius: 6px;
  padding: .5rem .75rem; overflow-x: auto; margin: .35rem 0; white-space: pre-wrap; }
.tool.error pre { color: var(--err); }
.more { color: var(--muted); font-size: .85rem; }
.boundary { border-top: 1px dashed var(--border); color: var(--muted); text-align: center;
  margin: 1.5rem 0; padding-top: .25rem; font-size: .85rem; }
.sub { margin: .35rem 0 .35rem 1rem; color: var(--muted); }
`;

/**
 * One self-contained page: inline CSS, no script, results folded in <details>. Claude's
 * replies go through `markdown` (markdown.ts renders them; absent, they are shown as text).
 */
export function renderHtml(
  v: SessionView,
  msgs: Message[],
  markdown: ((text: string) => string) | null = null,
): string {
  const h = htmlEscape;
  const out: string[] = [
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n`,
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">\n`,
    `<title>${h(titleLine(v))}</title>\n<style>${CSS}${CHANGES_CSS}</style>\n</head>\n<body>\n`,
    `<h1>${h(titleLine(v))}</h1>\n<dl class="facts">\n`,
  ];
  for (const [k, val] of headerFacts(v)) out.push(`<dt>${h(k)}</dt><dd>${h(val)}</dd>\n`);
  out.push("</dl>\n<main>\n");
  let role: string | null = null;
  let open = false;
  const close = () => {
    if (open) out.push("</section>\n");
    open = false;
  };
  for (const m of msgs) {
    const r = roleOf(m);
    if (r && r !== role) {
      close();
      out.push(
        `<section class="msg ${r}"><div><span class="role">${r}</span> <span class="when">${
          h(when(m.ts))
        }</span></div>\n`,
      );
      open = true;
    }
    role = r;
    switch (m.type) {
      case "prompt":
        out.push(`<div class="text">${h(m.text)}</div>\n`);
        break;
      case "text":
        out.push(
          markdown
            ? `<div class="md">${markdown(m.text)}</div>\n`
            : `<div class="text">${h(m.text)}</div>\n`,
        );
        break;
      case "command":
        out.push(`<div class="text"><strong>${h(m.text)}</strong></div>\n`);
        break;
      case "tool_call": {
        const call = `<strong>${h(m.tool)}</strong> ${h(m.argument)}`;
        const err = m.result?.is_error ? " error" : "";
        if (m.result && m.result.lines > 0) {
          const more = m.result.folded
            ? `<div class="more">… ${
              m.result.lines - m.result.text.split("\n").length
            } more line(s)</div>`
            : "";
          out.push(
            `<details class="tool${err}"><summary>${call}</summary><pre>${
              h(m.result.text)
            }</pre>${more}</details>\n`,
          );
        } else {
          out.push(`<div class="tool"><span class="call">${call}</span></div>\n`);
        }
        for (const c of m.changes ?? []) out.push(changeHtml(c, h));
        break;
      }
      case "compaction":
        close();
        role = null;
        out.push(
          `<div class="boundary">compacted${m.trigger ? ` (${h(m.trigger)})` : ""} · ${
            h(when(m.ts))
          }</div>\n`,
        );
        break;
      case "subagent":
        out.push(
          `<div class="sub">↳ subagent <strong>#${m.session_no}</strong> ${
            h(m.title ?? "(untitled)")
          }</div>\n`,
        );
        break;
    }
  }
  close();
  out.push("</main>\n</body>\n</html>\n");
  return out.join("");
}
