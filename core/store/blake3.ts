/**
 * BLAKE3 from hash-wasm, imported by name: the package is one file holding every algorithm it
 * has (256 KB once bundled, most of it their WebAssembly as base64), and the bundler keeps only
 * what is imported by name. codec.ts loads this module on first use.
 */
export { createBLAKE3 } from "hash-wasm";
