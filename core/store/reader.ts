/**
 * The decoder's bytes for a process that will read blocks soon: `terminus search` and the MCP
 * server start its compilation here before they rank, so it is ready when the excerpts need
 * it. Apart from codec.ts so that a hook, which imports the codec, never loads 67 KB of wasm.
 */
import { ZSTD_WASM_BASE64 } from "./zstd_wasm.ts";
import { prepareReader } from "./codec.ts";

export function startReader(): void {
  prepareReader(ZSTD_WASM_BASE64);
}
