/**
 * The hook's policy, as one use case: given an event's payload and a context that supplies the
 * store, the files and the clock, decide what to hand Claude Code, render it, check the 50 ms
 * deadline once, and only then say what is to be recorded. hooks/run.ts only reads stdin,
 * parses the payload and writes the answer.
 *
 * Nothing is recorded before the answer is settled: the session state learns that turns were
 * handed over (or quoted by the brief) only when `record(true)` says their text was written, and
 * a decision that ran late is logged with the reason it was dropped.
 */
import { HOOK_DEADLINE_MS } from "../constants.ts";
import { type Config, isExcluded } from "../config.ts";
import type { Db } from "../store/db.ts";
import { resolveScope } from "../open.ts";
import { egress } from "../egress.ts";
import { boundaries, sessionNosForId } from "../store/inject_sql.ts";
import { buildBrief } from "./brief.ts";
import { decidePrompt, promptNames } from "./prompt.ts";
import { THRESHOLDS } from "./thresholds.ts";
import { type DecisionDoc, lateNote } from "./queue.ts";
import { safeSessionId, type SessionState } from "./state.ts";

export type HookEvent = "SessionStart" | "UserPromptSubmit" | "SessionEnd" | "PostCompact";

/** What the use case reads and writes, and the clock its deadline runs on. */
export interface HookContext {
  cfg: Config;
  /** Milliseconds on a monotonic clock; the deadline is measured on it. */
  clock: () => number;
  /** When the deadline started, on `clock` (default: when the use case is called). */
  startedAt?: number;
  /** Milliseconds the process had run before the deadline started, for the decision log. */
  beforeMs?: number;
  /** The wall-clock time a decision is stamped with. */
  now: () => Date;
  /** The store, read-only; null when there is none yet. Called at most once. */
  openStore: () => Db | null;
  readState: (sessionId: string) => SessionState;
  writeState: (sessionId: string, st: SessionState) => void;
  queueDecision: (doc: DecisionDoc) => void;
  /** The home directory, for a prompt's `~/` paths. */
  home: string | null;
}

export interface HookAnswer {
  /** The text to hand over, or null. */
  text: string | null;
  /** Something was found but the deadline had passed, so it was dropped. */
  late: boolean;
  /** Milliseconds from the start of the decision to the deadline check. */
  elapsedMs: number;
  /** Problems met while deciding (one stderr line each). */
  problems: string[];
  /**
   * Writes the decision log and the session state. Call once, after the answer was written
   * (`written` false when it could not be): what was not written is not recorded as handed
   * over. Returns the writes that failed, one stderr line each.
   */
  record: (written: boolean) => string[];
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** One change of the session state, applied only if it should be recorded. */
interface Pending {
  /** Recorded whatever was written (where the session started, a compaction owed). */
  always: ((st: SessionState) => boolean)[];
  /** Recorded only when the text was written (turns handed over, the brief's quotes). */
  ifWritten: ((st: SessionState) => boolean)[];
  doc: DecisionDoc | null;
}

export function answerHook(event: HookEvent, payload: Record<string, unknown>, ctx: HookContext) {
  return new Decider(event, payload, ctx).answer();
}

class Decider {
  readonly sessionId: string | null;
  readonly cwd: string | null;
  #db: Db | null | undefined;
  #state: SessionState | null | undefined;
  problems: string[] = [];
  pending: Pending = { always: [], ifWritten: [], doc: null };

  constructor(
    readonly event: HookEvent,
    readonly payload: Record<string, unknown>,
    readonly ctx: HookContext,
  ) {
    this.sessionId = safeSessionId(payload.session_id);
    this.cwd = str(payload.cwd);
  }

