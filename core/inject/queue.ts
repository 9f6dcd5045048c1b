/**
 * The decision log's queue: the hook writes one JSON file per prompt into the data
 * directory; the next archive pass drains the queue into the store.
 */
import { join } from "../posix.ts";
import { HOOK_DEADLINE_MS } from "../constants.ts";
import { QUEUE_DIR } from "../paths.ts";
import { writeAtomic } from "./state.ts";
import type { Thresholds } from "./thresholds.ts";
import type { CandidateLog } from "./prompt.ts";

export interface DecisionDoc {
  session_id: string | null;
  at: string;
  cwd: string | null;
  project: string | null;
  prompt: string;
  spellings: string[];
  candidates: CandidateLog[];
  injected: { id: number; chars: number }[];
  suppressed: { id: number; why: string }[];
  compacted: boolean;
  dropped: number;
  thresholds: Thresholds;
  /** The highest turn id in the index when the decision was taken (replay's horizon). */
  watermark: number;
  /** Why nothing could be decided: no spellings, no store, deadline, an error. */
  note: string | null;
  /** The spellings looked up: the rarest `max_candidates` of those the scope holds. */
  looked_up?: string[];
  /** Spellings the scope holds nothing they can mean: not looked up further. */
  unheld?: string[];
  /** Names that add to a match but bring no turn alone (too common here, everyday, folders). */
  common?: string[];
  /** Milliseconds the decision took, up to its one deadline check (absent before this field). */
  elapsed_ms?: number;
  /** Found something but ran past the deadline, so nothing was handed over. */
  late?: boolean;
  /**
   * Milliseconds from the hook process's start to the start of the deadline clock: runtime
   * start, module load, the pass's spawn and stdin, which the 50 ms does not count.
   */
  before_ms?: number;
}

export function queueDecision(dataDir: string, d: DecisionDoc): void {
  const name = `${Date.now().toString().padStart(15, "0")}-${crypto.randomUUID()}.json`;
  writeAtomic(join(dataDir, QUEUE_DIR), name, JSON.stringify(d));
}

/** The note a late decision is logged with. */
export function lateNote(elapsedMs: number): string {
  return `past the ${HOOK_DEADLINE_MS} ms deadline (${
    Math.round(elapsedMs)
  } ms): nothing handed over`;
}

/** Whether a logged decision ran past the deadline (also for docs logged before `late`). */
export function wasLate(doc: Partial<DecisionDoc>): boolean {
  if (typeof doc.late === "boolean") return doc.late;
  return typeof doc.note === "string" && doc.note.startsWith("past the ");
}
