/**
 * The process's standard streams. Everything that writes to stdout or stderr, or reads
 * stdin, goes through here, so a use case called in process (tests/unit/) never touches them.
 */
import { type Chunk, escapeControls } from "./core/output.ts";
import type { Dialogue } from "./core/dialogue.ts";
import type { Streams, Terminal } from "./core/streams.ts";

const encoder = new TextEncoder();

export type Stream = "stdout" | "stderr";

/** Whether a standard stream is a terminal (a person watching), not a pipe or a file. */
export function isTerminal(stream: Stream | "stdin"): boolean {
  return (stream === "stdout" ? Deno.stdout : stream === "stderr" ? Deno.stderr : Deno.stdin)
    .isTerminal();
}

/** The terminal's size; null when no stream is one (or the runtime cannot ask). */
function consoleSize(): { columns: number; rows: number } | null {
  try {
    return Deno.consoleSize();
  } catch {
    return null;
  }
}

/** The browser's raw screen: keys from stdin, drawn on stderr. */
function screen(): Terminal {
  return {
    read: (b) => Deno.stdin.read(b),
    write: (str) => void writeAll("stderr", [str]),
    size: () => consoleSize() ?? { columns: 80, rows: 24 },
    setRaw: (on) => Deno.stdin.setRaw(on),
    onResize: (f) => {
      Deno.addSignalListener("SIGWINCH", f);
      return () => Deno.removeSignalListener("SIGWINCH", f);
    },
  };
}

/**
 * The process's streams as the Context carries them. Each question is asked when a use case
 * asks it, not when the Context is built: a search or a hook pays for no query it never makes.
 */
export const streams: Streams = {
  isTerminal,
  size: consoleSize,
  read: (buf) => Deno.stdin.read(buf),
  stdio: () => ({ input: Deno.stdin.readable, output: Deno.stdout }),
  screen,
};

/**
 * Writes every chunk whole (a pipe may take fewer bytes than asked). False when the reader has
 * gone (`terminus search x | head -1`): like rg and gh, a closed pipe ends the output quietly
 * rather than as a stack trace.
 */
export function writeAll(stream: Stream, chunks: Chunk[]): boolean {
  const s = stream === "stdout" ? Deno.stdout : Deno.stderr;
  try {
    for (const c of chunks) {
      let buf = typeof c === "string" ? encoder.encode(c) : c;
      while (buf.length > 0) buf = buf.subarray(s.writeSync(buf));
    }
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.BrokenPipe) return false;
    throw e;
  }
}

/**
 * One line from stdin, without its newline, read a byte at a time so nothing past it is
 * taken. Null when stdin ends (or cannot be read) before any byte; a last line with no
 * newline is still a line. At most `max` bytes are kept; the rest of a longer line is left.
 */
export async function readLine(max = Infinity): Promise<string | null> {
  const chunks: number[] = [];
  const one = new Uint8Array(1);
  let sawAny = false;
  while (chunks.length <= max) {
    let n: number | null;
    try {
      n = await Deno.stdin.read(one);
    } catch {
      n = null;
    }
    if (n === null || n === 0) break;
    sawAny = true;
    if (one[0] === 0x0a) break;
    chunks.push(one[0]);
  }
  return sawAny ? new TextDecoder().decode(new Uint8Array(chunks)) : null;
}

/** The process's own stdout, stderr and stdin, as a command that talks as it goes uses them. */
export const dialogue: Dialogue = {
  say: (text) => void writeAll("stdout", [escapeControls(text)]),
  warn: (text) => void writeAll("stderr", [escapeControls(text)]),
  ask: (question) => {
    writeAll("stdout", [escapeControls(question)]);
    return readLine();
  },
  confirm: async (question) => {
    writeAll("stderr", [escapeControls(question)]);
    const answer = await readLine(1024);
    if (answer === null) {
      writeAll("stderr", ["\n"]);
      return null;
    }
    const a = answer.trim().toLowerCase();
    return a === "y" || a === "yes";
  },
};
