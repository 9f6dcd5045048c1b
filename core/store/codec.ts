/**
 * Block framing: each block is one independent zstd frame (level 3, no dictionary) and a
 * BLAKE3 hash of its uncompressed bytes. Frames are written by the runtime's native zstd
 * (node:zlib, about 1 GB/s) and read by zstd's own decoder compiled to WebAssembly
 * (zstandard-wasm's, vendored): a process that only reads, `terminus search` above all, is
 * spared node:zlib's start-up (about 12 ms) and node's compatibility layer, and the decoder
 * is ready in about 1.5. BLAKE3 is hash-wasm's (blake3.ts). Each is loaded on first use, so a
 * no-op pass or a search with no hit to excerpt pays for none of them.
 */
import { BLOCK_BYTES, ZSTD_LEVEL, ZSTD_WINDOW_LOG } from "../constants.ts";
import { concat } from "../bytes.ts";

type Zlib = typeof import("node:zlib");
type Hasher = Awaited<ReturnType<typeof import("./blake3.ts").createBLAKE3>>;
/** zstd's decompressor as zstandard-wasm builds it: emscripten's malloc/free and the call. */
interface ZstdExports {
  memory: WebAssembly.Memory;
  malloc(n: number): number;
  free(p: number): void;
  ZSTD_decompress(dst: number, dstCapacity: number, src: number, srcSize: number): number;
}
type Decoder = {
  decompress(frame: Uint8Array, capacity: number, into?: Uint8Array): Uint8Array;
};

let zlib: Zlib | undefined;
let decoder: Decoder | undefined;
let hasher: Hasher | undefined;
let compressOptions: { params: Record<number, number> } | undefined;

/** For writing and checking blocks: both directions of zstd, and BLAKE3. */
export async function initCodec(): Promise<void> {
  await initReader();
  await initFramer();
}

/**
 * For framing blocks only (`frameBlocks`): the encoder and BLAKE3. The derive worker frames
 * and never reads a block back, so it does not hold a decoder too.
 */
export async function initFramer(): Promise<void> {
  if (!zlib) {
    zlib = await import("node:zlib");
    compressOptions = {
      params: {
        [zlib.constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL,
        [zlib.constants.ZSTD_c_windowLog]: ZSTD_WINDOW_LOG,
      },
    };
  }
  if (!hasher) hasher = await (await import("./blake3.ts")).createBLAKE3();
}

let compiledDecoder: Promise<WebAssembly.Module> | undefined;

/**
 * Starts compiling the decoder (`base64` is core/store/zstd_wasm.ts's, imported by the caller:
 * a hook must not load it) without waiting: WebAssembly compiles off the main thread, so a
 * search that starts this before its ranking query gets the decoder compiled meanwhile.
 */
export function prepareReader(base64: string): void {
  if (compiledDecoder) return;
  compiledDecoder = WebAssembly.compile(Uint8Array.fromBase64(base64));
  // a search with no hit never awaits it: its failure is met by initReader's await, not here
  compiledDecoder.catch(() => {});
}

/**
 * For reading blocks only: the decoder, without the encoder or BLAKE3. It is zstandard-wasm's
 * WebAssembly, vendored byte for byte (core/store/zstd_wasm.ts), driven the way that package
 * drives it: the package's own loader reads its base64 through node:buffer, and that one
 * import starts node's compatibility layer, about 3 ms of every search that excerpts.
 */
export async function initReader(): Promise<void> {
  if (decoder) return;
  if (!compiledDecoder) prepareReader((await import("./zstd_wasm.ts")).ZSTD_WASM_BASE64);
  let heap: Uint8Array;
  const instance = await WebAssembly.instantiate(await compiledDecoder!, {
    // the module's memory grew: views over the old buffer are detached
    env: { emscripten_notify_memory_growth: () => heap = new Uint8Array(zstd.memory.buffer) },
  });
  const zstd = instance.exports as unknown as ZstdExports;
  heap = new Uint8Array(zstd.memory.buffer);
  decoder = {
    decompress(frame, capacity, into) {
      const src = zstd.malloc(frame.byteLength);
      const dst = zstd.malloc(capacity);
      try {
        heap.set(frame, src);
        // a size_t: an error code is above every real size, and reads as negative here
        const n = zstd.ZSTD_decompress(dst, capacity, src, frame.byteLength);
        if (!(n > 0 && n <= capacity)) return new Uint8Array(0);
        if (!into) return heap.slice(dst, dst + n);
        into.set(heap.subarray(dst, dst + n));
        return into.subarray(0, n);
      } finally {
        zstd.free(src);
        zstd.free(dst);
      }
    },
  };
}

export function blake3(data: Uint8Array): Uint8Array {
  if (!hasher) throw new Error("initCodec() was not awaited");
  const h = hasher;
  h.init();
  h.update(data);
  return h.digest("binary");
}

export function compress(raw: Uint8Array): Uint8Array {
  if (!zlib) throw new Error("initCodec() was not awaited");
  return new Uint8Array(zlib.zstdCompressSync(raw, compressOptions));
}

/**
 * One frame's bytes, which may not be more than `capacity` (a block's raw length where the
 * caller knows it, else a whole block). Throws when the frame is damaged, is not zstd, or
 * holds more than that: the decoder reports each of these by handing back nothing, and no
 * block is empty (nor is any frame of ours). With `into`, the bytes are written there and a view
 * of it is returned: a reader that reuses one buffer touches no new memory per block, and a
 * fresh page costs a short process more than the copy (performance.md, "Pages a search touches").
 */
export function decompress(
  frame: Uint8Array,
  capacity = BLOCK_BYTES,
  into?: Uint8Array,
): Uint8Array {
  if (!decoder) throw new Error("initReader() or initCodec() was not awaited");
  if (into && into.length < capacity) {
    throw new Error(`a buffer of ${into.length} byte(s) cannot take ${capacity}`);
  }
  const out = decoder.decompress(frame, Math.max(capacity, 1), into);
  if (out.length === 0) {
    throw new Error(`not a whole zstd frame of at most ${capacity} byte(s)`);
  }
  return out;
}

/** One block as the blocks table holds it. */
export interface Frame {
  blockNo: number;
  rawLen: number;
  hash: Uint8Array;
  bytes: Uint8Array;
}

/**
 * Cuts a stream's bytes into blocks from block `firstBlock` on, each compressed and hashed.
 * Pure, so the pass can frame on its derive worker while the main thread writes.
 */
export function frameBlocks(bytes: Uint8Array, firstBlock: number): Frame[] {
  const out: Frame[] = [];
  for (let o = 0, no = firstBlock; o < bytes.length; o += BLOCK_BYTES, no++) {
    const raw = bytes.subarray(o, Math.min(o + BLOCK_BYTES, bytes.length));
    out.push({ blockNo: no, rawLen: raw.length, hash: blake3(raw), bytes: compress(raw) });
  }
  return out;
}

/** The session checksum: BLAKE3 over the concatenated block hashes, in block order. */
export function sessionChecksum(hashes: Uint8Array[]): Uint8Array {
  return blake3(concat(hashes));
}
