/**
 * Known-item queries for the quality section, built by one recorded rule from a folder of
 * real transcripts (never picked by whether a system finds them):
 *
 * 1. Every record that is a turn (user/assistant/system/attachment with a uuid and a time) is
 *    read; from it come candidate queries of five kinds, each with that record as its target:
 *    - `prose`: four consecutive plain words (letters only, 3+ letters each, the first not a
 *      stop word) from an assistant's text reply or a typed prompt, starting at a place fixed by
 *      a hash of the record's uuid;
 *    - `identifier`: a name defined in an Edit's `new_string` or a Write's `content`
 *      (`def`/`class`/`function`/`const`/`let`/`interface`/`type` NAME, 6+ characters, with
 *      an underscore or a case change);
 *    - `error`: the first run of 3+ plain words (at most 6 kept) in the first five lines of a
 *      failed tool result, or in the first line of any tool result's first 200 that names a
 *      failure (error, failed, exception, traceback, not found, no such, cannot, denied), the
 *      run then being one that holds that word;
 *    - `path-words`: a Read/Edit/Write `file_path`'s last two parts, extension dropped, as
 *      words (`commands land_cmd`); `path`: the whole `file_path`;
 *    - `bash`: a Bash command's first line, after any leading `cd … &&`, cut to 3-4 words.
 * 2. A query text that arises from more than one record is dropped (its target is unclear).
 * 3. Each kind's candidates are ordered by an FNV-1a hash of the query text; walking that order,
 *    a query is kept when its text (case- and whitespace-folded) occurs in at most MAX_FILES
 *    transcripts' text (their string values),
 *    until the kind has its quota. That is a property of the corpus, the same for every system.
 *
 * A target's sessions are every transcript holding a record of its uuid (a resumed session
 * copies earlier records), so a copy's session counts as the right session.
 */
import { join } from "node:path";

export type QKind = "prose" | "identifier" | "error" | "path-words" | "path" | "bash";

export const KIND_QUOTA: Record<QKind, number> = {
  prose: 24,
  identifier: 14,
  error: 14,
  "path-words": 10,
  path: 10,
  bash: 16,
};

/** A query is known-item only when its words are in few transcripts. */
const MAX_FILES = 3;

export interface KnownItem {
  q: string;
  kind: QKind;
  /** The target record's uuid. */
  uuid: string;
  /** session_key (path below its project folder) of the file the query was taken from. */
  sessionKey: string;
  /** Every session_key holding a record with that uuid. */
  sessions: string[];
}

export interface CorpusFile {
  path: string;
  sessionKey: string;
  /** Case-folded string leaves of every record, whitespace folded, for the uniqueness rule. */
  folded: string;
  records: Record<string, unknown>[];
}

type Rec = Record<string, unknown>;
const TURN_TYPES = new Set(["user", "assistant", "system", "attachment"]);

/** Every transcript below `projects/`, with its session_key (its path below the project folder). */
export function readCorpus(root: string): CorpusFile[] {
  const out: CorpusFile[] = [];
  const projects = join(root, "projects");
  const walk = (dir: string, below: string) => {
    for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
      const p = join(dir, e.name);
      const key = below ? `${below}/${e.name}` : e.name;
      if (e.isDirectory) walk(p, key);
      else if (e.isFile && e.name.endsWith(".jsonl")) {
        const records: Rec[] = [];
        const leaves: string[] = [];
        for (const line of Deno.readTextFileSync(p).split("\n")) {
          if (!line) continue;
          try {
            const r = JSON.parse(line);
            if (r && typeof r === "object" && !Array.isArray(r)) {
              records.push(r);
              stringLeaves(r, leaves);
            }
          } catch { /* a torn line */ }
        }
        const folded = leaves.join(" ").replace(/\s+/g, " ").toLowerCase();
        out.push({ path: p, sessionKey: key, folded, records });
      }
    }
  };
  for (const e of [...Deno.readDirSync(projects)].sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (e.isDirectory) walk(join(projects, e.name), "");
  }
  return out;
}

