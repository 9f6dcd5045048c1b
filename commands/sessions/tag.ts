/** `terminus sessions tag <session> ...`: add tags to a session. */
import type { Verb } from "./verb.ts";
import { changeHandleVerb } from "./handle.ts";

export const tag: Verb = {
  name: "tag",
  summary: "add tags to a session",
  options: [],
  empty: () => ({ session: null, changed: [] }),
  run: (ctx, a) => changeHandleVerb(ctx, a, "tag"),
};
