/** `terminus sessions browse`: find a session as you type; Enter prints its resume line. */
import type { Parsed } from "../types.ts";
import type { Context } from "../../core/context.ts";
import { type Outcome, outcome } from "../../core/output.ts";
import { NotFoundError, UsageError } from "../../core/errors.ts";
import type { Verb } from "./verb.ts";
import { openTerminal, runBrowser } from "../../core/browse/screen.ts";
import { storeSource } from "../../core/browse/source.ts";
import { resolveScope } from "../../core/open.ts";
import { BROWSE_CANCELLED_EXIT } from "../../core/constants.ts";
import { openForRead } from "../common.ts";

async function browseAll(ctx: Context, a: Parsed): Promise<Outcome> {
  if (a.json) throw new UsageError("sessions browse is interactive; it takes no --json");
  if (a.positionals.length > 1) {
    throw new UsageError(`sessions browse takes no argument; '${a.positionals[1]}' is extra`);
  }
  const term = openTerminal(ctx.streams); // before the store: no terminal, nothing opened
  const o = await openForRead(ctx);
  if (!o.db) throw new NotFoundError(o.reason);
  try {
    const scope = resolveScope(o.db, o.r.cfg, ctx.cwd, undefined);
    const src = storeSource({
      db: o.db,
      store: o.r.store,
      cfg: o.r.cfg,
      cwd: ctx.cwd,
      roots: o.r.roots,
      current: scope.ok ? scope.vis : null,
    });
    const end = await runBrowser(term, src, ctx.env("NO_COLOR") === undefined);
    // left with Esc or Ctrl-C: 130, as fzf exits, so `$(terminus sessions browse)` can tell
    return outcome("sessions browse", null, {
      human: end.print ? [end.print + "\n"] : [],
      wrap: false, // a command to copy or run
      warnings: o.warnings,
      exitCode: end.cancelled ? BROWSE_CANCELLED_EXIT : 0,
    });
  } finally {
    o.db.close();
  }
}

export const browse: Verb = {
  name: "browse",
  summary: "find a session as you type; Enter prints its claude --resume line",
  options: [],
  empty: () => null,
  run: browseAll,
};