/** Every string value of a JSON value, in order (the plain table indexes these too). */
export function stringLeaves(v: unknown, out: string[]): void {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) { for (const x of v) stringLeaves(x, out); }
  else if (v && typeof v === "object") { for (const x of Object.values(v)) stringLeaves(x, out); }
}

export function isTurnRecord(r: Rec): boolean {
  return typeof r.type === "string" && TURN_TYPES.has(r.type) && typeof r.uuid === "string" &&
    typeof r.timestamp === "string";
}

export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function blocks(r: Rec): Rec[] {
  const m = r.message as Rec | undefined;
  const c = m && typeof m === "object" ? m.content : undefined;
  return Array.isArray(c) ? c.filter((b): b is Rec => !!b && typeof b === "object") : [];
}

const STOP = new Set(
  "the and for that this with from are was were you your but not all any can has have had its our out she him his her they them then than there here what when which who will would into onto also just"
    .split(" "),
);
const PLAIN = /^[A-Za-z]{3,}$/;

/** Four consecutive plain words of `text` from a place the seed fixes, or null. */
function phrase(text: string, seed: number): string | null {
  if (text.startsWith("<") || text.length < 40) return null; // harness tags, short acks
  const words = text.split(/\s+/).map((w) => w.replace(/[.,;:!?)"']+$/, "").replace(/^[("']+/, ""));
  const starts: number[] = [];
  for (let i = 0; i + 4 <= words.length; i++) {
    if (STOP.has(words[i].toLowerCase())) continue;
    if (words.slice(i, i + 4).every((w) => PLAIN.test(w))) starts.push(i);
  }
  if (!starts.length) return null;
  const i = starts[seed % starts.length];
  return words.slice(i, i + 4).join(" ");
}

const DEFINED = /\b(?:def|class|function|const|let|interface|type)\s+([A-Za-z_][A-Za-z0-9_]{5,})/g;

function identifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(DEFINED)) {
    const n = m[1];
    if (n.includes("_") || /[a-z][A-Z]/.test(n)) out.push(n);
  }
  return out;
}

/** A line that reports a failure, in the words tools use. */
const ERROR_LINE =
  /\b(?:error|failed|failure|exception|traceback|not found|no such|cannot|denied)\b/i;

