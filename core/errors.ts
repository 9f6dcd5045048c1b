/**
 * The one error hierarchy. `mod.ts` maps these to exit codes: `UsageError` is misuse (2),
 * every other `TerminusError` is an operational failure (1).
 */
export class TerminusError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Misuse: a bad flag, a bad value, a missing argument. Exit 2, nothing on stdout. */
export class UsageError extends TerminusError {}

/** terminus.toml could not be loaded. */
export class ConfigError extends TerminusError {}

/** The store cannot be opened or is in a format this build does not read. */
export class StoreError extends TerminusError {}

/** The data directory could not be resolved. */
export class PathError extends TerminusError {}

/** A reference (a session number, UUID or path) names nothing this caller may see. Exit 1. */
export class NotFoundError extends TerminusError {}

/** What every reader says before the first pass: where the store will be, and how to fill it. */
export function noStoreYet(store: string): string {
  return `no store yet at ${store}; terminus backfill archives the transcripts already on disk`;
}

/**
 * An error's message for a person. The runtime answers a read of /proc, /dev or /sys (paths it
 * guards even with read permission) with advice to run with every permission; Terminus never
 * does, so that advice is replaced with what is true.
 */
export function errorText(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  const m = /^Requires all access to "([^"]*)", run again with the --allow-all flag/.exec(msg);
  if (m) {
    return `${m[1]} is a system path (below /proc, /dev or /sys) that Terminus does not read`;
  }
  return msg;
}
