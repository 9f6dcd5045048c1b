/**
 * Recall precision on real transcripts: every typed prompt of a store, in time order, is looked
 * up against what was archived before it, with the hook's own functions (spellings, recall) and
 * judged by the label rule `stats` uses (a hit: the same session later touches the path or
 * identifier the handed-over turn matched on). Then prompts that name only things never
 * archived, against the whole store: they must get nothing.
 */
import { DatabaseSync } from "node:sqlite";
import { type Db, openRead } from "../../core/store/db.ts";
import { recall } from "../../core/inject/prompt.ts";
import { spellings } from "../../core/inject/spellings.ts";
import { THRESHOLDS } from "../../core/inject/thresholds.ts";
import { judge } from "../../core/feedback/labels.ts";
import { PROMPT_CHARS_DEFAULT } from "../../core/constants.ts";
import { structuralLookup } from "../../core/recall/lookup.ts";
import { entityMatches, isPathSpelling } from "../../core/recall/structural.ts";
import { laterEntities } from "../../core/store/decisions.ts";

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

interface PromptRow {
  id: number;
  ts: string;
  text: string;
  sessionId: string | null;
  project: string | null;
  cwd: string | null;
}

/** Typed prompts of non-subagent sessions, in time order (bench SQL, read-only). */
function typedPrompts(path: string): PromptRow[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(
      `SELECT t.id AS id, t.ts AS ts, q.text AS text, m.session_id AS sessionId,
         m.project AS project, m.cwd AS cwd
       FROM turns t JOIN turn_text q ON q.turn_id = t.id
         JOIN session_meta m ON m.session_no = t.session_no
       WHERE t.is_typed = 1 AND t.is_sidechain = 0 AND m.parent_session_key IS NULL
         AND t.ts IS NOT NULL
       ORDER BY t.ts, t.id`,
    ).all() as unknown as PromptRow[];
  } finally {
    db.close();
  }
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
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const paths = (db.prepare(
      `SELECT value FROM entities WHERE kind = 'path' AND value LIKE ? AND value LIKE '%/%.%'
       GROUP BY value ORDER BY count(*) DESC LIMIT 15`,
    ).all(proj.project + "/%") as { value: string }[]).map((r) => r.value);
    const symbols = (db.prepare(
      `SELECT value FROM entities WHERE kind = 'symbol' GROUP BY value ORDER BY count(*) DESC
       LIMIT 15`,
    ).all() as { value: string }[]).map((r) => r.value);
    const known = (v: string) =>
      db.prepare("SELECT 1 FROM entities WHERE value = ? OR value LIKE ? LIMIT 1").get(
        v,
        "%" + v.replace(/[\\%_]/g, (c) => "\\" + c) + "%",
      ) !== undefined;
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
  } finally {
    db.close();
  }
}

/**
 * The lookup's worst cases: prompts naming the most common archived paths and identifiers of
 * the busiest project, one at a time and eight at once (the most one prompt looks up).
 */
export function namedPrompts(path: string): { prompt: string; cwd: string; project: string }[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const proj = db.prepare(
      `SELECT project, cwd FROM session_meta WHERE project IS NOT NULL
       GROUP BY project ORDER BY sum(turn_count) DESC LIMIT 1`,
    ).get() as { project: string; cwd: string | null } | undefined;
    if (!proj) return [];
    const common = (kind: string) =>
      (db.prepare(
        `SELECT e.value AS value FROM entities e JOIN turns t ON t.id = e.turn_id
           JOIN session_meta m ON m.session_no = t.session_no
         WHERE e.kind = ? AND m.project = ? AND t.is_tool_result = 0
         GROUP BY e.value ORDER BY count(*) DESC LIMIT 100`,
      ).all(kind, proj.project) as { value: string }[]).map((r) => r.value)
        .filter((v) => !/\s/.test(v));
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
  } finally {
    db.close();
  }
}

