/**
 * `terminus hook <event>`: start a detached archive pass, read the event from stdin, then
 * maybe hand Claude Code some text. Once the event is known this always exits 0; anything
 * wrong is one line on stderr.
 */
import type { Context } from "../core/context.ts";
import { HOOK_DEADLINE_MS, HOOK_STDIN_MAX_BYTES, HOOK_STDIN_WAIT_MS } from "../core/constants.ts";
import { type Config, isExcluded, loadConfig } from "../core/config.ts";
import { ConfigError } from "../core/errors.ts";
import { configMessage, stallMessage } from "../core/setup/warnings.ts";
import { notePassWanted, stalledArchiving } from "../core/ingest/stall.ts";
import { dataDir as resolveDataDir, storePath } from "../core/paths.ts";
import { type Db, openRead } from "../core/store/db.ts";
import { resolveScope } from "../core/recall/scope.ts";
import { egress } from "../core/egress.ts";
import { canonicalJson } from "../core/output.ts";
import { buildBrief } from "../core/inject/brief.ts";
import { recall } from "../core/inject/prompt.ts";
import { spellings } from "../core/inject/spellings.ts";
import { THRESHOLDS } from "../core/inject/thresholds.ts";
import { type DecisionDoc, queueDecision } from "../core/inject/queue.ts";
import { readState, safeSessionId, type SessionState, writeState } from "../core/inject/state.ts";
import { boundaries, sessionNosForId } from "../core/store/inject_sql.ts";
import { claimPassStart } from "../core/ingest/gate.ts";

export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "SessionEnd",
  "PostCompact",
] as const;
export type HookEvent = typeof HOOK_EVENTS[number];

export interface HookResult {
  stdout: string | null;
  stderr: string[];
}

type Payload = Record<string, unknown>;

/** Starts `terminus ingest` in its own session and process group, so it outlives the hook. */
export function spawnIngest(ctx: Context): void {
  const [cmd, ...args] = ctx.self;
  const child = new Deno.Command(cmd, {
    args: [...args, "ingest"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  child.unref();
}

/** Reads at most 1 MiB, waiting at most 500 ms. */
async function readStdin(): Promise<{ text: string | null; problem: string | null }> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const deadline = Date.now() + HOOK_STDIN_WAIT_MS;
  const buf = new Uint8Array(64 * 1024);
  while (true) {
    const left = deadline - Date.now();
    if (left <= 0) {
      return { text: null, problem: `no complete event on stdin within ${HOOK_STDIN_WAIT_MS} ms` };
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const n = await Promise.race([
      Deno.stdin.read(buf),
      new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), left))),
    ]);
    clearTimeout(timer);
    if (n === "timeout") {
      return { text: null, problem: `no complete event on stdin within ${HOOK_STDIN_WAIT_MS} ms` };
    }
    if (n === null) break;
    total += n;
    if (total > HOOK_STDIN_MAX_BYTES) {
      return { text: null, problem: `the event on stdin is over ${HOOK_STDIN_MAX_BYTES} bytes` };
    }
    chunks.push(buf.slice(0, n));
    // A caller that leaves stdin open still gets an answer as soon as the object is whole.
    if (buf[n - 1] === 0x7d /* } */ || buf[n - 1] === 0x0a) {
      const text = new TextDecoder().decode(concat(chunks, total));
      try {
        JSON.parse(text);
        return { text, problem: null };
      } catch { /* not whole yet */ }
    }
  }
  return { text: new TextDecoder().decode(concat(chunks, total)), problem: null };
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  const all = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    all.set(c, o);
    o += c.length;
  }
  return all;
}

function output(event: HookEvent, text: string | null, warning: string | null = null): string {
  return canonicalJson({
    ...(text === null
      ? {}
      : { hookSpecificOutput: { hookEventName: event, additionalContext: text } }),
    ...(warning === null ? {} : { systemMessage: warning }),
  }) + "\n";
}

