/**
 * Recall precision on real transcripts: every typed prompt of a store, in time order, is looked
 * up against what was archived before it, with the hook's own functions (spellings, recall) and
 * judged by the label rule `stats` uses (a hit: the same session later touches the path or
 * identifier the handed-over turn matched on). Then prompts that name only things never
 * archived, against the whole store: they must get nothing.
 */
import { DatabaseSync } from "node:sqlite";
import { openRead } from "../../core/store/db.ts";
import { recall } from "../../core/inject/prompt.ts";
import { spellings } from "../../core/inject/spellings.ts";
import { THRESHOLDS } from "../../core/inject/thresholds.ts";
import { judge } from "../../core/feedback/labels.ts";
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
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const proj = db.prepare(
      `SELECT project, cwd FROM session_meta WHERE project IS NOT NULL
       GROUP BY project ORDER BY count(*) DESC LIMIT 1`,
    ).get() as { project: string; cwd: string | null } | undefined;
    if (!proj) return [];
    const cwd = proj.cwd ?? proj.project;
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
      const fired: Fired = { prompt: p.text.slice(0, 160), spellings: names, turns: [] };
      for (const l of labels) {
        if (l.label === "hit") res.hits++;
        else if (l.label === "false positive") res.falsePositives++;
        if (l.turnId !== null) {
          const c = r.selection.candidates.find((x) => x.id === l.turnId);
          fired.turns.push({
            id: l.turnId,
            label: l.label,
            matched: (c?.matched ?? []).map((m) => `${m.kind} ${m.value}`),
          });
        }
      }
      if (res.examples.length < keepExamples) res.examples.push(fired);
    }
    // a session of its own, with nothing visible and nothing handed over yet
    const fresh = (n: { prompt: string; cwd: string; project: string }) => {
      const t0 = performance.now();
      const r = recall({
        db,
        vis: { project: n.project, exclude: [] },
        sessionId: "00000000-0000-4000-8000-000000000000",
        spellings: spellings(n.prompt, n.cwd, THRESHOLDS.max_candidates),
        thresholds: THRESHOLDS,
        suppress: new Map(),
        owedKnown: null,
        promptChars: PROMPT_CHARS_DEFAULT,
        filter: (s) => s,
      });
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
