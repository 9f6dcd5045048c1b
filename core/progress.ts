/**
 * Progress on long work, for a person at a terminal: done of total, the rate and an ETA on one
 * line, redrawn at most 10 times a second. Core code only counts (`Progress.add`); where the
 * line goes is the caller's choice (mod.ts hands a sink writing to stderr when stderr is a
 * terminal and the command is not printing JSON; otherwise there is no progress at all).
 */
import { PROGRESS_REDRAW_MS } from "./constants.ts";

/** Receives one line to draw in place, or null when the work is over and the line goes. */
export type ProgressSink = (line: string | null) => void;

export type ProgressUnit = "bytes" | "sessions" | "files";

/** Makes a Progress for one piece of work; absent when nobody is watching. */
export type ProgressFactory = (label: string, total: number, unit: ProgressUnit) => Progress;

const MB = 1_000_000;

function clock(s: number): string {
  const t = Math.max(0, Math.round(s));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const ss = String(t % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** The line for `done` of `total` after `elapsedMs`. */
export function progressLine(
  label: string,
  unit: ProgressUnit,
  done: number,
  total: number,
  elapsedMs: number,
): string {
  const secs = elapsedMs / 1000;
  const rate = secs > 0 ? done / secs : 0;
  const left = rate > 0 && total > done ? (total - done) / rate : null;
  const eta = left === null ? "" : `  ETA ${clock(left)}`;
  if (unit === "bytes") {
    return `${label}  ${(done / MB).toFixed(1)} of ${(total / MB).toFixed(1)} MB  ${
      (rate / MB).toFixed(1)
    } MB/s${eta}`;
  }
  return `${label}  ${done} of ${total} ${unit}  ${rate.toFixed(1)}/s${eta}`;
}

export class Progress {
  #done = 0;
  #last = -Infinity;
  readonly #start: number;

  constructor(
    readonly label: string,
    public total: number,
    readonly unit: ProgressUnit,
    readonly sink: ProgressSink,
    readonly now: () => number = () => performance.now(),
  ) {
    this.#start = now();
  }

  get done(): number {
    return this.#done;
  }

  add(n: number): void {
    this.#done += n;
    const t = this.now();
    if (t - this.#last < PROGRESS_REDRAW_MS) return;
    this.#last = t;
    this.sink(progressLine(this.label, this.unit, this.#done, this.total, t - this.#start));
  }

  /** The work is over: the line is taken away (the command's own output follows). */
  finish(): void {
    this.sink(null);
  }
}

/** A factory that draws nothing, for callers with nobody watching. */
export const noProgress: ProgressFactory = (label, total, unit) =>
  new Progress(label, total, unit, () => {});