  db(): Db | null {
    if (this.#db === undefined) this.#db = this.ctx.openStore();
    return this.#db;
  }

  /** The session's state, read once: every change to it is one write at the end. */
  state(): SessionState | null {
    if (this.#state === undefined) {
      this.#state = this.sessionId ? this.ctx.readState(this.sessionId) : null;
    }
    return this.#state;
  }

  answer(): HookAnswer {
    const started = this.ctx.startedAt ?? this.ctx.clock();
    let text: string | null = null;
    try {
      switch (this.event) {
        case "SessionStart":
          text = this.sessionStart();
          break;
        case "UserPromptSubmit":
          text = this.prompt();
          break;
        case "PostCompact":
          this.oweCompaction();
          break;
        default:
          break; // SessionEnd hands over nothing
      }
    } finally {
      this.#db?.close();
    }
    // The one deadline check: after the text is rendered, before anything is recorded.
    const elapsedMs = this.ctx.clock() - started;
    const late = elapsedMs > HOOK_DEADLINE_MS && text !== null;
    const doc = this.pending.doc;
    if (doc) {
      doc.elapsed_ms = Math.round(elapsedMs * 10) / 10;
      doc.late = late;
      if (this.ctx.beforeMs !== undefined) doc.before_ms = Math.round(this.ctx.beforeMs * 10) / 10;
      if (late) {
        doc.note = lateNote(elapsedMs);
        doc.injected = [];
      }
    }
    if (late) text = null;
    let recorded = false;
    return {
      text,
      late,
      elapsedMs,
      problems: this.problems,
      record: (written) => {
        if (recorded) return [];
        recorded = true;
        return this.record(written && text !== null);
      },
    };
  }

  record(written: boolean): string[] {
    const failed: string[] = [];
    const save = (what: string, write: () => void) => {
      try {
        write();
      } catch (e) {
        failed.push(`${what} could not be written: ${(e as Error).message.split("\n")[0]}`);
      }
    };
    const doc = this.pending.doc;
    if (doc && !written && doc.injected.length) {
      // rendered in time but never reached Claude Code: nothing was handed over
      doc.note = "the answer could not be written: nothing handed over";
      doc.injected = [];
    }
    if (doc) save("the decision log", () => this.ctx.queueDecision(doc));
    const st = this.state();
    if (st && this.sessionId) {
      let changed = false;
      for (const f of this.pending.always) changed = f(st) || changed;
      if (written) { for (const f of this.pending.ifWritten) changed = f(st) || changed; }
      if (changed) save("the session state", () => this.ctx.writeState(this.sessionId!, st));
    }
    return failed;
  }

  /** Marks the next prompt as owed the post-compaction look. */
  oweCompaction(): void {
    const st = this.state();
    if (!this.sessionId || !st || st.compaction_owed) return;
    const db = this.db();
    const known = db ? boundaries(db, sessionNosForId(db, this.sessionId)).length : 0;
    this.pending.always.push((s) => {
      s.compaction_owed = { known_boundaries: known };
      return true;
    });
  }

  sessionStart(): string | null {
    const st = this.state();
    if (st && str(this.payload.source) === "compact") this.oweCompaction();
    // Where the session started is kept even when nothing is handed over: a session that
    // starts in an excluded project stays unlogged after a cd.
    let startProject = st && st.start_project === null && this.cwd ? this.cwd : null;
    const keepStart = () => {
      const p = startProject;
      if (p !== null) {
        this.pending.always.push((s) => {
          s.start_project = p;
          return true;
        });
      }
    };
    if (!this.cwd || isExcluded(this.ctx.cfg, this.cwd)) return keepStart(), null;
    const db = this.db();
    if (!db) return keepStart(), null;
    const scope = resolveScope(db, this.ctx.cfg, this.cwd, undefined);
    if (st && scope.ok && scope.vis.project && startProject !== null) {
      startProject = scope.vis.project;
    }
    keepStart();
    if (!scope.ok || scope.vis.project === null) return null;
    const brief = buildBrief(
      db,
      { ...scope.vis, project: scope.vis.project },
      this.ctx.cfg.injection.briefChars,
      egress(this.ctx.cfg.privacy.redactRecall),
    );
    if (!brief) return null;
    if (brief.quoted.length) {
      this.pending.ifWritten.push((s) => {
        s.brief_quoted = [...new Set([...s.brief_quoted, ...brief.quoted])];
        return true;
      });
    }
    return brief.text;
  }

  prompt(): string | null {
    const prompt = typeof this.payload.prompt === "string" ? this.payload.prompt : "";
    const st = this.state();
    // An excluded project's prompts are neither answered nor logged, even after a cd.
    if (isExcluded(this.ctx.cfg, this.cwd) || isExcluded(this.ctx.cfg, st?.start_project)) {
      return null;
    }
    // every name the prompt holds (up to RECALL_NAMES_SEEN): the lookup keeps the rarest 8
    const names = promptNames(prompt, this.cwd, this.ctx.home);
    const doc: DecisionDoc = {
      session_id: this.sessionId,
      at: this.ctx.now().toISOString(),
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
      elapsed_ms: 0,
      late: false,
    };
    this.pending.doc = doc;
    if (names.length === 0) {
      doc.note = "the prompt names no path or identifier";
      return null;
    }
    if (!this.cwd) {
      doc.note = "the event names no working directory";
      return null;
    }
    const db = this.db();
    if (!db) {
      doc.note = "no store yet";
      return null;
    }
    const scope = resolveScope(db, this.ctx.cfg, this.cwd, undefined);
    if (!scope.ok) {
      doc.note = scope.reason;
      return null;
    }
    doc.project = scope.vis.project;
    const suppress = new Map<number, string>();
    for (const id of st?.injected ?? []) suppress.set(id, "already handed over in this session");
    for (const id of st?.brief_quoted ?? []) suppress.set(id, "quoted by the brief");
    const r = decidePrompt({
      db,
      vis: scope.vis,
      sessionId: this.sessionId,
      names,
      cwd: this.cwd,
      prompt,
      suppress,
      owedKnown: st?.compaction_owed ? st.compaction_owed.known_boundaries : null,
      promptChars: this.ctx.cfg.injection.promptChars,
      filter: egress(this.ctx.cfg.privacy.redactRecall),
    });
    doc.candidates = r.selection.candidates;
    doc.suppressed = r.selection.suppressed;
    doc.injected = r.injected;
    doc.compacted = r.compacted;
    doc.dropped = r.dropped;
    doc.watermark = r.watermark;
    doc.looked_up = r.lookedUp;
    if (r.unheld.length) doc.unheld = r.unheld;
    if (r.common.length) doc.common = r.common;
    if (r.text !== null) {
      const ids = r.injected.map((i) => i.id);
      this.pending.ifWritten.push((s) => {
        s.injected = [...new Set([...s.injected, ...ids])];
        // the wider look is spent on the one prompt that handed its turns over
        if (r.compacted) s.compaction_owed = null;
        return true;
      });
    } else if (r.compacted) {
      // the wider look found nothing to hand over: it was still taken
      this.pending.always.push((s) => {
        s.compaction_owed = null;
        return true;
      });
    }
    return r.text;
  }
}
