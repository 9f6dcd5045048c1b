/**
 * Prompt recall (UserPromptSubmit): look up what the prompt names, hand over at most three
 * earlier turns that match on something structural, and log the decision either way.
 */
import type { Db } from "../store/db.ts";
import { uuidsIn } from "../store/turns.ts";
import { type Visibility } from "../store/visibility.ts";
import {
  boundaries,
  droppedTurnIds,
  maxTurnId,
  quotesFor,
  sessionNosForId,
} from "../store/inject_sql.ts";
import type { Hit } from "../recall/rank.ts";
import { promptWords, structuralLookup } from "../recall/lookup.ts";
import { isPathSpelling } from "../recall/structural.ts";
import { RECALL_NAMES_SEEN } from "../constants.ts";
import { CLOSE_TAG, cut, length, neutralise, OPEN_TAG, RECALL_HEAD } from "./frame.ts";
import { spellings } from "./spellings.ts";
import { eligible, THRESHOLDS, type Thresholds } from "./thresholds.ts";

export interface CandidateLog {
  id: number;
  relevance: number;
  entity_score: number;
  matched: { kind: string; value: string }[];
}

export interface Selection {
  candidates: CandidateLog[];
  chosen: number[];
  suppressed: { id: number; why: string }[];
}

export interface SelectInput {
  hits: Hit[];
  thresholds: Thresholds;
  /** Ids never handed over, with why (already injected, visible, quoted by the brief). */
  suppress: Map<number, string>;
  /** Post-compaction: only these ids may be handed over. */
  onlyIds: Set<number> | null;
}

/**
 * The rules, as one function replay shares. Turns that can never be handed over on a prompt
 * (tool results, attachments, system records) are set aside first and take no rank, so a
 * file's bulky Read result cannot push the Read call itself out of the top ranks. The
 * session's own suppressions (already handed over, visible, quoted by the brief) come after
 * eligibility, before the cap.
 */
export function select(s: SelectInput): Selection {
  const out: Selection = { candidates: [], chosen: [], suppressed: [] };
  let rank1 = 0;
  for (const h of s.hits) {
    out.candidates.push({
      id: h.turn_id,
      relevance: h.relevance,
      entity_score: h.entity_score,
      matched: h.matched_on,
    });
    const kindWhy = h.candidate.isToolResult
      ? "tool result"
      : h.record_type !== "user" && h.record_type !== "assistant"
      ? h.record_type
      : null;
    if (kindWhy) {
      if (h.matched_on.length) out.suppressed.push({ id: h.turn_id, why: kindWhy });
      continue;
    }
    rank1++;
    if (!eligible(rank1, h.matched_on.length, s.thresholds)) continue;
    let why = s.suppress.get(h.turn_id) ?? null;
    if (!why && s.onlyIds && !s.onlyIds.has(h.turn_id)) why = "not dropped by the compaction";
    if (why) {
      out.suppressed.push({ id: h.turn_id, why });
      continue;
    }
    if (out.chosen.length < s.thresholds.max_turns) out.chosen.push(h.turn_id);
  }
  return out;
}

export interface RecallInput {
  db: Db;
  vis: Visibility;
  sessionId: string | null;
  /** What the prompt names, strongest first; the rarest `max_candidates` are looked up. */
  spellings: string[];
  /** The session's working directory (an absolute path outside it matches only when equal). */
  cwd?: string | null;
  /** The prompt's text: its words break ties between equal structural matches. */
  prompt?: string;
  thresholds: Thresholds;
  suppress: Map<number, string>;
  /** Boundaries the session state knew when a compaction was owed, else null. */
  owedKnown: number | null;
  promptChars: number;
  filter: (s: string) => string;
  /** Only turns up to this id (replay: the index as it stood). */
  maxId?: number;
  /** Only turns from before this time (the bench's replay of a corpus in time order). */
  beforeTs?: string;
}

export interface Recall {
  text: string | null;
  selection: Selection;
  injected: { id: number; chars: number }[];
  compacted: boolean;
  dropped: number;
  watermark: number;
  /** Spellings the scope holds nothing for, and names that bring no turn alone (see lookup). */
  unheld: string[];
  common: string[];
  /** The spellings looked up: the rarest `max_candidates` of those the scope holds. */
  lookedUp: string[];
}

