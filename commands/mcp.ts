/** terminus mcp: the MCP stdio server Claude Code starts; it takes no arguments. */
import type { Command, CommandHelp } from "./types.ts";
import { outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";

const help: CommandHelp = {
  options: [],
  examples: ["(run by Claude Code) terminus mcp"],
};

export const command: Command = {
  name: "mcp",
  help,
  unattended: true,
  usage: "terminus mcp",
  options: {},
  positionals: true,
  json: false,
  empty: () => null,
  async run(ctx, a) {
    if (a.positionals.length) throw new UsageError("mcp takes no arguments");
    const { serveStdio } = await import("../mcp/server.ts");
    // Each call reads the directory afresh (so one removed since start-up is said), unless
    // the process was handed another: `deno task terminus mcp` runs in the checkout and
    // answers for the folder it was typed in.
    let started: string | null = null;
    try {
      started = Deno.cwd();
    } catch { /* unreadable now: each call says so */ }
    const handed = ctx.cwd;
    const fixed = started !== null && handed !== started;
    if (!ctx.streams) throw new Error("the MCP server needs the process's stdin and stdout");
    await serveStdio(ctx.env, ctx.streams.stdio(), fixed ? () => handed : () => Deno.cwd());
    return outcome("mcp", null);
  },
};
