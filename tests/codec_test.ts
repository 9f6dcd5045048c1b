/**
 * Block framing: frames are written by node:zlib's zstd and read by zstd's WebAssembly decoder
 * (core/store/codec.ts). The two must agree byte for byte on every block the archive can hold,
 * and a frame the decoder cannot read in full must throw, never hand back a short or empty block.
 */
import assert from "node:assert/strict";
import { constants, zstdCompressSync } from "node:zlib";
import { BLOCK_BYTES, ZSTD_LEVEL, ZSTD_WINDOW_LOG } from "../core/constants.ts";
import { compress, decompress, frameBlocks, initCodec } from "../core/store/codec.ts";

await initCodec();

/** Deterministic bytes: text-like (compressible) or noise (incompressible). */
function bytes(n: number, seed: number, noise: boolean): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  const words = new TextEncoder().encode('{"type":"user","message":"retry SearchManager"}\n');
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = noise ? x & 0xff : words[(i + (x & 3)) % words.length];
  }
  return out;
}

Deno.test("every block size the archive writes decodes to the same bytes", () => {
  const sizes = [1, 2, 100, 4095, 4096, 65535, BLOCK_BYTES];
  for (const n of sizes) {
    for (const noise of [false, true]) {
      const raw = bytes(n, n * 7 + (noise ? 1 : 0), noise);
      const frame = compress(raw);
      assert.deepEqual(decompress(frame), raw, `${n} byte(s), noise ${noise}`);
      assert.deepEqual(decompress(frame, n), raw, `${n} byte(s) with its raw length`);
    }
  }
});

Deno.test("the stated window changes a frame's window descriptor and nothing else", () => {
  // stated only so the compressor's context is smaller: the compressed blocks stay the same
  const own = { params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } };
  for (const n of [1, 4095, 65535, BLOCK_BYTES]) {
    for (const noise of [false, true]) {
      const raw = bytes(n, n * 7 + 3, noise);
      const ours = compress(raw);
      const theirs = new Uint8Array(zstdCompressSync(raw, own));
      // magic (4), frame header descriptor (1), then the window descriptor: exponent + 10
      assert.deepEqual(ours.subarray(0, 5), theirs.subarray(0, 5), `${n} bytes`);
      assert.equal((ours[5] >> 3) + 10, ZSTD_WINDOW_LOG, `${n} bytes`);
      assert.ok(theirs[5] >> 3 > ours[5] >> 3, `${n} bytes: zstd's own window is the larger`);
      assert.deepEqual(ours.subarray(6), theirs.subarray(6), `${n} bytes`);
      assert.deepEqual(decompress(ours, n), raw);
    }
  }
});

Deno.test("a whole stream framed into blocks reads back as the stream", () => {
  const stream = bytes(3 * BLOCK_BYTES + 1234, 42, false);
  const frames = frameBlocks(stream, 0);
  assert.equal(frames.length, 4);
  const back = new Uint8Array(stream.length);
  let o = 0;
  for (const f of frames) {
    const raw = decompress(f.bytes, f.rawLen);
    assert.equal(raw.length, f.rawLen);
    back.set(raw, o);
    o += raw.length;
  }
  assert.deepEqual(back, stream);
});

Deno.test("frames written with other zstd settings (levels, a checksum) read too", () => {
  const raw = bytes(BLOCK_BYTES, 9, false);
  for (
    const params of [
      { [constants.ZSTD_c_compressionLevel]: 1 },
      { [constants.ZSTD_c_compressionLevel]: 19 },
      { [constants.ZSTD_c_checksumFlag]: 1 },
    ]
  ) {
    const frame = new Uint8Array(zstdCompressSync(raw, { params }));
    assert.deepEqual(decompress(frame), raw, JSON.stringify(params));
  }
});

Deno.test("a frame that cannot be read whole throws, naming the most it may hold", () => {
  const raw = bytes(BLOCK_BYTES, 5, false);
  const frame = compress(raw);
  const bad: [string, Uint8Array, number | undefined][] = [
    ["not zstd", new TextEncoder().encode("these are not the bytes of a frame"), undefined],
    ["cut short", frame.subarray(0, frame.length - 4), undefined],
    ["empty", new Uint8Array(0), undefined],
    ["larger than its block", frame, 1000],
    ["larger than a block", compress(bytes(BLOCK_BYTES + 1, 3, false)), undefined],
  ];
  for (const [what, f, capacity] of bad) {
    assert.throws(
      () => decompress(f, capacity),
      new RegExp(`not a whole zstd frame of at most ${capacity ?? BLOCK_BYTES} byte`),
      what,
    );
  }
  // a checksummed frame whose content was changed is refused by the frame's own checksum
  const summed = new Uint8Array(
    zstdCompressSync(raw, { params: { [constants.ZSTD_c_checksumFlag]: 1 } }),
  );
  summed[summed.length - 1] ^= 0xff;
  assert.throws(() => decompress(summed), /not a whole zstd frame/);
});

Deno.test("the vendored decoder is zstandard-wasm's, byte for byte, and answers as it does", async () => {
  const { ZSTD_WASM_BASE64, ZSTD_WASM_SHA256 } = await import("../core/store/zstd_wasm.ts");
  const wasm = Uint8Array.fromBase64(ZSTD_WASM_BASE64);
  const sha = new Uint8Array(await crypto.subtle.digest("SHA-256", wasm)).toHex();
  assert.equal(sha, ZSTD_WASM_SHA256);
  // the package itself, loaded its own way: the same frames give the same bytes or nothing
  const pkg = (await import("zstandard-wasm")).default;
  await pkg.loadWASM();
  const raw = bytes(BLOCK_BYTES, 11, false);
  const frame = compress(raw);
  const frames: [Uint8Array, number][] = [
    [frame, BLOCK_BYTES],
    [compress(bytes(777, 2, true)), 777],
    [frame.subarray(0, frame.length - 9), BLOCK_BYTES],
    [frame, 1000],
    [new TextEncoder().encode("not a frame at all"), BLOCK_BYTES],
  ];
  for (const [f, capacity] of frames) {
    const theirs = pkg.decompress(f, capacity);
    let ours: Uint8Array;
    try {
      ours = decompress(f, capacity);
    } catch {
      ours = new Uint8Array(0);
    }
    assert.deepEqual(ours, theirs, `${f.length} byte frame, capacity ${capacity}`);
  }
});

Deno.test("a block decompressed into a kept buffer is the same bytes, and a short buffer is refused", () => {
  const buf = new Uint8Array(BLOCK_BYTES);
  for (const n of [100, 4096, BLOCK_BYTES, 7]) {
    const raw = bytes(n, n + 3, n % 2 === 0);
    const got = decompress(compress(raw), n, buf);
    assert.deepEqual(got, raw, `${n} byte(s)`);
    assert.equal(got.buffer, buf.buffer, "a view of the kept buffer");
  }
  assert.throws(
    () => decompress(compress(bytes(200, 1, false)), 200, new Uint8Array(100)),
    /100 byte\(s\) cannot take 200/,
  );
});
