/**
 * What both entries (mod.ts, hook.ts) do once a command has run: render its outcome, write it
 * (through the pager when it is taller than the terminal), record what the hook handed over,
 * then the notes on stderr; and how the process ends.
 */
import { type Chunk, type Outcome, pagerCommand, render } from "./core/output.ts";
import { processEnv } from "./core/paths.ts";
import { wrapText } from "./core/width.ts";
import { isTerminal, streams, writeAll } from "./io.ts";

const encoder = new TextEncoder();

/**
 * Hands human output to the pager when stdout is a terminal and the text is taller than the
 * screen. Returns false (the caller writes it) when paging does not apply or cannot start.
 */
export async function paged(chunks: Chunk[]): Promise<boolean> {
  if (!isTerminal("stdout")) return false;
  const cmd = pagerCommand(processEnv);
  if (!cmd) return false;
  let rows = 0;
  try {
    rows = Deno.consoleSize().rows;
  } catch {
    return false;
  }
  const bytes = chunks.map((c) => (typeof c === "string" ? encoder.encode(c) : c));
  let lines = 0;
  for (const b of bytes) for (const x of b) if (x === 0x0a) lines++;
  if (rows <= 0 || lines < rows) return false;
  // a pager the permissions do not name is passed over: the text is printed instead
  if (Deno.permissions.querySync({ name: "run", command: cmd[0] }).state !== "granted") {
    return false;
  }
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(cmd[0], { args: cmd.slice(1), stdin: "piped" }).spawn();
  } catch {
    return false;
  }
  const w = child.stdin.getWriter();
  try {
    for (const b of bytes) await w.write(b);
    await w.close();
  } catch {
    // the person quit the pager before the end: nothing more to show
  }
  await child.status;
  return true;
}

/** The terminal's width when the stream is one that knows it; null for a pipe or a file. */
export function columnsOf(stream: "stdout" | "stderr"): number | null {
  const columns = isTerminal(stream) ? streams.size()?.columns ?? 0 : 0;
  return columns > 0 ? columns : null;
}

/** Renders a command's outcome and writes it; returns the exit code. */
export async function deliver(result: Outcome, json: boolean): Promise<number> {
  // on a terminal, long lines are wrapped to its width (through the pager too)
  const r = render(result, json, columnsOf("stdout"));
  let written = true;
  try {
    if (!(r.page && await paged(r.stdout))) written = writeAll("stdout", r.stdout);
  } catch (e) {
    if (!result.after) throw e;
    written = false;
  }
  // the hook records what it handed over only now: a reader gone away is nothing handed over
  const more = result.after ? result.after(written) : [];
  const stderr = [...r.stderr, ...more];
  if (stderr.length) {
    // counts and notes fit the terminal as the answer does; a pipe gets them whole
    const width = columnsOf("stderr");
    writeAll("stderr", stderr.map((l) => wrapText(l, width) + "\n"));
  }
  return r.exitCode;
}

/**
 * Runs an entry's work and exits with its code. A command that wrote on its own (data move's
 * questions) and met a closed pipe ends quietly.
 */
export async function exitWith(run: () => Promise<number>): Promise<never> {
  let code: number;
  try {
    code = await run();
  } catch (e) {
    if (!(e instanceof Deno.errors.BrokenPipe)) throw e;
    code = 0;
  }
  Deno.exit(code);
}