/** The one stderr line of a hook that had something to hand over and ran out of time. */
export function deadlineLine(event: HookEvent): string {
  return `terminus hook ${event}: past the ${HOOK_DEADLINE_MS} ms deadline; nothing handed over`;
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export async function runHook(event: HookEvent, ctx: Context): Promise<HookResult> {
  const res: HookResult = { stdout: null, stderr: [] };
  // resolved once (it may read the recorded data location); an error is met again below
  let dataDir: string | null = null;
  try {
    dataDir = resolveDataDir(ctx.env);
    // A burst of prompts starts one pass, not one each; a session's start and end always do.
    const always = event === "SessionStart" || event === "SessionEnd";
    if (claimPassStart(dataDir, always)) {
      spawnIngest(ctx);
      notePassWanted(dataDir);
    }
  } catch (e) {
    res.stderr.push(
      `terminus hook: the archive pass could not be started: ${(e as Error).message}`,
    );
  }
  const input = await readStdin();
  if (input.problem) {
    res.stderr.push(`terminus hook ${event}: ${input.problem}`);
    return res;
  }
  let payload: Payload = {};
  if (input.text && input.text.trim() !== "") {
    try {
      const v = JSON.parse(input.text);
      if (v && typeof v === "object" && !Array.isArray(v)) payload = v as Payload;
      else throw new Error("not a JSON object");
    } catch (e) {
      res.stderr.push(
        // the parser quotes the input, newlines included: one line on stderr, always
        `terminus hook ${event}: the event on stdin is not a JSON object (${
          (e as Error).message.replace(/\s+/g, " ")
        })`,
      );
      return res;
    }
  }
  const started = performance.now();
  const late = () => performance.now() - started > HOOK_DEADLINE_MS;
  // On SessionStart the person hears, in one line Claude Code shows them (not the model),
  // when archiving has stopped: a config that does not load, or a day of passes unfinished.
  let warning: string | null = null;
  try {
    const cfg = loadConfig(ctx.env);
    if (event === "SessionStart" && dataDir) warning = stallMessage(stalledArchiving(dataDir));
    const h = new Handler(event, payload, cfg, dataDir ?? resolveDataDir(ctx.env), late);
    const text = h.run();
    for (const p of h.problems) res.stderr.push(`terminus hook ${event}: ${p}`);
    if (text !== null && !late()) res.stdout = output(event, text, warning);
    else if (text !== null || h.missedDeadline) res.stderr.push(deadlineLine(event));
  } catch (e) {
    if (e instanceof ConfigError && event === "SessionStart") warning = configMessage(e.message);
    res.stderr.push(`terminus hook ${event}: ${(e as Error).message.split("\n")[0]}`);
  }
  if (warning !== null && res.stdout === null) res.stdout = output(event, null, warning);
  return res;
}

class Handler {
  /** Something was found but the deadline had passed, so it was dropped. */
  missedDeadline = false;
  sessionId: string | null;
  cwd: string | null;
  /** Writes that failed: each is a stderr line, and none costs the text handed over. */
  problems: string[] = [];
  #db: Db | null | undefined;

  constructor(
    readonly event: HookEvent,
    readonly payload: Payload,
    readonly cfg: Config,
    readonly dataDir: string,
    readonly late: () => boolean,
  ) {
    this.sessionId = safeSessionId(payload.session_id);
    this.cwd = str(payload.cwd);
  }

  /** A read-only or full data directory loses the state or log record, never the answer. */
  save(what: string, write: () => void): void {
    try {
      write();
    } catch (e) {
      this.problems.push(`${what} could not be written: ${(e as Error).message.split("\n")[0]}`);
    }
  }

  /** The store, opened read-only at most once; null when there is none. */
  db(): Db | null {
    if (this.#db === undefined) {
      const o = openRead(storePath(this.dataDir));
      this.#db = o ? o.db : null;
    }
    return this.#db;
  }

  run(): string | null {
    try {
      switch (this.event) {
        case "SessionStart":
          return this.sessionStart();
        case "UserPromptSubmit":
          return this.prompt();
        case "PostCompact": {
          if (!this.sessionId) return null;
          const st = readState(this.dataDir, this.sessionId);
          if (this.oweCompaction(st)) {
            this.save("the session state", () => writeState(this.dataDir, this.sessionId!, st));
          }
          return null;
        }
        default:
          return null; // SessionEnd hands over nothing
      }
    } finally {
      this.#db?.close();
    }
  }

  /** Marks the next prompt as owed the post-compaction look; true when the state changed. */
  oweCompaction(st: SessionState): boolean {
    if (!this.sessionId || st.compaction_owed) return false;
    const db = this.db();
    const known = db ? boundaries(db, sessionNosForId(db, this.sessionId)).length : 0;
    st.compaction_owed = { known_boundaries: known };
    return true;
  }

  sessionStart(): string | null {
    // One read and at most one write of the session's state, whatever the outcome.
    const st = this.sessionId ? readState(this.dataDir, this.sessionId) : null;
    let changed = false;
    try {
      if (st && str(this.payload.source) === "compact") changed = this.oweCompaction(st);
      // Where the session started is kept even when nothing is handed over: a session that
      // starts in an excluded project stays unlogged after a cd.
      if (st && st.start_project === null && this.cwd) {
        st.start_project = this.cwd;
        changed = true;
      }
      if (!this.cwd || isExcluded(this.cfg, this.cwd)) return null;
      const db = this.db();
      if (!db) return null;
      const scope = resolveScope(db, this.cfg, this.cwd, undefined);
      if (st && scope.ok && scope.vis.project && st.start_project === this.cwd) {
        st.start_project = scope.vis.project;
        changed = true;
      }
      if (!scope.ok || scope.vis.project === null) return null;
      const brief = buildBrief(
        db,
        { ...scope.vis, project: scope.vis.project },
        this.cfg.injection.briefChars,
        egress(this.cfg.privacy.redactRecall),
      );
      if (!brief) return null;
      if (st && brief.quoted.length) {
        st.brief_quoted = [...new Set([...st.brief_quoted, ...brief.quoted])];
        changed = true;
      }
      return brief.text;
    } finally {
      if (st && changed) {
        this.save("the session state", () => writeState(this.dataDir, this.sessionId!, st));
      }
    }
  }

  prompt(): string | null {
    const prompt = typeof this.payload.prompt === "string" ? this.payload.prompt : "";
    const st = this.sessionId ? readState(this.dataDir, this.sessionId) : null;
    // An excluded project's prompts are neither answered nor logged, even after a cd.
    if (isExcluded(this.cfg, this.cwd) || isExcluded(this.cfg, st?.start_project)) return null;
    const names = spellings(prompt, this.cwd, THRESHOLDS.max_candidates);
    const doc: DecisionDoc = {
      session_id: this.sessionId,
      at: new Date().toISOString(),
      cwd: this.cwd,
      project: null,
      prompt,
      spellings: names,
      candidates: [],
      injected: [],
      suppressed: [],
      compacted: false,
      dropped: 0,
      thresholds: { ...THRESHOLDS },
      watermark: 0,
      note: null,
    };
    let text: string | null = null;
    try {
      if (names.length === 0) doc.note = "the prompt names no path or identifier";
      else text = this.recall(doc, names, st);
    } finally {
      if (this.late() && text !== null) {
        doc.note = "past the deadline: nothing handed over";
        doc.injected = [];
        text = null;
        this.missedDeadline = true;
      }
      this.save("the decision log", () => queueDecision(this.dataDir, doc));
      if (text !== null && this.sessionId && st) {
        st.injected = [...new Set([...st.injected, ...doc.injected.map((i) => i.id)])];
        this.save("the session state", () => writeState(this.dataDir, this.sessionId!, st));
      }
    }
    return text;
  }

  recall(
    doc: DecisionDoc,
    names: string[],
    st: ReturnType<typeof readState> | null,
  ): string | null {
    if (!this.cwd) {
      doc.note = "the event names no working directory";
      return null;
    }
    const db = this.db();
    if (!db) {
      doc.note = "no store yet";
      return null;
    }
    const scope = resolveScope(db, this.cfg, this.cwd, undefined);
    if (!scope.ok) {
      doc.note = scope.reason;
      return null;
    }
    doc.project = scope.vis.project;
    const suppress = new Map<number, string>();
    for (const id of st?.injected ?? []) suppress.set(id, "already handed over in this session");
    for (const id of st?.brief_quoted ?? []) suppress.set(id, "quoted by the brief");
    const r = recall({
      db,
      vis: scope.vis,
      sessionId: this.sessionId,
      spellings: names,
      thresholds: THRESHOLDS,
      suppress,
      owedKnown: st?.compaction_owed ? st.compaction_owed.known_boundaries : null,
      promptChars: this.cfg.injection.promptChars,
      filter: egress(this.cfg.privacy.redactRecall),
    });
    doc.candidates = r.selection.candidates;
    doc.suppressed = r.selection.suppressed;
    doc.injected = r.injected;
    doc.compacted = r.compacted;
    doc.dropped = r.dropped;
    doc.watermark = r.watermark;
    if (r.compacted && st && this.sessionId) {
      st.compaction_owed = null; // the wider look is spent on this one prompt
      this.save("the session state", () => writeState(this.dataDir, this.sessionId!, st));
    }
    return r.text;
  }
}
