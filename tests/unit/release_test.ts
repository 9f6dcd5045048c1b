/**
 * `release` (core/bytes.ts): the pass gives a window's bytes, its stream and its frames back as
 * soon as they are written, instead of leaving them for the garbage collector. Only a view that
 * is the whole of its buffer is freed; a part of a buffer, a buffer already handed over, or a
 * shared one is left as it is, so nothing another view still reads can be taken from under it.
 */
import assert from "node:assert/strict";
import { release } from "../../core/bytes.ts";

Deno.test("release: a view that is its whole buffer is freed at once", () => {
  const v = new Uint8Array(1 << 20).fill(7);
  release(v);
  assert.equal(v.buffer.detached, true);
  assert.equal(v.length, 0);
});

Deno.test("release: a part of a buffer, and the buffer behind it, are left alone", () => {
  const whole = new Uint8Array(4096).fill(3);
  const head = whole.subarray(0, 1024);
  const tail = whole.subarray(1024);
  release(head);
  release(tail);
  assert.equal(whole.buffer.detached, false);
  assert.equal(whole.length, 4096);
  assert.equal(head[1023], 3);
  assert.equal(tail[0], 3);
});

Deno.test("release: a buffer already handed over, or shared, is not touched", () => {
  const v = new Uint8Array(64).fill(1);
  structuredClone(v.buffer, { transfer: [v.buffer] });
  assert.equal(v.buffer.detached, true);
  release(v); // no throw: transfer() of a detached buffer would
  const s = new Uint8Array(new SharedArrayBuffer(64)).fill(2);
  release(s);
  assert.equal(s.length, 64);
  assert.equal(s[63], 2);
});

Deno.test("release: a Buffer from node's pool is a part of its slab, so it is kept", async () => {
  const { Buffer } = await import("node:buffer");
  const a = Buffer.from("pooled bytes");
  const b = Buffer.from("their neighbour");
  release(a);
  assert.equal(a.toString(), "pooled bytes");
  assert.equal(b.toString(), "their neighbour");
});
