/**
 * Recall precision on real transcripts: every typed prompt of a store, in time order, is looked
 * up against what was archived before it, by the hook's own decision (core's `decidePrompt`) and
 * judged by the label rule `stats` uses (a hit: the same session later touches the path or
 * identifier the handed-over turn matched on). Then prompts that name only things never
 * archived, against the whole store: they must get nothing.
 */
import { type Db, openRead } from "../../core/store/db.ts";
import {
  commonFilePathsBelow,
  commonNamesOfProject,
  commonSymbols,
  entityActs,
  entityMentioned,
  mainSessionOf,
  mainSessionStarts,
  mostSessionsProject,
  mostTurnsProject,
  turnTextOf,
  type TypedPromptRow,
  typedPromptRows,
  unquotableCount,
} from "../../core/store/replay_reads.ts";
import {
  decidePrompt,
  namesAPath,
  type PromptDecision,
  type PromptInput,
  promptNames,
} from "../../core/inject/prompt.ts";
import { judgeDecision, recallable as hadRecallable } from "../../core/feedback/replay.ts";
import { PROMPT_CHARS_DEFAULT } from "../../core/constants.ts";

export interface Fired {
  prompt: string;
  spellings: string[];
  turns: { id: number; label: string; matched: string[] }[];
}

export interface RecallReplay {
  prompts: number;
  naming: number;
  fired: number;
  injectedTurns: number;
  hits: number;
  falsePositives: number;
  misses: number;
  /** The lookup's time for every prompt above, the never-archived ones and the named set. */
  lookupMs: number[];
  /** The named set alone: prompts naming the store's most common paths and identifiers. */
  namedMs: number[];
  examples: Fired[];
  never: { prompts: number; fired: number; firedPrompts: string[] };
}

/** Runs `fn` on the store at `path`, opened read-only as core opens it, and closes it. */
function withRead<T>(path: string, fn: (db: Db) => T): T {
  const opened = openRead(path);
  if (!opened) throw new Error(`no store at ${path}`);
  try {
    return fn(opened.db);
  } finally {
    opened.db.close();
  }
}

/** Typed prompts of non-subagent sessions, in time order. */
function typedPrompts(path: string): TypedPromptRow[] {
  return withRead(path, typedPromptRows);
}

/**
 * Prompts naming only what was never archived: invented names, and real archived paths and
 * identifiers with one part changed (a sibling folder, a suffix), so they share words with the
 * archive but are not in it.
 */
export function neverArchivedPrompts(
  path: string,
): { prompt: string; cwd: string; project: string }[] {
  const proj = busiestProject(path);
  if (!proj) return [];
  const cwd = proj.cwd;
  return withRead(path, (db) => {
    const paths = commonFilePathsBelow(db, proj.project, 15);
    const symbols = commonSymbols(db, 15);
    const known = (v: string) => entityMentioned(db, v);
    const out: { prompt: string; cwd: string; project: string }[] = [];
    const add = (prompt: string) => out.push({ prompt, cwd, project: proj.project });
    for (const p of paths) {
      const rel = p.slice(proj.project.length + 1);
      const parts = rel.split("/");
      const file = parts.pop()!;
      const moved = [...parts, "zz_never_archived", file].join("/");
      const renamed = [...parts, file.replace(/(\.[^.]+)$/, "_unseen$1")].join("/");
      if (!known(moved)) add(`fix the failing import in ${moved}`);
      if (!known(renamed)) add(`please review ${renamed} before we merge`);
    }
    for (const s of symbols) {
      const v = s + "Unseen";
      if (!known(v)) add(`is ${v} still used anywhere?`);
    }
    for (
      const p of [
        "add a grep_fallback_never helper",
        "is bash_runner_zz still used",
        "rename QuuxFrobnicatorFactory to FrobFactory",
        "look at src/never/here/parser_zz.ts and tests/never_zz/parser_test.py",
        "why does never_seen_function_xyz fail on CI",
      ]
    ) add(p);
    return out;
  });
}

/**
 * The lookup's worst cases: prompts naming the most common archived paths and identifiers of
 * the busiest project, one at a time and eight at once (the most one prompt looks up).
 */
