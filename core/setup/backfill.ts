/**
 * Install's last step: size the transcripts already on disk against what the store holds,
 * then start archiving them in a detached process and return without waiting.
 */
import type { Config } from "../config.ts";
import { discover } from "../transcript/discover.ts";
import { probeStore, watermarkOffsets } from "../store/probe.ts";

export interface Sizing {
  transcripts: number;
  /** Bytes on disk past each file's watermark. */
  pending: number;
  /** Folders that could not be listed. */
  problems: string[];
}

/** Throws with the reason when the backfill cannot be sized (a store in a newer format...). */
export function sizeBackfill(cfg: Config, roots: string[], store: string): Sizing {
  const probe = probeStore(store);
  let offsets = new Map<string, number>();
  if (probe.kind === "ok") {
    try {
      offsets = watermarkOffsets(probe.db);
    } finally {
      probe.db.close();
    }
  } else if (probe.kind === "older" || probe.kind === "newer" || probe.kind === "unreadable") {
    throw new Error(probe.message);
  }
  const d = discover(roots, cfg.exclude);
  let pending = 0;
  for (const f of d.files) {
    let size = 0;
    try {
      size = Deno.statSync(f.path).size;
    } catch {
      continue;
    }
    pending += Math.max(0, size - (offsets.get(f.path) ?? 0));
  }
  return { transcripts: d.files.length, pending, problems: d.problems };
}

/** Starts `argv` in its own session and process group, so it outlives install. */
export function spawnDetached(argv: string[], env: Record<string, string>): void {
  const [cmd, ...args] = argv;
  const child = new Deno.Command(cmd, {
    args,
    env,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
}
