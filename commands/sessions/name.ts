/** `terminus sessions name <session> ...`: give a session a title of your own. */
import type { Verb } from "./verb.ts";
import { changeHandleVerb } from "./handle.ts";

export const name: Verb = {
  name: "name",
  summary: "give a session a title of your own",
  options: ["clear"],
  empty: () => ({ session: null, changed: false }),
  run: (ctx, a) => changeHandleVerb(ctx, a, "name"),
};
