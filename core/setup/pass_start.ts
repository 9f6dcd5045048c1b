/**
 * What a pass does before it loads its work, whichever entry runs it (mod.ts, or the pass's
 * own file ingest.ts): the burst gate a prompt's pass takes itself, and the wait that keeps a
 * hook's pass off the hook's clock.
 */
import { HOOK_PASS_VAR, passWaitLeft, takeEnv } from "../context.ts";
import { PASS_GATE_VAR } from "./locations.ts";
import { HOOK_PASS_WAIT_MS } from "../constants.ts";
import { claimPassStart } from "../ingest/gate.ts";
import { notePassWanted } from "../ingest/stall.ts";
import { dataDir, processEnv } from "../paths.ts";

/**
 * The pass a hook started waits out that hook's deadline before it loads anything, so its
 * module load and its walk run after the lookup rather than beside it (HOOK_PASS_WAIT_MS).
 * The mark is when the hook started it: where the start already slept (bash's route, before
 * even the runtime started) nothing is left to wait here. The mark is taken out of the
 * environment, so nothing the pass starts inherits it.
 */
export async function waitOutHook(): Promise<void> {
  const mark = takeEnv(HOOK_PASS_VAR);
  if (mark === undefined) return;
  const left = passWaitLeft(mark, Date.now(), HOOK_PASS_WAIT_MS);
  if (left > 0) await new Promise((r) => setTimeout(r, left));
}

/**
 * The pass the launcher starts for a prompt's or a compaction's hook takes the burst gate the
 * hook would have taken (one pass for a burst of prompts) before anything else: false when a
 * pass was started too recently, and this one has nothing to do.
 */
export function throughGate(): boolean {
  if (takeEnv(PASS_GATE_VAR) !== "1") return true;
  let dir: string;
  try {
    dir = dataDir(processEnv);
  } catch {
    return true; // the pass names the problem
  }
  if (!claimPassStart(dir, false)) return false;
  notePassWanted(dir);
  return true;
}
