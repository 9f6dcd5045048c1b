/** terminus mcp: the MCP stdio server Claude Code starts; it takes no arguments. */
import type { Command } from "./types.ts";
import { outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";

export const command: Command = {
  name: "mcp",
  usage: "terminus mcp",
  options: {},
  positionals: true,
  json: false,
  empty: () => null,
  async run(ctx, a) {
    if (a.positionals.length) throw new UsageError("mcp takes no arguments");
    const { serveStdio } = await import("../mcp/server.ts");
    await serveStdio(ctx.env);
    return outcome("mcp", null);
  },
};
