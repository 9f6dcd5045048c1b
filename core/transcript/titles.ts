/**
 * A session's title, in the order a person would want it: the name they set with
 * `terminus sessions name`, then Claude Code's own `/rename` (custom-title record), then its
 * generated ai-title or summary record (the session's own: its leafUuid one of the session's
 * records), then the first prompt they typed, cut short.
 * Also the rules a name and a tag must meet. Pure: no store.
 */
import { isTyped, messageText, type Rec, slashCommand, str } from "./records.ts";
import { TAG_MAX_CHARS, TITLE_MAX_CHARS, TITLE_PROMPT_CHARS } from "../constants.ts";

/** The titles one run of records gave (the last of each kind, the first typed prompt). */
export interface TranscriptTitles {
  customTitle: string | null;
  aiTitle: string | null;
  /** The session's own summary, once `settleSummary` has judged the candidates. */
  summary: string | null;
  firstPrompt: string | null;
  /**
   * The `summary` records, in file order: Claude Code 1.x and 2.0 write summaries of other
   * conversations into a transcript too, so each is the session's own only when its leafUuid
   * is one of the session's records.
   */
  summaries: { text: string; leaf: string | null }[];
  /** The uuid of every record of the run, to judge the summaries by. */
  uuids: Set<string>;
}

export type TitleSource = "name" | "custom-title" | "ai-title" | "summary" | "prompt";

export function emptyTitles(): TranscriptTitles {
  return {
    customTitle: null,
    aiTitle: null,
    summary: null,
    firstPrompt: null,
    summaries: [],
    uuids: new Set(),
  };
}

/**
 * A summary that is no title: the model saying it had nothing to summarise ("I apologize, but
 * there's no conversation text provided for me to summarize"), or an error in its place
 * ("Claude AI usage limit reached|1753131600").
 */
export function emptySummary(text: string): boolean {
  return /^(I apologi[sz]e|I'm sorry|Sorry)\b/i.test(text) ||
    /\bnothing to summari[sz]e\b/i.test(text) ||
    /\bno (conversation|messages?|content|text|transcript)\b.*\b(provided|given|to summari[sz]e)\b/i
      .test(text) ||
    /^(Claude AI usage limit reached|API Error)\b/i.test(text);
}

/**
 * Sets `t.summary` to the last summary whose leafUuid is one of the session's own records:
 * one of this run's (`t.uuids`) or, through `known`, one archived before it. A summary of
 * another conversation (its leaf elsewhere) or one with no leaf is never the title.
 */
export function settleSummary(t: TranscriptTitles, known?: (uuid: string) => boolean): void {
  t.summary = null;
  for (let i = t.summaries.length - 1; i >= 0; i--) {
    const { text, leaf } = t.summaries[i];
    if (leaf !== null && (t.uuids.has(leaf) || known?.(leaf))) {
      t.summary = text;
      return;
    }
  }
}

/** Folds whitespace and cuts to `max` characters (code points), marking a cut with "…". */
export function foldCut(text: string, max: number): string {
  const folded = text.replace(/\s+/g, " ").trim();
  const cps = [...folded];
  return cps.length <= max ? folded : cps.slice(0, max - 1).join("").trimEnd() + "…";
}

/** Takes what one record says about the session's title into `t` (records in file order). */
export function noteTitle(t: TranscriptTitles, rec: Rec): void {
  const nonEmpty = (v: string | null) => (v && v.trim() !== "" ? v.trim() : null);
  const uuid = str(rec.uuid);
  if (uuid) t.uuids.add(uuid);
  switch (rec.type) {
    case "custom-title":
      t.customTitle = nonEmpty(str(rec.customTitle)) ?? t.customTitle;
      return;
    case "ai-title":
      t.aiTitle = nonEmpty(str(rec.aiTitle)) ?? t.aiTitle;
      return;
    case "summary": {
      const text = nonEmpty(str(rec.summary));
      if (text && !emptySummary(text)) t.summaries.push({ text, leaf: str(rec.leafUuid) });
      return;
    }
  }
  if (t.firstPrompt !== null) return;
  const text = promptText(rec);
  if (text) t.firstPrompt = foldCut(text, TITLE_PROMPT_CHARS);
}

/**
 * What a prompt record says, as its author typed it: a slash command as `/name args`, or the
 * text. In a subagent's own transcript every record is a sidechain one, and its opening
 * prompt (what the parent asked it) is that session's prompt.
 */
export function promptText(rec: Rec): string | null {
  const slash = slashCommand(rec);
  if (slash !== null) return slash;
  const asMain = rec.isSidechain === true ? { ...rec, isSidechain: false } : rec;
  return isTyped(asMain) ? messageText(rec)?.trim() ?? null : null;
}

export interface TitleFacts {
  name: string | null;
  custom_title: string | null;
  ai_title: string | null;
  summary: string | null;
  first_prompt: string | null;
}

/** The title a session shows, and where it came from; null when it has none at all. */
export function chooseTitle(f: TitleFacts): { title: string | null; source: TitleSource | null } {
  const order: [string | null, TitleSource][] = [
    [f.name, "name"],
    [f.custom_title, "custom-title"],
    [f.ai_title, "ai-title"],
    [f.summary, "summary"],
    [f.first_prompt, "prompt"],
  ];
  for (const [v, source] of order) if (v) return { title: v, source };
  return { title: null, source: null };
}

const TAG = /^[a-z0-9._-]+$/;

/** Why a tag is refused, or null when it is good. */
export function tagProblem(tag: string): string | null {
  if (tag.length === 0) return "a tag cannot be empty";
  if (tag.length > TAG_MAX_CHARS) {
    return `tag '${tag}' is ${tag.length} characters; at most ${TAG_MAX_CHARS}`;
  }
  if (!TAG.test(tag)) {
    return `tag '${tag}' may hold only lowercase letters, digits, '.', '_' and '-'`;
  }
  return null;
}

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Why a name is refused, or null when it is good. */
export function nameProblem(name: string): string | null {
  if (name.trim() === "") return "a name cannot be empty; use --clear to remove one";
  const n = [...name].length;
  if (n > TITLE_MAX_CHARS) return `the name is ${n} characters; at most ${TITLE_MAX_CHARS}`;
  if (CONTROL.test(name)) return "the name holds a control character (such as a newline or ESC)";
  return null;
}
