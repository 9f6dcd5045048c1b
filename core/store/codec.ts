/**
 * Block framing: each block is one independent zstd frame (level 3, no dictionary) and a
 * BLAKE3 hash of its uncompressed bytes. zstd is the runtime's native binding (node:zlib);
 * BLAKE3 is hash-wasm. Both are loaded on first use (`initCodec`), because their start-up
 * (~15-20 ms each) would otherwise land on every run, a no-op pass included.
 */
import { BLOCK_BYTES, ZSTD_LEVEL } from "../constants.ts";

type Zlib = typeof import("node:zlib");
type Hasher = Awaited<ReturnType<typeof import("hash-wasm").createBLAKE3>>;

let zlib: Zlib | undefined;
let hasher: Hasher | undefined;
let compressOptions: { params: Record<number, number> } | undefined;

/** For writing and checking blocks: zstd and BLAKE3. Awaited once before either is used. */
export async function initCodec(): Promise<void> {
  await initReader();
  if (!hasher) hasher = await (await import("hash-wasm")).createBLAKE3();
}

/** For reading blocks only: zstd without BLAKE3, whose WASM start-up a read never needs. */
export async function initReader(): Promise<void> {
  if (!zlib) {
    zlib = await import("node:zlib");
    compressOptions = { params: { [zlib.constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } };
  }
}

function z(): Zlib {
  if (!zlib) throw new Error("initReader() or initCodec() was not awaited");
  return zlib;
}

export function blake3(data: Uint8Array): Uint8Array {
  if (!hasher) throw new Error("initCodec() was not awaited");
  const h = hasher;
  h.init();
  h.update(data);
  return h.digest("binary");
}

export function compress(raw: Uint8Array): Uint8Array {
  return new Uint8Array(z().zstdCompressSync(raw, compressOptions));
}

/**
 * One block's bytes. Given the block's raw length (the read path), the output buffer is sized
 * to hold it in one piece (the default 16 KiB chunks are joined with a copy) and the result is
 * a view of the runtime's buffer rather than another copy: a search cuts excerpts from tens of
 * blocks.
 */
export function decompress(frame: Uint8Array, rawLen?: number): Uint8Array {
  if (rawLen === undefined) return new Uint8Array(z().zstdDecompressSync(frame));
  const out = z().zstdDecompressSync(frame, { chunkSize: rawLen + CHUNK_SLACK });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** Room past the raw length, so the frame's end is read without a second output chunk. */
const CHUNK_SLACK = 64;

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
  const all = new Uint8Array(hashes.reduce((n, h) => n + h.length, 0));
  let o = 0;
  for (const h of hashes) {
    all.set(h, o);
    o += h.length;
  }
  return blake3(all);
}

export function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}