export function namedPrompts(path: string): { prompt: string; cwd: string; project: string }[] {
  return withRead(path, (db) => {
    const proj = mostTurnsProject(db);
    if (!proj) return [];
    const common = (kind: string) =>
      commonNamesOfProject(db, kind, proj.project, 100).filter((v) => !/\s/.test(v));
    const names = [...common("path"), ...common("symbol")];
    const out: { prompt: string; cwd: string; project: string }[] = [];
    const cwd = proj.cwd ?? proj.project;
    for (const n of names) out.push({ prompt: `look at ${n}`, cwd, project: proj.project });
    for (let i = 0; i + 8 <= names.length; i += 8) {
      out.push({
        prompt: `compare ${names.slice(i, i + 8).join(" ")}`,
        cwd,
        project: proj.project,
      });
    }
    return out;
  });
}

/** Counts a fired decision's labels into `res`, and lists its turns with what they matched. */
function tally(
  labels: ReturnType<typeof judgeDecision>,
  r: PromptDecision,
  res: { hits: number; falsePositives: number },
): Fired["turns"] {
  const turns: Fired["turns"] = [];
  for (const l of labels) {
    if (l.label === "hit") res.hits++;
    else if (l.label === "false positive") res.falsePositives++;
    if (l.turnId !== null) {
      const t = r.turns.find((x) => x.id === l.turnId);
      turns.push({
        id: l.turnId,
        label: l.label,
        matched: (t?.matched ?? []).map((m) => `${m.kind} ${m.value}`),
      });
    }
  }
  return turns;
}

/** The hook's decision with no compaction owed, the default budget and no egress filter. */
function decide(
  db: Db,
  p: Omit<PromptInput, "db" | "owedKnown" | "promptChars" | "filter">,
): PromptDecision {
  return decidePrompt({
    db,
    ...p,
    owedKnown: null,
    promptChars: PROMPT_CHARS_DEFAULT,
    filter: (s) => s,
  });
}

export interface NamedPrompt {
  prompt: string;
  cwd: string;
  project: string;
}

/**
 * The live decision for a prompt typed in a session of its own (nothing visible, nothing
 * handed over yet), with no time bound: what a hook on this store would decide now.
 */
export function freshRecall(db: Db, n: NamedPrompt): PromptDecision {
  return decide(db, {
    vis: { project: n.project, exclude: [] },
    sessionId: "00000000-0000-4000-8000-000000000000",
    cwd: n.cwd,
    prompt: n.prompt,
    suppress: new Map(),
  });
}

export function replayRecall(storePath: string, keepExamples = 12): RecallReplay {
  const rows = typedPrompts(storePath);
  const opened = openRead(storePath);
  if (!opened) throw new Error(`no store at ${storePath}`);
  const db = opened.db;
  const res: RecallReplay = {
    prompts: rows.length,
    naming: 0,
    fired: 0,
    injectedTurns: 0,
    hits: 0,
    falsePositives: 0,
    misses: 0,
    lookupMs: [],
    namedMs: [],
    examples: [],
    never: { prompts: 0, fired: 0, firedPrompts: [] },
  };
  const injectedBySession = new Map<string, Set<number>>();
  try {
    for (const p of rows) {
      const names = promptNames(p.text, p.cwd);
      if (!names.length || !p.project) continue;
      res.naming++;
      const st = injectedBySession.get(p.sessionId ?? "") ?? new Set<number>();
      const suppress = new Map([...st].map((id) => [id, "already handed over in this session"]));
      const t0 = performance.now();
      const r = decide(db, {
        vis: { project: p.project, exclude: [] },
        sessionId: p.sessionId,
        names,
        cwd: p.cwd,
        prompt: p.text,
        suppress,
        beforeTs: p.ts,
      });
      res.lookupMs.push(performance.now() - t0);
      const labels = p.sessionId ? judgeDecision(db, r, p.sessionId, p.ts) : [];
      res.misses += labels.filter((l) => l.label === "miss").length;
      if (!r.injected.length) continue;
      res.fired++;
      res.injectedTurns += r.injected.length;
      for (const i of r.injected) st.add(i.id);
      injectedBySession.set(p.sessionId ?? "", st);
      const fired: Fired = {
        prompt: p.text.slice(0, 160),
        spellings: names,
        turns: tally(labels, r, res),
      };
      if (res.examples.length < keepExamples) res.examples.push(fired);
    }
    const fresh = (n: NamedPrompt) => {
      const t0 = performance.now();
      const r = freshRecall(db, n);
      const ms = performance.now() - t0;
      res.lookupMs.push(ms);
      return { r, ms };
    };
    for (const n of namedPrompts(storePath)) res.namedMs.push(fresh(n).ms);
    for (const n of neverArchivedPrompts(storePath)) {
      res.never.prompts++;
      if (fresh(n).r.injected.length) {
        res.never.fired++;
        res.never.firedPrompts.push(n.prompt);
      }
    }
  } finally {
    db.close();
  }
  return res;
}

