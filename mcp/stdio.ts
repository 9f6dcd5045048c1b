/**
 * The MCP server's stdio transport: newline-delimited JSON-RPC on stdin and stdout.
 * It replaces the SDK's StdioServerTransport, whose read buffer closes the whole server on a
 * message of 10 MiB or more, drops malformed lines without a reply, and copies its buffer on
 * every chunk (a 9 MB message took seconds). Here a line is gathered from its chunks once, a
 * line over the cap is skipped to its newline and answered with an error, and a line that is
 * not JSON, or not a JSON-RPC message, gets the JSON-RPC error the protocol names.
 */
import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { MCP_MESSAGE_MAX_BYTES } from "../core/constants.ts";

type Id = string | number | null;

/** One complete line, or the size and first bytes of a line too large to keep. */
export type LineEvent = { line: Uint8Array } | { tooLarge: number; head: Uint8Array };

/** How much of an oversized line is kept, to find its id. */
const HEAD_BYTES = 4096;

/** Splits a byte stream on `\n`, never holding more than `max` bytes of one line. */
export class LineSplitter {
  #chunks: Uint8Array[] = [];
  #size = 0;
  /** Bytes of the oversized line being skipped, or -1 when not skipping. */
  #skipped = -1;
  #head = new Uint8Array(0);

  constructor(readonly max = MCP_MESSAGE_MAX_BYTES) {}

  *push(chunk: Uint8Array): Generator<LineEvent> {
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      if (this.#skipped < 0 && this.#size + piece.length >= this.max) {
        this.#head = this.#gather(piece).subarray(0, HEAD_BYTES).slice();
        this.#skipped = this.#size + piece.length;
        this.#chunks = [];
        this.#size = 0;
      } else if (this.#skipped >= 0) this.#skipped += piece.length;
      else if (piece.length) {
        this.#chunks.push(nl === -1 ? piece.slice() : piece);
        this.#size += piece.length;
      }
      if (nl === -1) return;
      if (this.#skipped >= 0) {
        yield { tooLarge: this.#skipped, head: this.#head };
        this.#skipped = -1;
      } else {
        const line = this.#gather(new Uint8Array(0));
        this.#chunks = [];
        this.#size = 0;
        yield { line };
      }
      start = nl + 1;
    }
  }

  #gather(last: Uint8Array): Uint8Array {
    if (this.#chunks.length === 0) return last;
    if (this.#chunks.length === 1 && last.length === 0) return this.#chunks[0];
    const out = new Uint8Array(this.#size + last.length);
    let at = 0;
    for (const c of this.#chunks) {
      out.set(c, at);
      at += c.length;
    }
    out.set(last, at);
    return out;
  }
}

/**
 * The id of a message too large to parse, when its opening names one before anything else
 * (`{"jsonrpc":"2.0","id":7,...` or `{"method":"...","id":7,...`); otherwise null.
 */
export function leadingId(head: Uint8Array): Id {
  const text = new TextDecoder().decode(head);
  const m = text.match(
    /^\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"[^"\\]*"\s*,\s*){0,2}"id"\s*:\s*(-?\d+|"[^"\\]*")\s*[,}]/,
  );
  return m ? JSON.parse(m[1]) : null;
}

function errorReply(id: Id, code: number, message: string): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage;
}

/** What a received line is: a message to hand on, a reply to send back, or nothing at all. */
export function readLine(
  e: LineEvent,
): { message: JSONRPCMessage } | { reply: JSONRPCMessage } | null {
  if ("tooLarge" in e) {
    return {
      reply: errorReply(
        leadingId(e.head),
        ErrorCode.InvalidRequest,
        `message of ${e.tooLarge} bytes is over the ${MCP_MESSAGE_MAX_BYTES}-byte limit`,
      ),
    };
  }
  const text = new TextDecoder().decode(e.line).replace(/\r$/, "");
  if (text.trim() === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      reply: errorReply(null, ErrorCode.ParseError, "Parse error: the message is not JSON"),
    };
  }
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  const raw = value as { id?: unknown } | null;
  const id = raw && typeof raw === "object" && !Array.isArray(raw) &&
      (typeof raw.id === "string" || typeof raw.id === "number")
    ? raw.id
    : null;
  return {
    reply: errorReply(
      id,
      ErrorCode.InvalidRequest,
      "Invalid Request: not a JSON-RPC 2.0 request, notification or response",
    ),
  };
}

/** The server side of stdio: reads `input` until it ends, writes each message as one line. */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #writing: Promise<void> = Promise.resolve();
  #closed = false;
  /** Requests read and not yet answered, by id: stdin's end waits for their answers. */
  #pending = new Set<string | number>();
  #drained: (() => void) | null = null;

  constructor(
    readonly input: ReadableStream<Uint8Array>,
    readonly output: { write(p: Uint8Array): Promise<number> },
  ) {}

  start(): Promise<void> {
    this.#reader = this.input.getReader();
    void this.#read();
    return Promise.resolve();
  }

  async #read(): Promise<void> {
    const lines = new LineSplitter();
    try {
      while (true) {
        const { value, done } = await this.#reader!.read();
        if (done) break;
        for (const e of lines.push(value)) {
          const r = readLine(e);
          if (r === null) continue;
          if ("reply" in r) void this.send(r.reply).catch(() => {});
          else {
            const m = r.message as { id?: string | number; method?: string };
            if (m.method !== undefined && m.id !== undefined) this.#pending.add(m.id);
            this.onmessage?.(r.message);
          }
        }
      }
    } catch (err) {
      if (!this.#closed) this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    }
    // A request sent just before stdin closed is still answered: the server closes only once
    // every request it read has had its reply written.
    if (this.#pending.size > 0 && !this.#closed) {
      await new Promise<void>((resolve) => this.#drained = resolve);
    }
    await this.close();
  }

  #answered(message: JSONRPCMessage): void {
    const m = message as { id?: string | number; method?: string };
    if (m.method !== undefined || m.id === undefined) return;
    this.#pending.delete(m.id);
    if (this.#pending.size === 0) this.#drained?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const bytes = new TextEncoder().encode(JSON.stringify(message) + "\n");
    // One write after another, so two messages never interleave on stdout.
    const next = this.#writing.then(async () => {
      for (let at = 0; at < bytes.length;) at += await this.output.write(bytes.subarray(at));
    });
    this.#writing = next.catch(() => {});
    // settled only once written (or failed): the process may exit after the last one
    void this.#writing.then(() => this.#answered(message));
    return next;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel().catch(() => {});
    await this.#writing;
    this.onclose?.();
  }
}
