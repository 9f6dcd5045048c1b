/**
 * The hook's wait for its event on stdin, counted in time the process could run. The limit is
 * for a writer that never finishes; a hook the machine scheduled late must still read an event
 * already in the pipe, so a tick that fires long after it was due counts only as a tick or two.
 */
import { HOOK_STDIN_WAIT_MS } from "../constants.ts";

/** How often the wait looks at the clock. */
export const STDIN_TICK_MS = 10;
/** The most one tick counts for, however late it fired. */
const TICK_CREDIT_MS = 2 * STDIN_TICK_MS;

export class StdinWait {
  readonly tickMs = STDIN_TICK_MS;
  #waited = 0;
  #last: number;

  constructor(readonly clock: () => number, readonly limitMs = HOOK_STDIN_WAIT_MS) {
    this.#last = clock();
  }

  /** Milliseconds counted so far. */
  get waited(): number {
    return this.#waited;
  }

  /** A tick fired with nothing read since the last: true once the wait is over. */
  tick(): boolean {
    const now = this.clock();
    this.#waited += Math.min(Math.max(0, now - this.#last), TICK_CREDIT_MS);
    this.#last = now;
    return this.#waited >= this.limitMs;
  }
}

/**
 * Resolves "tick" after `ms`, by the runtime's web timer (`AbortSignal.timeout`). Not
 * `setTimeout`: in Deno 2.9 its first call in a process loads the Node compatibility timers and
 * what they import, 5-12 ms in an empty module on this host against 0.4 for this, and a hook
 * called it on every event. This timer does not hold the process open by itself; the read it
 * races does.
 */
export function tick(ms: number): Promise<"tick"> {
  const signal = AbortSignal.timeout(ms);
  return new Promise((r) => signal.addEventListener("abort", () => r("tick"), { once: true }));
}