/* ---------- plan replay ---------- */

export interface PlanReplay {
  /** The held-out split (null: each prompt against everything archived before it). */
  split: { share: number; before: number; after: number } | null;
  /** Sessions whose first typed input is a plan or a long prompt naming files. */
  plans: number;
  /** Of those, the ones with something to recall: a thing the session went on to touch that an
   * earlier session's quotable turn already carried. */
  recallable: number;
  /** Recallable plans that were handed at least one turn labelled a hit. */
  useful: number;
  fired: number;
  injectedTurns: number;
  hits: number;
  falsePositives: number;
  /** Handed-over turns that were tool results (or any record but a prompt or a reply): 0. */
  toolResults: number;
  /** Fired prompts whose first turn was the Read/Edit/Write/Grep of what it matched on. */
  firstDirect: number;
  /** Fired prompts whose first turn was a git line that only lists it (a commit). */
  firstListing: number;
  lookupMs: number[];
  examples: (Fired & { recallable: boolean })[];
}

/** A plan replay with nothing counted yet. */
function emptyPlanReplay(split: PlanReplay["split"]): PlanReplay {
  return {
    split,
    plans: 0,
    recallable: 0,
    useful: 0,
    fired: 0,
    injectedTurns: 0,
    hits: 0,
    falsePositives: 0,
    toolResults: 0,
    firstDirect: 0,
    firstListing: 0,
    lookupMs: [],
    examples: [],
  };
}

/** Plan-shaped or long: what a person pastes to start a session's work. */
const PLAN = /^\s*(#{1,3} |implement the following plan|plan:|\*\*plan)/i;
/**
 * The summary a compaction opens a continued session with. Claude Code 1.x writes it as a plain
 * user record (later versions mark it `isCompactSummary`); no person typed it and no prompt hook
 * runs on it, so no replay takes it for a prompt.
 */
const CONTINUED = /^This session is being continued from a previous conversation/;
const LONG_PROMPT_CHARS = 400;

interface PlanPrompt {
  ts: string;
  text: string;
  sessionId: string;
  cwd: string | null;
  /** Where the plan came from: typed, or the plan file a slash command had read. */
  source: "typed" | "plan file";
}

type J = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) =>
    b && typeof b === "object" && typeof (b as J).text === "string" ? (b as J).text as string : ""
  ).join("\n");
}

/**
 * Each main session's plan, read from its transcript: its first typed input when that is
 * plan-shaped or long; when it is a slash command (`/erk:plan-implement 8402`), the plan file
 * the session then read (the first Read result of a `plan.md`, or of a file opening `# Plan`),
 * at that result's time. Sessions with neither are left out.
 */
export function planPrompts(root: string): PlanPrompt[] {
  const out: PlanPrompt[] = [];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(dir)) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory && e.name !== "subagents") walk(p);
      else if (e.isFile && e.name.endsWith(".jsonl")) {
        const plan = planOf(p);
        if (plan) out.push(plan);
      }
    }
  };
  walk(`${root}/projects`);
  return out.sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0));
}