function errorWords(text: string, failed: boolean): string | null {
  const lines = text.replace(/<\/?tool_use_error>/g, "").split("\n", 200).map((l) => l.trim())
    .filter((l) => l !== "");
  for (const line of failed ? lines.slice(0, 5) : lines.filter((l) => ERROR_LINE.test(l))) {
    let run: string[] = [];
    for (const w of [...line.split(/\s+/), ""]) {
      const bare = w.replace(/[.,;:!?]+$/, "");
      if (/^[A-Za-z][A-Za-z'-]+$/.test(bare)) {
        run.push(bare);
        continue;
      }
      // a line found by its failure word: the run that holds it
      if (run.length >= 3 && (failed || ERROR_LINE.test(run.join(" ")))) {
        return run.slice(0, 6).join(" ");
      }
      run = [];
    }
  }
  return null;
}

function bashFragment(cmd: string): string | null {
  let line = cmd.split("\n")[0].trim();
  line = line.replace(/^cd\s+\S+\s*&&\s*/, "");
  const words = line.split(/\s+/).filter((w) => w !== "");
  if (words.length < 3) return null;
  const frag = words.slice(0, 4).join(" ");
  // a fragment with no word of 3+ letters is punctuation and numbers: no known item
  return /[A-Za-z]{3,}/.test(frag) ? frag : null;
}

function pathWords(p: string): string | null {
  const parts = p.split("/").filter((x) => x !== "");
  if (parts.length < 2) return null;
  const last = parts[parts.length - 1].replace(/\.[A-Za-z0-9]+$/, "");
  return `${parts[parts.length - 2]} ${last}`;
}

function typedText(r: Rec): string | null {
  if (r.type !== "user" || r.isMeta === true || r.isCompactSummary === true) return null;
  const m = r.message as Rec | undefined;
  if (!m || typeof m !== "object") return null;
  if (typeof m.content === "string") return m.content;
  const bs = blocks(r);
  if (bs.some((b) => b.type === "tool_result")) return null;
  const t = bs.filter((b) => b.type === "text").map((b) => b.text).filter((x) =>
    typeof x === "string"
  );
  return t.length ? t.join("\n") : null;
}

function replyText(r: Rec): string | null {
  if (r.type !== "assistant") return null;
  const t = blocks(r).filter((b) => b.type === "text").map((b) => b.text).filter((x) =>
    typeof x === "string"
  );
  return t.length ? t.join("\n") : null;
}

/** The candidate (kind, query) pairs one turn record yields. */
function candidates(r: Rec): { kind: QKind; q: string }[] {
  const out: { kind: QKind; q: string }[] = [];
  const seed = fnv1a(r.uuid as string);
  const prose = replyText(r) ?? typedText(r);
  if (prose) {
    const p = phrase(prose, seed);
    if (p) out.push({ kind: "prose", q: p });
  }
  for (const b of blocks(r)) {
    if (b.type === "tool_use" && b.input && typeof b.input === "object") {
      const input = b.input as Rec;
      if (
        (b.name === "Edit" || b.name === "Write") &&
        typeof (input.new_string ?? input.content) === "string"
      ) {
        for (const id of identifiers((input.new_string ?? input.content) as string)) {
          out.push({ kind: "identifier", q: id });
        }
      }
      if (
        (b.name === "Read" || b.name === "Edit" || b.name === "Write") &&
        typeof input.file_path === "string"
      ) {
        out.push({ kind: "path", q: input.file_path });
        const w = pathWords(input.file_path);
        if (w) out.push({ kind: "path-words", q: w });
      }
      if (b.name === "Bash" && typeof input.command === "string") {
        const f = bashFragment(input.command);
        if (f) out.push({ kind: "bash", q: f });
      }
    }
    if (b.type === "tool_result") {
      const text = typeof b.content === "string"
        ? b.content
        : Array.isArray(b.content)
        ? b.content.map((c: Rec) => (typeof c?.text === "string" ? c.text : "")).join("\n")
        : "";
      const e = errorWords(text, b.is_error === true);
      if (e) out.push({ kind: "error", q: e });
    }
  }
  return out;
}

/** The known items of a corpus, by the rule above, in kind order. */
export function buildKnownItems(files: CorpusFile[]): KnownItem[] {
  const sessionsOf = new Map<string, Set<string>>();
  const found = new Map<string, { kind: QKind; q: string; uuid: string; key: string }[]>();
  for (const f of files) {
    for (const r of f.records) {
      if (!isTurnRecord(r)) continue;
      const u = r.uuid as string;
      let s = sessionsOf.get(u);
      if (!s) sessionsOf.set(u, s = new Set());
      s.add(f.sessionKey);
      for (const c of candidates(r)) {
        const k = c.kind + "\u0000" + c.q.toLowerCase();
        const l = found.get(k) ?? [];
        if (!l.some((x) => x.uuid === u)) l.push({ ...c, uuid: u, key: f.sessionKey });
        found.set(k, l);
      }
    }
  }
  const byKind = new Map<QKind, { kind: QKind; q: string; uuid: string; key: string }[]>();
  for (const l of found.values()) {
    if (l.length !== 1) continue; // from more than one record: which is the target?
    const c = l[0];
    const list = byKind.get(c.kind) ?? [];
    list.push(c);
    byKind.set(c.kind, list);
  }
  const items: KnownItem[] = [];
  for (const kind of Object.keys(KIND_QUOTA) as QKind[]) {
    const list = (byKind.get(kind) ?? []).sort((a, b) =>
      fnv1a(a.q) - fnv1a(b.q) || (a.q < b.q ? -1 : 1)
    );
    let kept = 0;
    for (const c of list) {
      if (kept >= KIND_QUOTA[kind]) break;
      const needle = c.q.toLowerCase();
      let n = 0;
      for (const f of files) {
        if (f.folded.includes(needle) && ++n > MAX_FILES) break;
      }
      if (n === 0 || n > MAX_FILES) continue;
      items.push({
        q: c.q,
        kind,
        uuid: c.uuid,
        sessionKey: c.key,
        sessions: [...sessionsOf.get(c.uuid)!].sort(),
      });
      kept++;
    }
  }
  return items;
}
