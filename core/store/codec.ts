/**
 * Block framing: each block is one independent zstd frame (level 3, no dictionary) and a
 * BLAKE3 hash of its uncompressed bytes. zstd is the runtime's native binding (node:zlib);
 * BLAKE3 is hash-wasm. Both are loaded once per process.
 */
import { constants, zstdCompressSync, zstdDecompressSync } from "node:zlib";
import { createBLAKE3, type IHasher } from "hash-wasm";
import { ZSTD_LEVEL } from "../constants.ts";

let hasher: IHasher | undefined;

/** Must be awaited once before `blake3` is used. */
export async function initCodec(): Promise<void> {
  if (!hasher) hasher = await createBLAKE3();
}

export function blake3(data: Uint8Array): Uint8Array {
  if (!hasher) throw new Error("initCodec() was not awaited");
  hasher.init();
  hasher.update(data);
  return hasher.digest("binary");
}

const compressOptions = { params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } };

export function compress(raw: Uint8Array): Uint8Array {
  return new Uint8Array(zstdCompressSync(raw, compressOptions));
}

export function decompress(frame: Uint8Array): Uint8Array {
  return new Uint8Array(zstdDecompressSync(frame));
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
