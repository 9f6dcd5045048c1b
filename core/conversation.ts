/**
 * A command that talks as it goes (reports a step, then asks a question) rather than handing
 * one outcome to the renderer at the end: what it says, what it warns, and how it reads the
 * answer. The use case gets it from the Context, so a test hands in its own.
 */
import { escapeControls } from "./output.ts";

export interface Conversation {
  say(text: string): void;
  warn(text: string): void;
  /** One line from stdin without its newline; null when there is no answer to read. */
  ask(question: string): Promise<string | null>;
}

const encoder = new TextEncoder();

function writeAll(stream: typeof Deno.stdout, text: string): void {
  let buf = encoder.encode(escapeControls(text));
  while (buf.length > 0) buf = buf.subarray(stream.writeSync(buf));
}

/** Reads byte by byte, so nothing past the answer's newline is taken from stdin. */
async function readLine(): Promise<string | null> {
  const chunks: number[] = [];
  const buf = new Uint8Array(1);
  while (true) {
    let n: number | null;
    try {
      n = await Deno.stdin.read(buf);
    } catch {
      n = null;
    }
    if (n === null || n === 0) break;
    if (buf[0] === 0x0a) return new TextDecoder().decode(new Uint8Array(chunks));
    chunks.push(buf[0]);
  }
  return chunks.length ? new TextDecoder().decode(new Uint8Array(chunks)) : null;
}

/** The process's own stdout, stderr and stdin. */
export const terminal: Conversation = {
  say: (text) => writeAll(Deno.stdout, text),
  warn: (text) => writeAll(Deno.stderr, text),
  ask: (question) => {
    writeAll(Deno.stdout, question);
    return readLine();
  },
};
