/** Whether two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Joining byte arrays, for streams read or built in parts. */
export function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/**
 * Gives a buffer's memory back now, when `view` is the whole of it and nothing else uses it.
 * A dead buffer otherwise waits for the garbage collector, which V8 runs by its own heap's
 * size, not by the bytes held outside it: a backfill's dead windows and streams (up to 8 MiB
 * each) swung its peak RSS by 20-30 MiB from one run to the next. A view onto part of a
 * buffer (a pool's slab, a subarray) is left alone, as is one already handed over.
 */
export function release(view: Uint8Array): void {
  const b = view.buffer;
  if (!(b instanceof ArrayBuffer) || b.detached) return;
  if (view.byteOffset !== 0 || view.byteLength !== b.byteLength) return;
  b.transfer(0);
}
