/**
 * What the session browser shows and does, over the store: sessions matching what is typed
 * (FTS over turns, titles and names, as `search` ranks them), a session's conversation view,
 * and the restore, export and tag actions. The screen (screen.ts) knows nothing of the store.
 */
import type { Config } from "../config.ts";
import type { Db } from "../store/db.ts";
import { closeWrite, openWrite } from "../store/db.ts";
import { listSessions } from "../store/session_listing.ts";
import { type Visibility } from "../store/visibility.ts";
import { egress, isRedacting } from "../egress.ts";
import { asPrefix, parseQuery } from "../recall/query.ts";
import { rank } from "../recall/rank.ts";
import { titleHits } from "../recall/titles.ts";
import { SEARCH_LIMIT_MAX } from "../constants.ts";
import { type SessionView, transcriptPresent, viewOf } from "../sessions/list.ts";
import { loadSession } from "../sessions/load.ts";
import { conversation } from "../sessions/messages.ts";
import { renderText } from "../sessions/render.ts";
import { exportBytes, writeExport } from "../sessions/export.ts";
import { planRestore, writeRestore } from "../sessions/restore.ts";
import { checkTags, tagSession } from "../sessions/handles.ts";
import { tagProblem } from "../transcript/titles.ts";
import { join } from "../posix.ts";
import { SHOW_RESULT_LINES } from "../constants.ts";

/** How many sessions the list holds with nothing typed. */
const LIST_MAX = 500;

export interface BrowseSource {
  /** `text` is what was typed: words to search, `+tag` words to filter by. */
  find(text: string, all: boolean): { sessions: SessionView[]; problem: string | null };
  preview(sessionNo: number): string[];
  restore(sessionNo: number): string;
  exportMd(sessionNo: number): string;
  tag(sessionNo: number, tags: string[]): string;
  /** The label of the current project, or null when the folder is in none. */
  project: string | null;
}

export interface StoreSourceInput {
  db: Db;
  store: string;
  cfg: Config;
  cwd: string;
  roots: string[];
  /** The current project's visibility, or null when the folder is in no archived project. */
  current: Visibility | null;
}

export function storeSource(i: StoreSourceInput): BrowseSource {
  const everywhere: Visibility = { project: null, exclude: i.cfg.exclude };
  const filter = egress(i.cfg.privacy.redactRecall);
  const row = (no: number) => listSessions(i.db, everywhere, { sessionNo: no })[0];
  // the list is rebuilt on every key: each transcript is looked for once, and again only
  // after a restore
  const seen = new Map<string, boolean | null>();
  const present = (path: string | null) => {
    if (path === null) return null;
    if (!seen.has(path)) seen.set(path, transcriptPresent(path));
    return seen.get(path)!;
  };
  return {
    project: i.current?.project ?? null,
    find(text, all) {
      const vis = all || !i.current ? everywhere : i.current;
      const words = text.split(/\s+/).filter((w) => w !== "");
      const tags = words.filter((w) => w.startsWith("+")).map((w) => w.slice(1).toLowerCase())
        .filter((t) => t !== "");
      for (const t of tags) {
        const p = tagProblem(t);
        if (p) return { sessions: [], problem: `+${t}: ${p}` };
      }
      // the word still being typed (nothing after it yet) matches as a prefix
      let parsed;
      try {
        parsed = parseQuery(words.filter((w) => !w.startsWith("+")).join(" "));
      } catch (e) {
        return { sessions: [], problem: (e as Error).message };
      }
      const q = /\s$/.test(text) || words.at(-1)?.startsWith("+") ? parsed : asPrefix(parsed);
      if (!q.match) {
        const rows = listSessions(i.db, vis, { tags, limit: LIST_MAX, durations: false });
        return { sessions: rows.map((r) => viewOf(r, filter, present)), problem: null };
      }
      const args = { query: q, vis, filters: {}, limit: SEARCH_LIMIT_MAX };
      const order: number[] = [];
      for (const h of [...titleHits(i.db, args), ...rank(i.db, args)]) {
        if (!order.includes(h.session_no)) order.push(h.session_no);
      }
      const views: SessionView[] = [];
      for (const no of order) {
        const r = listSessions(i.db, vis, { sessionNo: no, tags, durations: false })[0];
        if (r) views.push(viewOf(r, filter, present));
      }
      return { sessions: views, problem: null };
    },
    preview(no) {
      const r = row(no);
      if (!r) return ["(this session is no longer in the archive)"];
      const s = loadSession(i.db, r, everywhere, isRedacting(filter));
      if (s.view.evicted) return ["(its text was evicted by retention; only its facts remain)"];
      const all = renderText(s.view, conversation(s.records, SHOW_RESULT_LINES, s.subagents), false)
        .split("\n");
      // the list line already names the session: the pane starts at the conversation
      const body = all.indexOf("");
      return body > 0 ? all.slice(body + 1) : all;
    },
    restore(no) {
      const plan = planRestore(i.db, row(no), everywhere, {
        roots: i.roots,
        to: null,
        cwd: i.cwd,
        dryRun: false,
      });
      writeRestore(plan);
      seen.clear();
      const n = plan.files.filter((f) => f.status === "restored").length;
      return `#${no}: ${n} file(s) restored, ${
        plan.files.length - n
      } already present. ${plan.resume}`;
    },
    exportMd(no) {
      const r = row(no);
      const bytes = exportBytes(loadSession(i.db, r, everywhere, isRedacting(filter)), "md");
      // one keystroke writes nothing into the project's working tree: a folder of its own in
      // the temp directory, named on the screen (`sessions export` writes where it is told)
      const path = join(Deno.makeTempDirSync({ prefix: "terminus-export-" }), `session-${no}.md`);
      writeExport(path, bytes);
      return `#${no} exported to ${path}`;
    },
    tag(no, tags) {
      const checked = checkTags(tags.map((t) => t.toLowerCase()));
      const { db } = openWrite(i.store);
      try {
        const r = tagSession(db, no, checked, true);
        return `#${no}: tags ${r.tags.map((t) => `+${t}`).join(" ")}`;
      } finally {
        closeWrite(db);
      }
    },
  };
}
