/**
 * terminus usage: where the bytes went, in two tables that never mix. The archive (by project
 * and by month) adds up to archive_bytes; the file by table adds up to file_bytes.
 */
import type { Command, CommandHelp } from "./types.ts";
import { JSON_OPTION } from "./help_lines.ts";
import { humanBytes, outcome } from "../core/output.ts";
import { resolveAll } from "../core/resolve.ts";
import { openRead } from "../core/store/db.ts";
import { type Bucket, footprint, readUsage } from "../core/store/maintenance.ts";
import { handleCounts } from "../core/store/sessions_sql.ts";
import { visibleWhere } from "../core/store/visibility.ts";

const empty = () => ({
  sessions: 0,
  archive_bytes: 0,
  by_project: [],
  by_month: [],
  file_bytes: 0,
  footprint: [],
  handles: { named: 0, tagged: 0, tags: 0 },
});

function table(title: string, rows: [string, string, number][], total: number): string {
  const w = Math.max(5, ...rows.map((r) => r[0].length)) + 2;
  const s = Math.max(0, ...rows.map((r) => r[1].length)) + 2;
  const lines = rows.map(([k, n, b]) => `  ${k.padEnd(w)}${n.padEnd(s)}${humanBytes(b)}`);
  lines.push(`  ${"total".padEnd(w)}${"".padEnd(s)}${humanBytes(total)}`);
  return `${title}\n${lines.join("\n")}\n`;
}

const bucketRows = (list: Bucket<string | null>[], none: string): [string, string, number][] =>
  list.map((b) => [b.key ?? none, `${b.sessions} session(s)`, b.bytes]);

/** The months oldest first, the one without a first turn last; --json keeps the spec's order. */
function inDateOrder<T extends { key: string | null }>(rows: T[]): T[] {
  return [...rows].sort((a, b) =>
    a.key === b.key ? 0 : a.key === null ? 1 : b.key === null ? -1 : a.key < b.key ? -1 : 1
  );
}

const help: CommandHelp = {
  options: [JSON_OPTION],
  examples: ["terminus usage"],
};

export const command: Command = {
  name: "usage",
  help,
  usage: "terminus usage [--json]",
  options: {},
  positionals: false,
  json: true,
  empty,
  run(ctx) {
    const r = resolveAll(ctx);
    const opened = openRead(r.store);
    if (!opened) {
      return Promise.resolve(outcome("usage", empty(), {
        reason: `no store yet at ${r.store}; nothing is stored`,
      }));
    }
    const { db, warnings } = opened;
    try {
      const vis = { project: null, exclude: r.cfg.exclude };
      const { archive: a, shape } = readUsage(db, vis);
      const f = footprint(shape);
      const w = visibleWhere(vis);
      // names and tags set with `terminus sessions`, over the sessions a read may see
      const handles = handleCounts(db, w.sql, w.params);
      const data = {
        sessions: a.sessions,
        archive_bytes: a.archiveBytes,
        by_project: a.byProject.map((b) => ({
          project: b.key,
          sessions: b.sessions,
          bytes: b.bytes,
        })),
        by_month: a.byMonth.map((b) => ({ month: b.key, sessions: b.sessions, bytes: b.bytes })),
        file_bytes: f.fileBytes,
        footprint: f.rows,
        handles,
      };
      const human = [
        table("archive by project", bucketRows(a.byProject, "(no project)"), a.archiveBytes),
        "\n",
        table(
          "archive by month",
          bucketRows(inDateOrder(a.byMonth), "(no first turn)"),
          a.archiveBytes,
        ),
        "\n",
        table(
          "database file by table",
          f.rows.map((x) => [x.name, "", x.bytes]),
          f.fileBytes,
        ),
        "\n",
        `names and tags\n  ${handles.named} named session(s), ${handles.tagged} tagged session(s), ${handles.tags} tag(s)\n`,
      ];
      return Promise.resolve(outcome("usage", data, {
        human,
        warnings,
        counts: [
          `${a.sessions} session(s); archive ${humanBytes(a.archiveBytes)}; file ${
            humanBytes(f.fileBytes)
          }`,
        ],
      }));
    } finally {
      db.close();
    }
  },
};
