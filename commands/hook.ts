/** terminus hook <event>: run by Claude Code; speaks Claude Code's hook format, not ours. */
import type { Command, CommandHelp } from "./types.ts";
import { outcome } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";

const help: CommandHelp = {
  options: [],
  examples: ["(run by Claude Code) terminus hook SessionStart"],
};

export const command: Command = {
  name: "hook",
  help,
  plainArgs: true,
  unattended: true,
  usage: "terminus hook <SessionStart|UserPromptSubmit|SessionEnd|PostCompact>",
  options: {},
  values: { "": ["SessionStart", "UserPromptSubmit", "SessionEnd", "PostCompact"] },
  positionals: true,
  json: false,
  empty: () => null,
  async run(ctx, a) {
    const { HOOK_EVENTS, runHook } = await import("../hooks/run.ts");
    const event = a.positionals[0];
    if (event === undefined) throw new UsageError(`hook needs an event: ${HOOK_EVENTS.join(", ")}`);
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      throw new UsageError(
        `hook: unknown event '${event}'; expected one of ${HOOK_EVENTS.join(", ")}`,
      );
    }
    if (a.positionals.length > 1) throw new UsageError("hook takes exactly one event");
    const r = await runHook(event as typeof HOOK_EVENTS[number], ctx);
    // The document goes out as bytes: the renderer must not touch it.
    return outcome("hook", null, {
      human: r.stdout ? [new TextEncoder().encode(r.stdout)] : [],
      wrap: false,
      warnings: r.stderr,
      after: r.after,
    });
  },
};
