/**
 * Helpers for the read-command tests: a transcript writer that speaks Claude Code's record
 * shapes, and a world of real project folders archived by a real `terminus ingest`.
 * Built on tests/helpers.ts (the sandbox and the CLI runner); nothing here mocks anything.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  cliOk,
  type CliOptions,
  type CliResult,
  type Envelope,
  parseEnvelope,
  runCli,
  type Sandbox,
  sandbox,
  writeConfig,
  writeTranscript,
} from "./helpers.ts";

export type Rec = Record<string, unknown>;

/** A transcript under construction: every record carries the fields Claude Code writes. */
export class Transcript {
  readonly lines: string[] = [];
  /** The uuid of each turn written, in byte order. */
  readonly turns: string[] = [];
  #last: string | null = null;
  #t: number;
  #next = false;
  #lastToolId = "toolu_none";

  constructor(
    readonly o: {
      sessionId: string;
      cwd: string;
      start: string;
      branch?: string | null;
      sidechain?: boolean;
      /** Milliseconds between records when no `at` is given. */
      stepMs?: number;
    },
  ) {
    this.#t = Date.parse(o.start);
  }

  /** Sets the next record's timestamp. */
  at(ts: string): this {
    this.#t = Date.parse(ts);
    this.#next = false;
    return this;
  }

  #stamp(): string {
    if (this.#next) this.#t += this.o.stepMs ?? 1000;
    this.#next = true;
    return new Date(this.#t).toISOString();
  }

  #base(type: string, extra: Rec = {}): Rec {
    const uuid = crypto.randomUUID();
    const r: Rec = {
      parentUuid: this.#last,
      isSidechain: this.o.sidechain ?? false,
      userType: "external",
      cwd: this.o.cwd,
      sessionId: this.o.sessionId,
      version: "2.1.328",
      ...(this.o.branch === null ? {} : { gitBranch: this.o.branch ?? "main" }),
      type,
      uuid,
      timestamp: this.#stamp(),
      ...extra,
    };
    this.#last = uuid;
    return r;
  }

  /** Adds a turn record and returns its uuid. */
  turn(type: string, extra: Rec): string {
    const r = this.#base(type, extra);
    this.lines.push(JSON.stringify(r));
    this.turns.push(r.uuid as string);
    return r.uuid as string;
  }

  user(text: string, extra: Rec = {}): string {
    return this.turn("user", { message: { role: "user", content: text }, ...extra });
  }

  assistant(text: string): string {
    return this.turn("assistant", {
      message: { role: "assistant", content: [{ type: "text", text }] },
    });
  }

  /** An assistant turn calling one tool; returns its uuid (the tool_use id is `toolu_<line no>`). */
  toolUse(name: string, input: Rec, text?: string): string {
    const id = `toolu_${this.lines.length}`;
    this.#lastToolId = id;
    const content: Rec[] = [];
    if (text) content.push({ type: "text", text });
    content.push({ type: "tool_use", id, name, input });
    return this.turn("assistant", { message: { role: "assistant", content } });
  }

  /** The user turn carrying the last tool call's result. */
  toolResult(content: string, o: { isError?: boolean; toolUseResult?: unknown } = {}): string {
    return this.turn("user", {
      message: {
        role: "user",
        content: [{
          type: "tool_result",
          tool_use_id: this.#lastToolId,
          content,
          ...(o.isError ? { is_error: true } : {}),
        }],
      },
      ...(o.toolUseResult !== undefined ? { toolUseResult: o.toolUseResult } : {}),
    });
  }

  /** A record that is not a turn (no uuid/timestamp, or another type). */
  state(r: Rec): this {
    this.lines.push(JSON.stringify(r));
    return this;
  }

  /** A line written exactly as given (it may be invalid UTF-8 once encoded by the caller). */
  raw(line: string): this {
    this.lines.push(line);
    return this;
  }

  text(): string {
    return this.lines.map((l) => l + "\n").join("");
  }
}

export interface World extends AsyncDisposable {
  sb: Sandbox;
  /** Runs the CLI from `cwd` (default: the sandbox folder, which no project covers). */
  run(args: string[], opts?: CliOptions): Promise<CliResult>;
  /** Runs with --json appended and returns the parsed envelope; fails on an unexpected code. */
  json(args: string[], opts?: CliOptions & { code?: number }): Promise<Envelope>;
  /** Turn ids by uuid, read from the store read-only. */
  ids(): Map<string, number>;
  /** A project folder (created) under the sandbox. */
  dir(name: string): string;
}

/** A fresh sandbox with real project folders; call `ingest` once transcripts are written. */
export async function world(toml?: string): Promise<World> {
  const sb = await sandbox();
  if (toml !== undefined) await writeConfig(sb, toml);
  const w: World = {
    sb,
    run: (args, opts = {}) => runCli(sb, args, opts),
    async json(args, opts = {}) {
      const r = await cliOk(sb, [...args, "--json"], opts);
      return parseEnvelope(r.out);
    },
    ids() {
      const db = new DatabaseSync(sb.store, { readOnly: true });
      try {
        const rows = db.prepare("SELECT id, uuid FROM turns").all() as {
          id: number;
          uuid: string;
        }[];
        return new Map(rows.map((r) => [r.uuid, r.id]));
      } finally {
        db.close();
      }
    },
    dir(name: string) {
      const d = join(sb.dir, name);
      Deno.mkdirSync(d, { recursive: true });
      return d;
    },
    async [Symbol.asyncDispose]() {
      await sb[Symbol.asyncDispose]();
    },
  };
  return w;
}

/** Writes a transcript under the sandbox's Claude root and returns its path. */
export function put(w: World, t: Transcript, rel?: string): Promise<string> {
  return writeTranscript(w.sb.claude, t.o.cwd, rel ?? `${t.o.sessionId}.jsonl`, t.text());
}

export async function ingest(w: World): Promise<void> {
  await cliOk(w.sb, ["ingest"]);
}

/** Splits bytes on `\n` (the last piece is dropped when the input ends in a newline). */
export function splitLines(b: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let s = 0;
  for (let i = 0; i < b.length; i++) {
    if (b[i] === 0x0a) {
      out.push(b.subarray(s, i));
      s = i + 1;
    }
  }
  if (s < b.length) out.push(b.subarray(s));
  return out;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Holds the ingest lock from this process, the way another Terminus process would. */
export async function holdLock(dataDir: string): Promise<{ release(): void }> {
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const f = await Deno.open(join(dataDir, "LOCK"), { read: true, write: true, create: true });
  const got = await f.tryLock(true);
  if (!got) {
    f.close();
    throw new Error("the test could not take the ingest lock itself");
  }
  return {
    release() {
      f.unlockSync();
      f.close();
    },
  };
}

export type Hit = {
  turn_id: number;
  session_key: string;
  project: string | null;
  record_type: string;
  ts: string | null;
  sidechain: boolean;
  relevance: number;
  entity_score: number;
  matched_on: { kind: string; value: string }[];
  excerpt: string;
};

export function hitsOf(env: Envelope): Hit[] {
  return (env.data as { hits: Hit[] }).hits;
}

/** Whether text holds a control character a terminal would act on (anything but tab and newline). */
export function hasRawControl(s: string): boolean {
  for (const c of s) {
    const n = c.charCodeAt(0);
    if ((n < 0x20 && n !== 0x09 && n !== 0x0a) || (n >= 0x7f && n <= 0x9f)) return true;
  }
  return false;
}
