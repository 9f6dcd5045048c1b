/** terminus show <id>...: the archived record behind each turn id, byte for byte. */
import { basename } from "../core/posix.ts";
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION, PROJECT, RAW } from "./help_lines.ts";
import { type Chunk, outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";
import { egress } from "../core/egress.ts";
import { CONTEXT_MAX } from "../core/constants.ts";
import {
  type Absent,
  contextWindow,
  projectOfTurn,
  readRecord,
  type RecordDoc,
  visibleTurn,
} from "../core/recall/records.ts";
import { openForRead, PROJECT_OPTION, scopeOf, wholeFlag } from "./common.ts";
import { shellWord } from "../core/setup/locations.ts";

const help: CommandHelp = {
  options: [
    PROJECT,
    ["--before <n>", "also the turns before each record, same session (at most 25)"],
    ["--after <n>", "also the turns after each record, same session (at most 25)"],
    RAW,
    JSON_OPTION,
  ],
  examples: ["terminus show 50331652", "terminus show 50331652 --after 3"],
};

export const command: Command = {
  name: "show",
  help,
  usage: "terminus show <id>... [--project <path>] [--before <n>] [--after <n>] [--raw] [--json]",
  options: {
    ...PROJECT_OPTION,
    before: { type: "string" },
    after: { type: "string" },
    raw: { type: "boolean" },
  },
  positionals: true,
  json: true,
  empty: () => ({ records: [], absent: [] }),
  async run(ctx, a) {
    if (a.positionals.length === 0) throw new UsageError("show needs at least one turn id");
    const ids: number[] = [];
    for (const p of a.positionals) {
      if (!/^\d+$/.test(p)) throw new UsageError(`show takes turn ids; '${p}' is not a number`);
      const id = Number(p);
      if (!Number.isSafeInteger(id)) {
        throw new UsageError(
          `show: '${p}' is larger than any turn id can be (${Number.MAX_SAFE_INTEGER})`,
        );
      }
      ids.push(id);
    }
    const beforeArg = wholeFlag(a.values, "before", 0);
    const afterArg = wholeFlag(a.values, "after", 0);
    const wantContext = beforeArg !== null || afterArg !== null;
    const before = Math.min(beforeArg ?? 0, CONTEXT_MAX);
    const after = Math.min(afterArg ?? 0, CONTEXT_MAX);
    const o = await openForRead(ctx);
    const allAbsent = (reason: string) => ids.map((id) => ({ turn_id: id, reason }));
    if (!o.db) {
      return outcome("show", { records: [], absent: allAbsent(o.reason) }, { reason: o.reason });
    }
    try {
      const scope = scopeOf(ctx, o.db, o.r, a.values);
      // An id outside the scope is named with the project it is in and the line that opens it.
      const hint = (id: number) => {
        const p = projectOfTurn(o.db!, id, o.r.cfg.exclude);
        return p ? `turn ${id} is in ${p}: terminus show ${id} --project ${shellWord(p)}` : null;
      };
      // Each absent id is said once: on stderr for a person, in `absent` for --json (whose
      // stderr stays free of what the document already carries).
      if (!scope.ok) {
        return outcome("show", { records: [], absent: allAbsent(scope.reason) }, {
          reason: a.json ? scope.reason : null,
          warnings: a.json
            ? o.warnings
            : [...o.warnings, ...ids.map((id) => hint(id) ?? `turn ${id}: ${scope.reason}`)],
        });
      }
      const redacting = o.r.cfg.privacy.redactRecall && a.values.raw !== true;
      const filter = egress(redacting);
      const records: RecordDoc[] = [];
      const absent: Absent[] = [];
      const human: Chunk[] = [];
      const warnings = [...o.warnings];
      for (const id of ids) {
        const t = visibleTurn(o.db, id, scope.vis);
        if (typeof t === "string") {
          absent.push({ turn_id: id, reason: t });
          if (!a.json) warnings.push(hint(id) ?? t);
          continue;
        }
        const f = readRecord(o.db, t, filter);
        const ctxDoc = wantContext ? contextWindow(o.db, t, before, after, filter) : null;
        records.push({ ...f.doc, context: ctxDoc });
        human.push(
          `${t.id}  ${t.ts ?? "-"}  ${basename(t.sessionKey)}  ${f.doc.project ?? "-"}${
            t.evicted ? "  (body evicted)" : ""
          }\n`,
        );
        if (f.doc.body !== null) {
          // the record itself goes out byte for byte (or filtered, under redact_recall)
          human.push(!redacting && f.bytes ? f.bytes : new TextEncoder().encode(f.doc.body), "\n");
        } else if (!t.evicted) {
          human.push(
            "(the archive would not give this record's bytes up; terminus verify checks it)\n",
          );
        }
        if (ctxDoc) {
          human.push(ctxDoc.at_session_start ? "  -- session start --\n" : "  ...\n");
          for (const c of ctxDoc.turns) {
            human.push(
              `  ${c.is_anchor ? ">" : " "} ${c.turn_id}  ${c.record_type}  ${
                c.ts ?? "-"
              }  ${c.text}\n`,
            );
          }
          human.push(ctxDoc.at_session_end ? "  -- session end --\n" : "  ...\n");
          if (ctxDoc.continues_from) {
            human.push(`  continues from session ${ctxDoc.continues_from}\n`);
          }
        }
      }
      return outcome("show", { records, absent }, {
        human,
        wrap: false, // the record byte for byte
        warnings,
        reason: a.json && records.length === 0 && absent.length ? absent[0].reason : null,
      });
    } finally {
      o.db.close();
    }
  },
};
