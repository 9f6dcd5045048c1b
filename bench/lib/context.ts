/**
 * What every benchmark section is handed, and what it hands back. A section is a module in
 * bench/sections/ exporting a `Section`; sections share measurements (the runtime floor, the
 * backfill runs, the populated store) through `ctx.once`, so `--only noop` measures the floor
 * itself while a full run measures it once.
 */
import type { Corpus } from "./corpus.ts";

export type Status = "pass" | "miss" | "info" | "n/a";

export interface Target {
  op: ">=" | "<=";
  value: number;
}

export interface Metric {
  id: string;
  label: string;
  /** null when the figure could not be measured (see `detail`). */
  value: number | null;
  unit: string;
  target?: Target;
  status: Status;
  detail?: string;
}

export interface SectionResult {
  metrics: Metric[];
  notes: string[];
  /** Raw samples and anything else worth keeping in latest.json. */
  data?: Record<string, unknown>;
}

export interface Section {
  name: string;
  title: string;
  /** Run only when `--only` names it (it takes long or builds large corpora). */
  optIn?: boolean;
  run(ctx: BenchContext): Promise<SectionResult>;
}

export interface BenchOptions {
  corpusMb: number;
  floorRuns: number;
  backfillRuns: number;
  noopRuns: number;
  halfRuns: number;
  rebuildCorpus: boolean;
  /** A folder holding `projects/` of real transcripts (default: the shared bench corpus). */
  real?: string;
  /** The other projects' real transcripts (default: the shared tarball, unpacked once). */
  realOther?: string;
}

export interface BenchContext {
  /** The checkout (holds mod.ts). */
  repo: string;
  /** bench/out: corpus cache, scenario stores, latest.json. */
  outDir: string;
  /** Scenario folders (stores) for this corpus size. */
  workDir: string;
  corpus: Corpus;
  opts: BenchOptions;
  /** Whether /usr/bin/time is there (peak RSS). */
  gnuTime: boolean;
  /** Runs `fn` once per key for the whole benchmark run; later callers get the same promise. */
  once<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Progress line on stderr. */
  log(msg: string): void;
}

export function metric(
  id: string,
  label: string,
  value: number | null,
  unit: string,
  target?: Target,
  detail?: string,
): Metric {
  let status: Status = target ? "n/a" : "info";
  if (value !== null && Number.isFinite(value) && target) {
    const ok = target.op === ">=" ? value >= target.value : value <= target.value;
    status = ok ? "pass" : "miss";
  }
  const m: Metric = { id, label, value, unit, status };
  if (target) m.target = target;
  if (detail) m.detail = detail;
  return m;
}

export function createContext(
  base: Omit<BenchContext, "once" | "log">,
): BenchContext {
  const memo = new Map<string, Promise<unknown>>();
  return {
    ...base,
    once<T>(key: string, fn: () => Promise<T>): Promise<T> {
      let p = memo.get(key) as Promise<T> | undefined;
      if (!p) {
        p = fn();
        memo.set(key, p);
      }
      return p;
    },
    log(msg: string) {
      const t = new Date().toISOString().slice(11, 19);
      console.error(`[bench ${t}] ${msg}`);
    },
  };
}
