/**
 * A command that talks as it goes (reports a step, then asks a question) rather than handing
 * one outcome to the renderer at the end: what it says, what it warns, and how it reads the
 * answer. The use case gets it from the Context: mod.ts hands in the terminal one (io.ts), a
 * test its own.
 */
export interface Dialogue {
  say(text: string): void;
  warn(text: string): void;
  /** One line from stdin without its newline; null when there is no answer to read. */
  ask(question: string): Promise<string | null>;
  /**
   * A yes-or-no question asked on stderr, for a command whose stdout carries only its answer
   * (`sessions delete`, `uninstall --purge`): true for y or yes, false for anything else, null
   * when there is no answer to read (stdin closed).
   */
  confirm(question: string): Promise<boolean | null>;
}
