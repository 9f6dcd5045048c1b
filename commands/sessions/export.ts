/** `terminus sessions export <session> [<path>]`: one session as Markdown, HTML or .jsonl. */
import type { Parsed } from "../types.ts";
import type { Context } from "../../core/context.ts";
import { type Outcome, outcome } from "../../core/output.ts";
import { NotFoundError, UsageError } from "../../core/errors.ts";
import type { Verb } from "./verb.ts";
import { resolve } from "../../core/posix.ts";
import { egress, isRedacting } from "../../core/egress.ts";
import { viewOf } from "../../core/sessions/list.ts";
import { resolveRef } from "../../core/sessions/ref.ts";
import { loadSession, rawStream } from "../../core/sessions/load.ts";
import { exportBytes, exportFormat, writeExport } from "../../core/sessions/export.ts";
import { openForRead, str } from "../common.ts";
import { refArg } from "./verb.ts";

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
        ? (await import("../../core/sessions/markdown.ts")).markdownHtml
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

export const exportVerb: Verb = {
  name: "export",
  summary: "one session as a Markdown, HTML or .jsonl file",
  options: ["format", "raw"],
  empty: () => ({ session: null, format: null, path: null, bytes: 0 }),
  run: exportOne,
};
