/**
 * Lowering this process's scheduling priority. Apart from core/spawn.ts because node:os starts
 * node's compatibility layer (about 3 ms): a hook spawns its pass on every prompt and must not
 * pay that; the pass lowers its own priority instead (`inheritedNiceness` in core/context.ts).
 */
import { setPriority } from "node:os";

/**
 * Lowers this process's scheduling priority to `niceness`. On Linux a niceness belongs to a
 * thread: the calling thread and the threads (workers) it starts afterwards get it.
 */
export function lowerOwnPriority(niceness: number): void {
  try {
    setPriority(niceness);
  } catch { /* at normal priority it still runs */ }
}
