/** `terminus sessions untag <session> ...`: take tags off a session. */
import type { Verb } from "./verb.ts";
import { changeHandleVerb } from "./handle.ts";

export const untag: Verb = {
  name: "untag",
  summary: "take tags off a session",
  options: [],
  empty: () => ({ session: null, changed: [] }),
  run: (ctx, a) => changeHandleVerb(ctx, a, "untag"),
};
