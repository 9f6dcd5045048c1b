/** Compression ratio of the archive blocks: uncompressed bytes over stored zstd frames. */
import { metric, type Section } from "../lib/context.ts";
import { withStore } from "../lib/store.ts";
import { round } from "../lib/stats.ts";
import { fullStore } from "./backfill.ts";
import { blockTotals } from "../../core/store/inspect.ts";

export const section: Section = {
  name: "compression",
  title: "Block compression",
  async run(ctx) {
    const { scn } = await fullStore(ctx);
    const r = withStore(scn.store, blockTotals);
    const ratio = r.raw / r.stored;
    const notes = [
      `${r.blocks} blocks (${r.fullBlocks} full 64 KiB), ${r.raw} raw bytes in ${r.stored} stored bytes.`,
    ];
    if (r.raw !== ctx.corpus.bytes) {
      notes.push(`The blocks hold ${r.raw} bytes; the corpus is ${ctx.corpus.bytes}.`);
    }
    return {
      metrics: [
        metric(
          "compression_ratio",
          "sum(raw_len) / sum(length(bytes))",
          round(ratio, 2),
          "x",
          { op: ">=", value: 4.2 },
        ),
      ],
      notes,
      data: r,
    };
  },
};