/** Counts a fired decision's labels into `res`, and lists its turns with what they matched. */
function tally(
  labels: ReturnType<typeof judge>,
  r: ReturnType<typeof recall>,
  res: { hits: number; falsePositives: number },
): Fired["turns"] {
  const turns: Fired["turns"] = [];
  for (const l of labels) {
    if (l.label === "hit") res.hits++;
    else if (l.label === "false positive") res.falsePositives++;
    if (l.turnId !== null) {
      const c = r.selection.candidates.find((x) => x.id === l.turnId);
      turns.push({
        id: l.turnId,
        label: l.label,
        matched: (c?.matched ?? []).map((m) => `${m.kind} ${m.value}`),
      });
    }
  }
  return turns;
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
export function freshRecall(db: Db, n: NamedPrompt): ReturnType<typeof recall> {
  return recall({
    db,
    vis: { project: n.project, exclude: [] },
    sessionId: "00000000-0000-4000-8000-000000000000",
    spellings: spellings(n.prompt, n.cwd, THRESHOLDS.max_candidates),
    cwd: n.cwd,
    prompt: n.prompt,
    thresholds: THRESHOLDS,
    suppress: new Map(),
    owedKnown: null,
    promptChars: PROMPT_CHARS_DEFAULT,
    filter: (s) => s,
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
      const names = spellings(p.text, p.cwd, THRESHOLDS.max_candidates);
      if (!names.length || !p.project) continue;
      res.naming++;
      const st = injectedBySession.get(p.sessionId ?? "") ?? new Set<number>();
      const suppress = new Map([...st].map((id) => [id, "already handed over in this session"]));
      const t0 = performance.now();
      const r = recall({
        db,
        vis: { project: p.project, exclude: [] },
        sessionId: p.sessionId,
        spellings: names,
        cwd: p.cwd,
        prompt: p.text,
        thresholds: THRESHOLDS,
        suppress,
        owedKnown: null,
        promptChars: PROMPT_CHARS_DEFAULT,
        filter: (s) => s,
        beforeTs: p.ts,
      });
      res.lookupMs.push(performance.now() - t0);
      const labels = p.sessionId
        ? judge(db, 0, { injected: r.injected, spellings: names, sessionId: p.sessionId, at: p.ts })
        : [];
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
  lookupMs: number[];
  examples: (Fired & { recallable: boolean })[];
}

/** Plan-shaped or long: what a person pastes to start a session's work. */
const PLAN = /^\s*(#{1,3} |implement the following plan|plan:|\*\*plan)/i;
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

/** The archived project and session number a Claude Code session id files under. */
function sessionOf(db: Db, sessionId: string): { project: string; sessionNo: number } | null {
  const r = db.prepare(
    `SELECT project, session_no AS sessionNo FROM session_meta
     WHERE session_id = ? AND parent_session_key IS NULL AND project IS NOT NULL
     ORDER BY session_no LIMIT 1`,
  ).get(sessionId) as { project: string; sessionNo: number } | undefined;
  return r ?? null;
}

/**
 * Each session whose first typed input is a plan (or a long prompt naming a file) is replayed
 * as the hook would see it then: against only what was archived before it, with the session
 * itself live (its own earlier turns visible, so never handed over). Each handed-over turn is
 * labelled by the stats rule: a hit when the session then touched what the turn matched on.
 * A plan is recallable when some spelling it names was touched later by the session and was
 * already carried by an earlier session's quotable turn (looked up with no cap and no
 * commonness rule, so the figure is not the rules grading themselves).
 */
export function replayPlans(storePath: string, root: string, keepExamples = 12): PlanReplay {
  const opened = openRead(storePath);
  if (!opened) throw new Error(`no store at ${storePath}`);
  const db = opened.db;
  const res: PlanReplay = {
    plans: 0,
    recallable: 0,
    useful: 0,
    fired: 0,
    injectedTurns: 0,
    hits: 0,
    falsePositives: 0,
    lookupMs: [],
    examples: [],
  };
  try {
    for (const p of planPrompts(root)) {
      const at = sessionOf(db, p.sessionId);
      if (!at) continue;
      const names = spellings(p.text, p.cwd, THRESHOLDS.max_candidates, null);
      if (!names.some((n) => isPathSpelling(n))) continue; // names no file
      res.plans++;
      const vis = { project: at.project, exclude: [] };
      const later = laterEntities(db, p.sessionId, p.ts);
      const touched = names.filter((s) => later.some((e) => entityMatches(e, s)));
      let recallable = false;
      for (const s of touched) {
        const prior = structuralLookup(db, {
          spellings: [s],
          vis,
          cwd: p.cwd,
          beforeTs: p.ts,
          limit: 1000,
          cap: 100_000,
          ignoreCommon: true,
        });
        if (prior.hits.some((h) => h.session_no !== at.sessionNo)) {
          recallable = true;
          break;
        }
      }
      if (recallable) res.recallable++;
      const t0 = performance.now();
      const r = recall({
        db,
        vis,
        sessionId: p.sessionId,
        spellings: names,
        cwd: p.cwd,
        prompt: p.text,
        thresholds: THRESHOLDS,
        suppress: new Map(),
        owedKnown: null,
        promptChars: PROMPT_CHARS_DEFAULT,
        filter: (s) => s,
        beforeTs: p.ts,
      });
      res.lookupMs.push(performance.now() - t0);
      if (!r.injected.length) continue;
      res.fired++;
      res.injectedTurns += r.injected.length;
      const labels = judge(db, 0, {
        injected: r.injected,
        spellings: names,
        sessionId: p.sessionId,
        at: p.ts,
      });
      const fired: Fired & { recallable: boolean } = {
        prompt: p.text.slice(0, 160),
        spellings: names,
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

/** The busiest project of a store and a cwd in it (bench SQL, read-only). */
export function busiestProject(path: string): { project: string; cwd: string } | null {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const p = db.prepare(
      `SELECT project, cwd FROM session_meta WHERE project IS NOT NULL
       GROUP BY project ORDER BY count(*) DESC LIMIT 1`,
    ).get() as { project: string; cwd: string | null } | undefined;
    return p ? { project: p.project, cwd: p.cwd ?? p.project } : null;
  } finally {
    db.close();
  }
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
        const m = r.selection.candidates.find((c) => c.id === r.injected[0].id)?.matched ?? [];
        out.firedPrompts.push(`${n.prompt} -> ${m.map((x) => `${x.kind} ${x.value}`).join(", ")}`);
      }
    }
  } finally {
    opened.db.close();
  }
  return out;
}
