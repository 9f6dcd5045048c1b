/** `verify`'s use case: every archived block against its hash, every session its checksum. */
import type { Context } from "./context.ts";
import { openStore } from "./open.ts";
import { type VerifyReport, verifyStore } from "./store/inspect.ts";
import { initCodec } from "./store/codec.ts";

export type Verified =
  | { report: null; reason: string }
  | { report: VerifyReport; warnings: string[] };

export async function verifyArchive(ctx: Context): Promise<Verified> {
  const opened = await openStore(ctx);
  if (!opened.db) return { report: null, reason: opened.reason };
  try {
    await initCodec();
    return { report: verifyStore(opened.db), warnings: opened.warnings };
  } finally {
    opened.db.close();
  }
}
