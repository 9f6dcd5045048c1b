/**
 * What `search` says on stderr when a filter's value matches nothing: the spec keeps the exit
 * 0 and the empty answer, and a note saying why helps (a misspelt kind, a tool name's case).
 */
import { HISTORY_KIND } from "../core/constants.ts";

/** The record types --kind matches, and the imported prompts' own kind. */
export const KINDS = ["user", "assistant", "system", "attachment", HISTORY_KIND] as const;

export function filterNotes(
  kind: string | undefined,
  tool: string | undefined,
  hits: number,
  toolCalled: (name: string) => boolean,
): string[] {
  const out: string[] = [];
  if (kind !== undefined && !(KINDS as readonly string[]).includes(kind)) {
    out.push(
      `--kind '${kind}' is no record type, so it matches nothing; the kinds are ${
        KINDS.join(", ")
      }`,
    );
  }
  // an empty answer with a tool that was called is the words' doing, and the reason says so
  if (tool !== undefined && hits === 0 && !toolCalled(tool)) {
    out.push(
      `no turn here called a tool named '${tool}'; --tool takes the name exactly as Claude Code writes it (Bash, Read, Edit, mcp__<server>__<tool>)`,
    );
  }
  return out;
}
