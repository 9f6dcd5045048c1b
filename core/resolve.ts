/** Resolving the config, data directory and roots once per command. */
import { type Config, loadConfig } from "./config.ts";
import type { Context } from "./context.ts";
import { dataDir, storePath, transcriptRoots } from "./paths.ts";

export interface Resolved {
  cfg: Config;
  dataDir: string;
  store: string;
  roots: string[];
}

export function resolveAll(ctx: Context): Resolved {
  const cfg = loadConfig(ctx.env);
  const dir = dataDir(ctx.env);
  return { cfg, dataDir: dir, store: storePath(dir), roots: transcriptRoots(cfg.roots, ctx.env) };
}
