/**
 * Install's last step: size the transcripts already on disk against what the store holds,
 * then start archiving them in a detached process and return without waiting.
 */
import type { Config } from "../config.ts";
import { probeStore } from "../store/probe.ts";
import { allSessionStates, type SessionState } from "../store/archive.ts";
import { sizeAgainst } from "../ingest/backfill.ts";

export interface Sizing {
  transcripts: number;
  /** Bytes on disk past each file's watermark. */
  pending: number;
  /** The transcripts with bytes past their watermark. */
  pendingFiles: number;
  /** Folders that could not be listed. */
  problems: string[];
}

/** Throws with the reason when the backfill cannot be sized (a store in a newer format...). */
export function sizeBackfill(cfg: Config, roots: string[], store: string): Sizing {
  // The store is read from a copy in memory (probeStore), so sizing leaves no trace beside it.
  const probe = probeStore(store);
  let states = new Map<string, SessionState>();
  if (probe.kind === "ok") {
    try {
      states = allSessionStates(probe.db);
    } finally {
      probe.db.close();
    }
  } else if (probe.kind === "older" || probe.kind === "newer" || probe.kind === "unreadable") {
    throw new Error(probe.message);
  }
  const s = sizeAgainst(cfg, roots, states); // the same rule `terminus backfill` prints
  return {
    transcripts: s.transcripts,
    pending: s.bytes,
    pendingFiles: s.pendingFiles,
    problems: s.problems,
  };
}
