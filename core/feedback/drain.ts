/**
 * The pass's two decision-log steps: drain the hooks' queue into `decisions` (an excluded
 * project's prompts removed unlogged, and counted), then label decisions of closed sessions.
 */
import { join } from "../posix.ts";
import { type Db, transaction } from "../store/db.ts";
import { type Config, isExcluded } from "../config.ts";
import { QUEUE_DIR } from "../paths.ts";
import { insertDecision, unlabelledClosed, writeLabels } from "../store/decisions.ts";
import { type DecisionDoc, wasLate } from "../inject/queue.ts";
import { judge } from "./labels.ts";
import { HOOK_DEADLINE_MS, TAIL_STEP_ROWS } from "../constants.ts";

export function drainQueue(db: Db, cfg: Config, dataDir: string): string[] {
  const dir = join(dataDir, QUEUE_DIR);
  let names: string[];
  try {
    names = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".json")).map((
      e,
    ) => e.name).sort();
  } catch {
    return [];
  }
  const notes: string[] = [];
  let logged = 0;
  let excluded = 0;
  let late = 0;
  // Committed a step at a time, each step's files removed once it commits: a pass killed
  // partway keeps the steps it finished and the next pass drains the rest.
  for (let i = 0; i < names.length; i += TAIL_STEP_ROWS) {
    const done: string[] = [];
    transaction(db, () => {
      for (const name of names.slice(i, i + TAIL_STEP_ROWS)) {
        let d: DecisionDoc;
        try {
          d = JSON.parse(Deno.readTextFileSync(join(dir, name)));
        } catch (e) {
          notes.push(`queued decision ${name} could not be read: ${(e as Error).message}`);
          continue;
        }
        done.push(name);
        if (isExcluded(cfg, d.project) || isExcluded(cfg, d.cwd)) {
          excluded++;
          continue;
        }
        insertDecision(db, name, {
          sessionId: d.session_id ?? null,
          project: d.project ?? null,
          at: d.at ?? null,
          compacted: typeof d.compacted === "boolean" ? d.compacted : null,
          injectedTurns: d.injected?.length ?? 0,
          charsInjected: (d.injected ?? []).reduce((n, i) => n + (i.chars ?? 0), 0),
          doc: JSON.stringify(d),
        });
        logged++;
        if (wasLate(d)) late++;
      }
    });
    // Removed only once committed; a crash in between re-reads them, and the queue name is unique.
    for (const name of done) {
      try {
        Deno.removeSync(join(dir, name));
      } catch { /* already gone */ }
    }
  }
  if (logged) {
    notes.push(
      `${logged} prompt decision(s) logged, ${late} of them past the ${HOOK_DEADLINE_MS} ms deadline`,
    );
  }
  if (excluded) {
    notes.push(`${excluded} queued prompt(s) of excluded projects removed without logging`);
  }
  return notes;
}

export function labelClosed(db: Db): string[] {
  const rows = unlabelledClosed(db);
  if (!rows.length) return [];
  // a step at a time, like the drain: each committed step stays labelled if the pass dies
  for (let i = 0; i < rows.length; i += TAIL_STEP_ROWS) {
    transaction(db, () => {
      for (const r of rows.slice(i, i + TAIL_STEP_ROWS)) {
        const d = JSON.parse(r.doc) as DecisionDoc;
        writeLabels(
          db,
          r.id,
          judge(db, r.id, {
            injected: d.injected ?? [],
            spellings: d.spellings ?? [],
            sessionId: r.sessionId!,
            at: r.at ?? "",
          }),
        );
      }
    });
  }
  return [`${rows.length} decision(s) labelled`];
}
