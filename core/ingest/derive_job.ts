/**
 * One window's CPU work, the same on the derive worker and inline: parse and derive its rows,
 * frame its stream into blocks when asked, and carry the session's observation forward.
 * Pure: no store, no file system.
 */
import { BLOCK_BYTES } from "../constants.ts";
import { blake3, type Frame, frameBlocks } from "../store/codec.ts";
import { concat, release } from "../bytes.ts";
import { type Mechanical, Observer } from "../observe/mechanical.ts";
import { type ChunkInput, type ChunkOutput, deriveChunk } from "./chunk.ts";
import { rawChunk } from "./window.ts";

export interface DeriveJob {
  /** The session key the window belongs to: observations are carried per key. */
  key: string;
  input: ChunkInput;
  /** The window holds an oversized line's bytes: archived as they are, not parsed. */
  raw: boolean;
  /**
   * `start`: the window opens the session's stream; `continue`: it follows a window of this
   * key derived (and written) earlier in the same pass; `none`: the facts cannot be complete.
   */
  observe: "start" | "continue" | "none";
  /** No later window of the file is due in this pass: hand the observation back. */
  last: boolean;
}

export interface Derived {
  out: ChunkOutput;
  /** The stream framed, when framing was asked for and it could be (see `Framed`). */
  framed?: Framed;
  /** The session's facts (branch left null) when it was observed from its first record. */
  mechanical?: Mechanical;
}

/**
 * A window's stream framed into blocks from the block boundary at or before its start: `head`
 * is how many bytes before the window's start that is, the bytes of the session's trailing
 * partial block, joined from the window before it. The writer uses the frames only while that
 * stored block is the same bytes (`headHash`); otherwise it reads the block back and frames
 * again itself.
 */
export interface Framed {
  /** The stream offset the first frame starts at: a block boundary. */
  from: number;
  head: number;
  /** BLAKE3 of the head bytes: the stored partial block's hash when they match. */
  headHash: Uint8Array | null;
  frames: Frame[];
}

/** The raw bytes of a key's trailing partial block, and the stream length they end at. */
interface Tail {
  end: number;
  bytes: Uint8Array;
}

export class Deriving {
  #observers = new Map<string, Observer>();
  /**
   * Kept per key between one window and the next, so a window that does not start on a block
   * boundary is still framed here (a window ends at a line, rarely at a block's end).
   */
  #tails = new Map<string, Tail>();

  /** `frame` needs the encoder loaded (`initFramer`, or `initCodec`). */
  run(job: DeriveJob, frame: boolean): Derived {
    let obs: Observer | undefined;
    if (job.observe === "start") obs = new Observer();
    else if (job.observe === "continue") obs = this.#observers.get(job.key);
    this.#observers.delete(job.key);
    const out = job.raw ? rawChunk(job.input) : deriveChunk(job.input, obs);
    const framed = frame ? this.#frame(job, out.stream) : undefined;
    if (!obs) return { out, framed };
    if (!job.last) {
      this.#observers.set(job.key, obs);
      return { out, framed };
    }
    return { out, framed, mechanical: obs.result(null) };
  }

  #frame(job: DeriveJob, stream: Uint8Array): Framed | undefined {
    const at = job.input.streamOffset;
    const tail = this.#tails.get(job.key);
    this.#tails.delete(job.key);
    let head: Uint8Array;
    if (at % BLOCK_BYTES === 0) head = new Uint8Array(0);
    else if (tail && tail.end === at && tail.bytes.length === at % BLOCK_BYTES) head = tail.bytes;
    else return undefined;
    const from = at - head.length;
    const joined = head.length > 0 ? concat([head, stream]) : stream;
    const framed: Framed = {
      from,
      head: head.length,
      headHash: head.length > 0 ? blake3(head) : null,
      frames: frameBlocks(joined, from / BLOCK_BYTES),
    };
    const end = from + joined.length;
    // a copy: the stream's buffer is handed back to the writer
    if (!job.last) {
      this.#tails.set(job.key, { end, bytes: joined.slice(joined.length - end % BLOCK_BYTES) });
    }
    // the head and stream joined were only for framing: the stream itself goes back
    if (joined !== stream) release(joined);
    return framed;
  }
}
