/** name / tag / untag: the handles a person puts on a session, one procedure for the three. */
import type { Parsed } from "../types.ts";
import type { Context } from "../../core/context.ts";
import { type Outcome, outcome } from "../../core/output.ts";
import { UsageError } from "../../core/errors.ts";
import { changeHandle, checkName, checkTags } from "../../core/sessions/handles.ts";
import { label, refArg } from "./verb.ts";

/** name / tag / untag: find the session read-only, then write only the handle. */
export async function changeHandleVerb(
  ctx: Context,
  a: Parsed,
  verb: "name" | "tag" | "untag",
): Promise<Outcome> {
  const ref = refArg(a, verb);
  const rest = a.positionals.slice(2);
  let name: string | null = null;
  let tags: string[] = [];
  if (verb === "name") {
    if (a.values.clear === true) {
      if (rest.length) throw new UsageError("sessions name --clear takes no title");
    } else {
      if (rest.length !== 1) {
        throw new UsageError(
          'sessions name takes one title (quote it: "investigate auth flow"), or --clear',
        );
      }
      name = checkName(rest[0]);
    }
  } else {
    tags = checkTags(rest);
  }
  const { sessionNo, view, changed, warnings } = await changeHandle(
    ctx,
    ref,
    verb === "name" ? { verb, name } : { verb, tags },
    label(verb),
  );
  const said = verb === "name"
    ? (name === null
      ? (changed ? `#${sessionNo}: name cleared` : `#${sessionNo} had no name`)
      : `#${sessionNo} named`)
    : `#${sessionNo}: ${(changed as string[]).length} tag(s) ${
      verb === "tag" ? "added" : "removed"
    }${
      rest.some((t) => t !== t.toLowerCase())
        ? ` (tags are lowercase: ${rest.filter((t) => t !== t.toLowerCase()).join(", ")} as ${
          rest.filter((t) => t !== t.toLowerCase()).map((t) => t.toLowerCase()).join(", ")
        })`
        : ""
    }`;
  return outcome(label(verb), { session: view, changed }, {
    human: [
      `#${view.session_no}  ${view.title ?? "(untitled)"}${
        view.tags.length ? "  " + view.tags.map((t) => `+${t}`).join(" ") : ""
      }\n`,
    ],
    counts: [said],
    warnings,
  });
}
