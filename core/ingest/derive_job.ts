/**
 * One window's CPU work, the same on the derive worker and inline: parse and derive its rows,
 * frame its stream into blocks when asked, and carry the session's observation forward.
 * Pure: no store, no file system.
 */
import { BLOCK_BYTES } from "../constants.ts";
import { type Frame, frameBlocks } from "../store/codec.ts";
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
  /** The stream framed, when it starts on a block boundary and framing was asked for. */
  framed?: { from: number; frames: Frame[] };
  /** The session's facts (branch left null) when it was observed from its first record. */
  mechanical?: Mechanical;
}

export class Deriving {
  #observers = new Map<string, Observer>();

  /** `frame` needs the encoder loaded (`initFramer`, or `initCodec`). */
  run(job: DeriveJob, frame: boolean): Derived {
    let obs: Observer | undefined;
    if (job.observe === "start") obs = new Observer();
    else if (job.observe === "continue") obs = this.#observers.get(job.key);
    this.#observers.delete(job.key);
    const out = job.raw ? rawChunk(job.input) : deriveChunk(job.input, obs);
    const from = job.input.streamOffset;
    const framed = frame && from % BLOCK_BYTES === 0
      ? { from, frames: frameBlocks(out.stream, from / BLOCK_BYTES) }
      : undefined;
    if (!obs) return { out, framed };
    if (!job.last) {
      this.#observers.set(job.key, obs);
      return { out, framed };
    }
    return { out, framed, mechanical: obs.result(null) };
  }
}
