/**
 * The process's standard streams as a use case sees them: whether each is a terminal, the
 * terminal's size, stdin's bytes, the browser's raw screen. mod.ts hands io.ts's in the
 * Context; a test hands its own, or none, and then nothing is a terminal and stdin is empty.
 */

export type StreamName = "stdout" | "stderr" | "stdin";

/** The raw terminal `sessions browse` draws on: keys in, screen out, raw mode, resizes. */
export interface Terminal {
  read(buf: Uint8Array): Promise<number | null>;
  write(s: string): void;
  size(): { columns: number; rows: number };
  setRaw(on: boolean): void;
  onResize(f: () => void): () => void;
}

export interface Streams {
  /** Whether the stream is a terminal (a person watching), not a pipe or a file. */
  isTerminal(stream: StreamName): boolean;
  /** The terminal's columns and rows; null when there is none to ask. */
  size(): { columns: number; rows: number } | null;
  /** Reads stdin into `buf`: how many bytes came, null at its end. */
  read(buf: Uint8Array): Promise<number | null>;
  /** stdin and stdout as the MCP server's line transport reads and writes them. */
  stdio(): {
    input: ReadableStream<Uint8Array>;
    output: { write(p: Uint8Array): Promise<number> };
  };
  /** The raw screen: keys from stdin, drawing on stderr (stdout stays free for the answer). */
  screen(): Terminal;
}