function planOf(file: string): PlanPrompt | null {
  let slash = false;
  for (const line of Deno.readTextFileSync(file).split("\n")) {
    let r: J;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (r.isSidechain === true || typeof r.timestamp !== "string") continue;
    const msg = r.message as J | undefined;
    if (r.type === "user" && msg && r.isMeta !== true && !slash) {
      const text = textOf(msg.content);
      const isResult = Array.isArray(msg.content) &&
        (msg.content as J[]).some((b) => b && b.type === "tool_result");
      if (isResult || text.trim() === "") continue;
      if (CONTINUED.test(text)) return null; // a continued session: it opens with no plan
      if (text.includes("<command-name>")) {
        slash = true;
        continue;
      }
      if (PLAN.test(text) || text.length >= LONG_PROMPT_CHARS) {
        return {
          ts: r.timestamp,
          text,
          sessionId: String(r.sessionId),
          cwd: (r.cwd as string) ?? null,
          source: "typed",
        };
      }
      return null; // a short first prompt: no plan to replay
    }
    if (slash && r.type === "user") {
      const tur = r.toolUseResult as J | undefined;
      const f = tur && typeof tur === "object" ? tur.file as J | undefined : undefined;
      const path = f && typeof f.filePath === "string" ? f.filePath : "";
      const content = f && typeof f.content === "string" ? f.content : "";
      if (content && (path.endsWith("/plan.md") || /^\s*# Plan/.test(content))) {
        return {
          ts: r.timestamp,
          text: content,
          sessionId: String(r.sessionId),
          cwd: (r.cwd as string) ?? null,
          source: "plan file",
        };
      }
    }
  }
  return null;
}

/** A held-out split by time: per project, the share of its sessions kept as the store. */
export interface Split {
  share: number;
  /** Per project: the first turn time of its first held-out session. */
  at: Map<string, string>;
  /** Main sessions before and at or after their project's split (projects with 2 or more). */
  before: number;
  after: number;
}

/**
 * Where a held-out split falls: each project's main sessions in order of their first turn, and
 * the first turn time of the one at `share` of them. The store as it stood then holds only the
 * project's sessions before it; a project of one session holds nothing out.
 */
export function splitAt(db: Db, share: number): Split {
  const rows = mainSessionStarts(db);
  const by = new Map<string, string[]>();
  for (const r of rows) {
    let l = by.get(r.project);
    if (!l) by.set(r.project, l = []);
    l.push(r.ts);
  }
  const out: Split = { share, at: new Map(), before: 0, after: 0 };
  for (const [project, starts] of by) {
    const i = Math.floor(share * starts.length);
    if (i <= 0 || i >= starts.length) continue;
    out.at.set(project, starts[i]);
    out.before += i;
    out.after += starts.length - i;
  }
  return out;
}

export interface PlanReplayOptions {
  keepExamples?: number;
  /**
   * Held out: each project's main sessions are split by time at this share; only the later
   * sessions are replayed, each against the store as it stood at its project's split (the
   * earlier sessions alone: none of the later ones, not even the session's own earlier turns).
   */
  split?: number;
  /**
   * What is replayed: each session's plan (default), or (held out only; live, `replayRecall`
   * replays typed prompts) every prompt that names a path or an identifier: each one a person
   * typed, and the plan file a slash command then read.
   */
  prompts?: "plans" | "all";
}

/** One prompt to replay: its text, when and where it was typed, and its session. */
interface ReplayPrompt {
  ts: string;
  text: string;
  sessionId: string;
  cwd: string | null;
}

/** Every typed prompt of a main session as a ReplayPrompt, in time order. */
function typedReplayPrompts(path: string): ReplayPrompt[] {
  return typedPrompts(path).filter((p) => p.sessionId !== null && !CONTINUED.test(p.text)).map((
    p,
  ) => ({
    ts: p.ts,
    text: p.text,
    sessionId: p.sessionId!,
    cwd: p.cwd,
  }));
}

/**
 * Each session whose first typed input is a plan (or a long prompt naming a file) is replayed
 * as the hook would see it then: against only what was archived before it, with the session
 * itself live (its own earlier turns visible, so never handed over); or, held out, against the
 * store as it stood at its project's split by time, and then also every later prompt a person
 * typed. Each handed-over turn is labelled by the stats rule: a hit when the session then
 * touched what the turn matched on. A prompt is recallable when some name it holds (every one,
 * not only those the lookup kept; never an everyday word) was touched later by the session and
 * was already carried by an earlier session's quotable turn (looked up with no cap and no
 * commonness rule, so the figure is not the rules grading themselves); it is useful when it got
 * a hit.
 */
export function replayPlans(
  storePath: string,
  root: string,
  opt: PlanReplayOptions = {},
): PlanReplay {
  const keepExamples = opt.keepExamples ?? 12;
  const opened = openRead(storePath);
  if (!opened) throw new Error(`no store at ${storePath}`);
  const db = opened.db;
  const split = opt.split === undefined ? null : splitAt(db, opt.split);
  const res = emptyPlanReplay(
    split ? { share: split.share, before: split.before, after: split.after } : null,
  );
  const all = opt.prompts === "all" && split !== null;
  const source: ReplayPrompt[] = all
    ? [...typedReplayPrompts(storePath), ...planPrompts(root).filter((p) => p.source !== "typed")]
      .sort((a, b) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0))
    : planPrompts(root);
  // what the hook state would hold: turns already handed over in the session
  const handed = new Map<string, Set<number>>();
  try {
    for (const p of source) {
      const at = mainSessionOf(db, p.sessionId);
      if (!at) continue;
      const splitTs = split?.at.get(at.project);
      if (split && !(splitTs !== undefined && at.firstTs !== null && at.firstTs >= splitTs)) {
        continue;
      }
      const names = promptNames(p.text, p.cwd);
      if (all ? !names.length : !namesAPath(names)) {
        continue; // names nothing (a plan: no file)
      }
      res.plans++;
      const bound = splitTs ?? p.ts;
      const vis = { project: at.project, exclude: [] };
      const recallable = hadRecallable(db, {
        names,
        vis,
        cwd: p.cwd,
        before: bound,
        sessionId: p.sessionId,
        sessionNo: at.sessionNo,
        at: p.ts,
      });
      if (recallable) res.recallable++;
      const mine = handed.get(p.sessionId) ?? new Set<number>();
      const t0 = performance.now();
      const r = decide(db, {
        vis,
        // held out, the session is not in the store at all
        sessionId: split ? null : p.sessionId,
        names,
        cwd: p.cwd,
        prompt: p.text,
        suppress: new Map([...mine].map((id) => [id, "already handed over in this session"])),
        beforeTs: bound,
      });
      res.lookupMs.push(performance.now() - t0);
      if (!r.injected.length) continue;
      for (const i of r.injected) mine.add(i.id);
      handed.set(p.sessionId, mine);
      res.fired++;
      res.injectedTurns += r.injected.length;
      // handed-over turns that are not a typed prompt or a reply (the spec says: never)
      res.toolResults += unquotableCount(db, r.injected.map((i) => i.id));
      const first = firstAct(db, r.injected[0].id, r);
      if (first === "direct") res.firstDirect++;
      if (first === "listing") res.firstListing++;
      const labels = judgeDecision(db, r, p.sessionId, p.ts);
      const fired: Fired & { recallable: boolean } = {
        prompt: p.text.slice(0, 160),
        spellings: r.lookedUp,
        turns: tally(labels, r, res),
        recallable,
      };
      if (recallable && fired.turns.some((t) => t.label === "hit")) res.useful++;
      if (res.examples.length < keepExamples) res.examples.push(fired);
    }
  } finally {
    db.close();
  }
  return res;
}

