/**
 * The one line SessionStart shows the person (Claude Code's systemMessage, which the model
 * does not see) when archiving has stopped, and doctor's words for the same conditions.
 */

/** terminus.toml did not load: its error names the file and the line; say what it stops. */
export function configMessage(error: string): string {
  return `Terminus is not archiving this session: ${
    error.split("\n")[0]
  }. Fix that line (terminus doctor checks the file); until then nothing is archived or recalled.`;
}

/** A day of passes started and none finished (stalledArchiving's line), or null. */
export function stallMessage(stalled: string | null): string | null {
  return stalled === null ? null : `Terminus is not archiving: ${stalled}.`;
}
