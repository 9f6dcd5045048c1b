/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
/**
 * The derive worker's entry: windows in, derived rows and framed blocks out, in order. The
 * buffers it made are transferred back, not copied.
 */
import { initFramer } from "../store/codec.ts";
import { release } from "../bytes.ts";
import { type DeriveJob, Deriving } from "./derive_job.ts";

const deriving = new Deriving();
const ready = initFramer();

self.onmessage = async (
  e: MessageEvent<{ id: number; job: DeriveJob } | { flag: Int32Array }>,
) => {
  if ("flag" in e.data) {
    // the pass's first message: its flag, set once ready, which the pass reads without
    // waiting; it derives inline until then, so the worker's start costs it nothing
    await ready;
    Atomics.store(e.data.flag, 0, 1);
    return;
  }
  const { id, job } = e.data;
  try {
    await ready;
    const r = deriving.run(job, true);
    const buffers = new Set<ArrayBuffer>();
    buffers.add(r.out.stream.buffer as ArrayBuffer);
    // compressed frames are fresh buffers; the 32-byte hashes are copied, never transferred
    for (const f of r.framed?.frames ?? []) buffers.add(f.bytes.buffer as ArrayBuffer);
    self.postMessage({ id, derived: r }, [...buffers]);
    // the window's bytes were parsed and copied into the stream (a raw window's stream is the
    // window itself, handed back above): nothing here reads them again
    release(job.input.chunk);
  } catch (err) {
    self.postMessage({ id, error: (err as Error).message ?? String(err) });
  }
};
