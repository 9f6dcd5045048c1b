/**
 * Where a pass's windows are derived: inline for a small pass, or on one worker thread while
 * the main thread writes, so parsing, indexing and compression overlap SQLite's work. The
 * caller keeps at most DERIVE_QUEUE_BYTES of windows in flight, which bounds the memory.
 */
import type { Derived, DeriveJob } from "./derive_job.ts";
import { Deriving } from "./derive_job.ts";
import { DERIVE_QUEUE_BYTES, DERIVE_WORKER_MIN_BYTES } from "../constants.ts";

/** A derived window, or why it could not be derived; never a rejected promise. */
export type Outcome = { derived: Derived } | { error: Error };

export interface Deriver {
  derive(job: DeriveJob): Promise<Outcome>;
  /** How many bytes of windows are worth deriving ahead of the one being written. */
  ahead(): number;
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
  /** Deriving inline ahead would only hold the rows longer. */
  ahead(): number {
    return 0;
  }
  close(): void {}
}

interface Waiting {
  resolve: (o: Outcome) => void;
}

/**
 * On a worker thread. Should the worker itself fail (not a window: a window's error comes back
 * as that window's error), the windows it held fail and every later one is derived inline.
 */
/**
 * The worker's entry. In the source it sits beside this module. In an installed copy's bundle
 * this code lives in a shared chunk at the bundle's root, and the bundler put the worker's
 * entry at its source path below the program's entry, as JavaScript.
 */
function workerModule(): string {
  if (import.meta.url.endsWith("/deriver.ts")) {
    return new URL("./derive_worker.ts", import.meta.url).href;
  }
  return new URL("./core/ingest/derive_worker.js", Deno.mainModule).href;
}

export class WorkerDeriver implements Deriver {
  #worker: Worker | null;
  /** The worker has loaded its modules and codec; until then windows are derived inline. */
  #ready = false;
  /**
   * Set to 1 by the worker once it is ready, read here without the event loop: the pass's
   * loop awaits only settled promises while it derives inline, so a message saying so would
   * wait unread (a 1.1 GB backfill derived its first 283 MB, 6.7 s, inline that way).
   */
  #flag = new Int32Array(new SharedArrayBuffer(4));
  #inline = new InlineDeriver();
  #waiting = new Map<number, Waiting>();
  #next = 0;
  /** Why the worker stopped, if it did: the pass says so, since it then derives inline. */
  stopped: string | null = null;

  constructor() {
    const w = new Worker(workerModule(), { type: "module" });
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
      this.stopped ??= e.message || "it failed";
      this.#fallBack();
    };
    w.onmessageerror = () => {
      this.stopped ??= "a message could not be read";
      this.#fallBack();
    };
    w.postMessage({ flag: this.#flag });
    this.#worker = w;
  }

  #isReady(): boolean {
    if (!this.#ready && Atomics.load(this.#flag, 0) === 1) this.#ready = true;
    return this.#ready;
  }

  #fallBack(): void {
    this.#worker?.terminate();
    this.#worker = null;
    // the windows it held were handed over, not copied: their files fail this pass, and the
    // next pass archives them from their watermarks
    for (const w of this.#waiting.values()) {
      w.resolve({
        error: new Error("the derive worker stopped; the next pass archives this file"),
      });
    }
    this.#waiting.clear();
  }

  ahead(): number {
    return this.#worker && this.#isReady() ? DERIVE_QUEUE_BYTES : 0;
  }

  derive(job: DeriveJob): Promise<Outcome> {
    const w = this.#worker;
    if (!w || !this.#isReady()) return this.#inline.derive(job);
    const id = this.#next++;
    return new Promise((resolve) => {
      this.#waiting.set(id, { resolve });
      // the window's bytes are handed over, not copied: the pass keeps only what it needs
      w.postMessage({ id, job }, [job.input.chunk.buffer as ArrayBuffer]);
    });
  }

  close(): void {
    this.#worker?.terminate();
    this.#worker = null;
  }
}

/**
 * A pass's deriver: inline, until the windows handed to it reach DERIVE_WORKER_MIN_BYTES, then
 * on a worker. A hook's small pass (or a no-op one) never starts the worker, and nothing has to
 * be measured up front to decide.
 */
export class PassDeriver implements Deriver {
  #inline = new InlineDeriver();
  #worker: WorkerDeriver | null = null;
  #seen = 0;

  derive(job: DeriveJob): Promise<Outcome> {
    this.#seen += job.input.end;
    if (!this.#worker && this.#seen >= DERIVE_WORKER_MIN_BYTES) this.#worker = new WorkerDeriver();
    return (this.#worker ?? this.#inline).derive(job);
  }

  ahead(): number {
    return this.#worker?.ahead() ?? 0;
  }

  /** Why the pass's worker stopped, when it did. */
  get stopped(): string | null {
    return this.#worker?.stopped ?? null;
  }

  close(): void {
    this.#worker?.close();
  }
}
