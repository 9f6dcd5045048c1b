/** `terminus sessions export`: one session as Markdown, HTML, or its archived JSONL. */
import { dirname } from "../posix.ts";
import { FILE_MODE } from "../constants.ts";
import { NotFoundError, TerminusError, UsageError } from "../errors.ts";
import { attachChanges, conversation } from "./messages.ts";
import { sessionChanges } from "./changes.ts";
import type { LoadedSession } from "./load.ts";
import { renderHtml, renderMarkdown } from "./render.ts";

export const EXPORT_FORMATS = ["md", "html", "jsonl"] as const;
export type ExportFormat = typeof EXPORT_FORMATS[number];

export function exportFormat(v: string | undefined): ExportFormat {
  if (v === undefined) {
    throw new UsageError(`sessions export needs --format ${EXPORT_FORMATS.join("|")}`);
  }
  if (!(EXPORT_FORMATS as readonly string[]).includes(v)) {
    throw new UsageError(
      `--format takes ${EXPORT_FORMATS.slice(0, -1).join(", ")} or ${
        EXPORT_FORMATS.at(-1)
      }; '${v}' is none of them`,
    );
  }
  return v as ExportFormat;
}

const encoder = new TextEncoder();

/** The export's bytes. Markdown and HTML carry every tool result whole. */
export function exportBytes(
  s: LoadedSession,
  format: Exclude<ExportFormat, "jsonl">,
  markdown: ((text: string) => string) | null = null,
): Uint8Array {
  if (s.view.evicted) {
    throw new NotFoundError(
      `session #${s.view.session_no}'s text was evicted by retention; there is nothing to export`,
    );
  }
  const msgs = attachChanges(
    conversation(s.records, null, s.subagents),
    sessionChanges(s.records, s.turnIds),
  );
  return encoder.encode(
    format === "md" ? renderMarkdown(s.view, msgs) : renderHtml(s.view, msgs, markdown),
  );
}

/** Writes beside the target and renames over it, so a failed export leaves no half file. */
export function writeExport(path: string, bytes: Uint8Array): void {
  let isDir = false;
  try {
    isDir = Deno.statSync(path).isDirectory;
  } catch { /* a new file */ }
  if (isDir) throw new TerminusError(`${path} is a directory; give a file path to export to`);
  const tmp = `${dirname(path)}/.${path.split("/").pop()}.partial-${Deno.pid}`;
  try {
    Deno.writeFileSync(tmp, bytes, { mode: FILE_MODE });
    Deno.renameSync(tmp, path);
  } catch (e) {
    try {
      Deno.removeSync(tmp);
    } catch { /* never written */ }
    throw new TerminusError(`cannot write ${path}: ${(e as Error).message}`);
  }
}