/** The held-out shares pooled by `replayHeldOut`: each project split at a quarter, half, three quarters. */
export const HELD_OUT_SHARES = [0.25, 0.5, 0.75];

/**
 * The held-out replay at several splits by time, pooled (a session held out at more than one
 * split is replayed against each store in turn): every prompt of a later session that names
 * something, decided against the store of the project's earlier sessions. One split alone
 * leaves a small project a handful of prompts; the pool is what the targets are read on.
 */
export function replayHeldOut(
  storePath: string,
  root: string,
  shares: number[] = HELD_OUT_SHARES,
  keepExamples = 12,
): { pooled: PlanReplay; bySplit: PlanReplay[] } {
  const bySplit = shares.map((split) =>
    replayPlans(storePath, root, { split, prompts: "all", keepExamples })
  );
  const pooled = emptyPlanReplay(null);
  for (const r of bySplit) {
    pooled.plans += r.plans;
    pooled.recallable += r.recallable;
    pooled.useful += r.useful;
    pooled.fired += r.fired;
    pooled.injectedTurns += r.injectedTurns;
    pooled.hits += r.hits;
    pooled.falsePositives += r.falsePositives;
    pooled.toolResults += r.toolResults;
    pooled.firstDirect += r.firstDirect;
    pooled.firstListing += r.firstListing;
    pooled.lookupMs.push(...r.lookupMs);
    if (pooled.examples.length < keepExamples) {
      pooled.examples.push(...r.examples.slice(0, keepExamples - pooled.examples.length));
    }
  }
  return { pooled, bySplit };
}

