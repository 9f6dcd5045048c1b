/**
 * The one line SessionStart shows the person (Claude Code's systemMessage, which the model
 * does not see) when archiving has stopped, and doctor's words for the same conditions.
 */

/** terminus.toml did not load: its error names the file (and the line, when it has one). */
export function configMessage(error: string): string {
  return `Terminus is not archiving: ${
    error.split("\n")[0].replace(/\.$/, "")
  }. Until the file loads, nothing is archived or recalled; terminus doctor checks it.`;
}

/** A day of passes started and none finished (stalledArchiving's line), or null. */
export function stallMessage(stalled: string | null): string | null {
  return stalled === null ? null : `Terminus is not archiving: ${stalled}.`;
}