export function recall(r: RecallInput): Recall {
  const mine = r.sessionId ? sessionNosForId(r.db, r.sessionId) : [];
  // Replay sees the index as it stood: a compaction recorded after the prompt had not yet
  // dropped anything, so the session's own turns were still in context then.
  const bounds = boundaries(r.db, mine).filter((b) =>
    (r.maxId === undefined || b.turnId <= r.maxId) &&
    (r.beforeTs === undefined || (b.ts !== null && b.ts < r.beforeTs))
  );
  let compacted = false;
  let onlyIds: Set<number> | null = null;
  const droppedAll = new Set<number>();
  for (const b of bounds) for (const id of droppedTurnIds(r.db, b)) droppedAll.add(id);
  if (r.owedKnown !== null && bounds.length > r.owedKnown) {
    compacted = true;
    onlyIds = droppedTurnIds(r.db, bounds[bounds.length - 1]);
  }
  const suppress = new Map(r.suppress);
  // A turn of this session is still in context unless a compaction dropped it.
  const mineSet = new Set(mine);
  const lookup = r.spellings.length
    ? structuralLookup(r.db, {
      spellings: r.spellings,
      vis: r.vis,
      cwd: r.cwd,
      words: r.prompt ? promptWords(r.prompt) : [],
      promptText: r.prompt,
      maxId: r.maxId,
      beforeTs: r.beforeTs,
      limit: compacted ? r.thresholds.compacted_ranked : r.thresholds.ranked,
      names: r.thresholds.max_candidates,
    })
    : { hits: [], unheld: [], common: [], lookedUp: [] };
  const hits = lookup.hits;
  // A resumed session's file copies earlier history in: the same uuid in another archived
  // session is that copy's original, in context just the same.
  const copied = uuidsIn(
    r.db,
    mine,
    hits.filter((h) => h.candidate.uuid && !mineSet.has(h.candidate.sessionNo)).map((h) =>
      h.candidate.uuid!
    ),
  );
  for (const h of hits) {
    if (suppress.has(h.turn_id) || droppedAll.has(h.turn_id)) continue;
    if (mineSet.has(h.candidate.sessionNo) || (h.candidate.uuid && copied.has(h.candidate.uuid))) {
      suppress.set(h.turn_id, "visible in this session");
    }
  }
  const selection = select({ hits, thresholds: r.thresholds, suppress, onlyIds });
  const out: Recall = {
    text: null,
    selection,
    injected: [],
    compacted,
    dropped: onlyIds ? onlyIds.size : 0,
    watermark: maxTurnId(r.db),
    unheld: lookup.unheld,
    common: lookup.common,
    lookedUp: lookup.lookedUp,
  };
  if (!selection.chosen.length) return out;
  const quotes = quotesFor(r.db, selection.chosen);
  const byId = new Map(hits.map((h) => [h.turn_id, h]));
  const lines = selection.chosen.map((id) => ({
    id,
    prefix: `- turn ${id} (${byId.get(id)?.ts?.slice(0, 10) ?? "unknown day"}): `,
    body: neutralise(r.filter(quotes.get(id) ?? "")).replace(/\s+/g, " ").trim(),
  }));
  const fixed = length(
    [RECALL_HEAD, OPEN_TAG, ...lines.map((l) => l.prefix), CLOSE_TAG].join("\n"),
  );
  const share = Math.floor((r.promptChars - fixed) / lines.length);
  if (share < 1) return out; // too small for the wording itself: nothing is handed over
  const body = lines.map((l) => {
    const t = cut(l.body, share);
    out.injected.push({ id: l.id, chars: length(t) });
    return l.prefix + t;
  });
  out.text = [RECALL_HEAD, OPEN_TAG, ...body, CLOSE_TAG].join("\n");
  return out;
}

/** Every name a prompt holds, as the hook reads it: the lookup keeps the rarest of them. */
export function promptNames(
  prompt: string,
  cwd: string | null,
  home: string | null = null,
): string[] {
  return spellings(prompt, cwd, RECALL_NAMES_SEEN, home);
}

/** Whether some name is a path: a plan naming no file has nothing to recall for it. */
export function namesAPath(names: string[]): boolean {
  return names.some(isPathSpelling);
}

export interface PromptInput extends Omit<RecallInput, "spellings" | "thresholds" | "prompt"> {
  prompt: string;
  /** The prompt's names when already read (the hook logs them first); else read here. */
  names?: string[];
}

export interface PromptDecision extends Recall {
  /** Every name the prompt holds (what the labels judge against). */
  spellings: string[];
  /** The turns handed over, each with what it matched on. */
  turns: { id: number; chars: number; matched: CandidateLog["matched"] }[];
}

/**
 * A prompt's recall as the hook decides it, under the compiled thresholds: the one entry the
 * hook and the bench's replays share, so the bench measures the product's own decision.
 */
export function decidePrompt(p: PromptInput): PromptDecision {
  const names = p.names ?? promptNames(p.prompt, p.cwd ?? null);
  const r = recall({ ...p, spellings: names, thresholds: THRESHOLDS });
  const on = new Map(r.selection.candidates.map((c) => [c.id, c.matched]));
  const turns = r.injected.map((i) => ({ ...i, matched: on.get(i.id) ?? [] }));
  return { ...r, spellings: names, turns };
}
