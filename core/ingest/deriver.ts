/**
 * Where a pass's windows are derived: inline for a small pass, or on one worker thread while
 * the main thread writes, so parsing, indexing and compression overlap SQLite's work. The
 * caller keeps at most DERIVE_QUEUE_DEPTH windows in flight, which bounds the memory.
 */
import type { Derived, DeriveJob } from "./derive_job.ts";
import { Deriving } from "./derive_job.ts";

/** A derived window, or why it could not be derived; never a rejected promise. */
export type Outcome = { derived: Derived } | { error: Error };

export interface Deriver {
  derive(job: DeriveJob): Promise<Outcome>;
  close(): void;
}

/** On the calling thread; blocks are framed later, in the write's transaction. */
export class InlineDeriver implements Deriver {
  #deriving = new Deriving();
  derive(job: DeriveJob): Promise<Outcome> {
    try {
      return Promise.resolve({ derived: this.#deriving.run(job, false) });
    } catch (e) {
      return Promise.resolve({ error: e as Error });
    }
  }
  close(): void {}
}

interface Waiting {
  job: DeriveJob;
  resolve: (o: Outcome) => void;
}

/**
 * On a worker thread. Should the worker itself fail (not a window: a window's error comes back
 * as that window's error), the windows it held and every later one are derived inline.
 */
export class WorkerDeriver implements Deriver {
  #worker: Worker | null;
  #inline = new InlineDeriver();
  #waiting = new Map<number, Waiting>();
  #next = 0;

  constructor() {
    const w = new Worker(new URL("./derive_worker.ts", import.meta.url).href, { type: "module" });
    w.onmessage = (e: MessageEvent<{ id: number; derived?: Derived; error?: string }>) => {
      const waiting = this.#waiting.get(e.data.id);
      if (!waiting) return;
      this.#waiting.delete(e.data.id);
      waiting.resolve(
        e.data.derived ? { derived: e.data.derived } : { error: new Error(e.data.error) },
      );
    };
    w.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.#fallBack();
    };
    w.onmessageerror = () => this.#fallBack();
    this.#worker = w;
  }

  #fallBack(): void {
    this.#worker?.terminate();
    this.#worker = null;
    const held = [...this.#waiting.values()];
    this.#waiting.clear();
    // the worker's observations went with it: a continued session is left to be read back
    for (const w of held) {
      const job: DeriveJob = w.job.observe === "continue" ? { ...w.job, observe: "none" } : w.job;
      this.#inline.derive(job).then(w.resolve);
    }
  }

  derive(job: DeriveJob): Promise<Outcome> {
    const w = this.#worker;
    if (!w) return this.#inline.derive(job);
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, { job, resolve });
      w.postMessage({ id, job });
    });
  }

  close(): void {
    this.#worker?.terminate();
    this.#worker = null;
  }
}
