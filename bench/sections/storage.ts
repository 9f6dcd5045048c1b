/**
 * Store size and where it goes: the archive blocks, the FTS index (turns_fts and its shadow
 * tables), and everything else (turns, entities, paths, their indexes, session rows), from
 * SQLite's dbstat, each as a share of the transcript bytes.
 */
import { metric, type Section } from "../lib/context.ts";
import { fileSize, withStore } from "../lib/store.ts";
import { MiB, round } from "../lib/stats.ts";
import { fullStore } from "./backfill.ts";
import { objectSizes, pageCounts } from "../../core/store/inspect.ts";

type Group = "blocks" | "fts" | "rest";

function groupOf(name: string): Group {
  if (name === "blocks" || name === "sqlite_autoindex_blocks_1") return "blocks";
  if (name === "turns_fts" || name.startsWith("turns_fts_")) return "fts";
  return "rest";
}

export const section: Section = {
  name: "storage",
  title: "Store size",
  async run(ctx) {
    const { scn } = await fullStore(ctx);
    const { objects, pageSize, pages, freePages } = withStore(
      scn.store,
      (db) => ({ objects: objectSizes(db), ...pageCounts(db) }),
    );
    const transcript = ctx.corpus.bytes;
    const sums: Record<Group, number> = { blocks: 0, fts: 0, rest: 0 };
    for (const o of objects) sums[groupOf(o.name)] += o.bytes;
    const file = fileSize(scn.store);
    const wal = fileSize(scn.store + "-wal");
    const pct = (n: number) => round((100 * n) / transcript, 1);
    const mib = (n: number) => round(n / MiB, 1);
    const line = (g: Group, label: string) =>
      metric(
        `store_${g}_pct`,
        label,
        pct(sums[g]),
        "% of transcript bytes",
        undefined,
        `${mib(sums[g])} MiB`,
      );
    return {
      metrics: [
        metric(
          "store_file_pct",
          "store file (terminus.db)",
          pct(file),
          "% of transcript bytes",
          undefined,
          `${mib(file)} MiB for ${mib(transcript)} MiB of transcripts${
            wal ? `; -wal ${mib(wal)} MiB` : ""
          }; ${freePages} free page(s)`,
        ),
        line("blocks", "blocks (table + primary key)"),
        line("fts", "FTS index (turns_fts*)"),
        line("rest", "everything else (turns, entities, paths, indexes, meta)"),
      ],
      notes: [
        "Largest objects: " +
        objects.slice(0, 8).map((o) => `${o.name} ${mib(o.bytes)} MiB`).join(", ") + ".",
      ],
      data: {
        transcriptBytes: transcript,
        fileBytes: file,
        walBytes: wal,
        pageSize,
        pages,
        objects,
      },
    };
  },
};