/**
 * How the first handed-over turn touched what it matched on: `direct` (its Read, Edit, Write
 * or Grep), `listing` (a git line that only lists it: `git add`, `git commit`, or a Bash line
 * running one), else `mention`.
 */
function firstAct(db: Db, id: number, r: PromptDecision): string {
  const matched = r.turns.find((t) => t.id === id)?.matched ?? [];
  const acts = entityActs(db, id);
  const on = acts.filter((a) => matched.some((m) => m.kind === a.kind && m.value === a.value));
  const best = Math.min(...on.map((a) => a.act));
  if (best === 0) return "direct";
  const text = turnTextOf(db, id);
  if (best === 2 || /\bgit (add|commit)\b/.test(text)) return "listing";
  return "mention";
}

/* ---------- word sets ---------- */

/**
 * Everyday spellings that look like paths or identifiers but name nothing: number fractions,
 * `word/word` pairs, markup, abbreviations, product and language names. Each is asked in a
 * sentence of its own and must bring nothing.
 */
export const EVERYDAY_WORDS = [
  "1/1",
  "2/2",
  "3/4",
  "24/7",
  "50/50",
  "if/else",
  "try/except",
  "and/or",
  "read/write",
  "input/output",
  "client/server",
  "fetching/updating",
  "pros/cons",
  "w/o",
  "N/A",
  "A/B",
  "CI/CD",
  "TCP/IP",
  "/",
  "//",
  "</summary>",
  "</details>",
  "e.g.",
  "i.e.",
  "GitHub",
  "GitLab",
  "GraphQL",
  "TypeScript",
  "JavaScript",
  "macOS",
  "iOS",
  "PostgreSQL",
  "MySQL",
  "SQLite",
  "OpenAI",
  "ChatGPT",
  "YouTube",
  "LinkedIn",
  "PowerShell",
  "VSCode",
  "PyPI",
  "NumPy",
  "FastAPI",
  "DevOps",
  "WebSocket",
  "OAuth",
  "JSON/YAML",
];

const SENTENCES = [
  (w: string) => `can you double-check the ${w} part?`,
  (w: string) => `I think ${w} is the issue here`,
  (w: string) => `what about ${w}, is that fine?`,
];

/** The busiest project of a store (the most sessions) and a cwd in it. */
export function busiestProject(path: string): { project: string; cwd: string } | null {
  const p = withRead(path, mostSessionsProject);
  return p ? { project: p.project, cwd: p.cwd ?? p.project } : null;
}

/** The everyday-word prompts, as a fresh session in the busiest project would type them. */
export function everydayPrompts(path: string): { prompt: string; cwd: string; project: string }[] {
  const p = busiestProject(path);
  if (!p) return [];
  return EVERYDAY_WORDS.map((w, i) => ({
    prompt: SENTENCES[i % SENTENCES.length](w),
    cwd: p.cwd,
    project: p.project,
  }));
}

export interface WordSet {
  prompts: number;
  fired: number;
  firedPrompts: string[];
}

/** Runs prompts as a fresh session (nothing visible, nothing handed over yet). */
export function wordSet(
  storePath: string,
  prompts: { prompt: string; cwd: string; project: string }[],
): WordSet {
  const opened = openRead(storePath);
  if (!opened) throw new Error(`no store at ${storePath}`);
  const out: WordSet = { prompts: 0, fired: 0, firedPrompts: [] };
  try {
    for (const n of prompts) {
      out.prompts++;
      const r = freshRecall(opened.db, n);
      if (r.injected.length) {
        out.fired++;
        const m = r.turns[0].matched;
        out.firedPrompts.push(`${n.prompt} -> ${m.map((x) => `${x.kind} ${x.value}`).join(", ")}`);
      }
    }
  } finally {
    opened.db.close();
  }
  return out;
}
