/**
 * Writes core/store/zstd_wasm.ts from the zstandard-wasm package in the module cache: the
 * decoder's WebAssembly exactly as that package ships it (its `speed` build of zstd 1.5.0),
 * kept as base64 in a module so that it loads with no file, no fetch and no node:buffer.
 *
 *   deno run --allow-read --allow-write --allow-env scripts/vendor_zstd.ts [<zstd.speed.js>]
 *
 * Without a path it looks in DENO_DIR (or ~/.cache/deno). tests/codec_test.ts holds the
 * vendored decoder to the package's own on every kind of frame.
 */
import { join } from "../core/posix.ts";

const PACKAGE = "zstandard-wasm";
const VERSION = "1.5.0-rev.5";
const OUT = new URL("../core/store/zstd_wasm.ts", import.meta.url);

function packageFile(): string {
  if (Deno.args[0]) return Deno.args[0];
  const cache = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/", ".cache", "deno");
  return join(cache, "npm", "registry.npmjs.org", PACKAGE, VERSION, "zstd", "zstd.speed.js");
}

const src = Deno.readTextFileSync(packageFile());
const m = /^export default '([A-Za-z0-9+/=]+)';\s*$/.exec(src);
if (!m) throw new Error(`${packageFile()} is not the base64 module ${PACKAGE} ${VERSION} ships`);
const bytes = Uint8Array.fromBase64(m[1]);
const sha = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)).toHex();
Deno.writeTextFileSync(
  OUT,
  `/**
 * The zstd 1.5.0 decoder as WebAssembly, byte for byte the \`speed\` build that ${PACKAGE}
 * ${VERSION} ships (zstd/zstd.speed.js; MIT, and zstd's BSD licence), as base64. Written by
 * scripts/vendor_zstd.ts; do not edit. ${bytes.length} bytes, SHA-256 ${sha}.
 */
export const ZSTD_WASM_SHA256 = "${sha}";
export const ZSTD_WASM_BASE64 =
  "${m[1]}";
`,
);
console.log(`${OUT.pathname}: ${bytes.length} bytes of wasm, sha256 ${sha}`);
