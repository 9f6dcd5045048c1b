/**
 * The settled stores of the scale corpora: `scale/store-<size>/` (data/, config/, claude/), a
 * store holding the whole corpus with every closed session observed, so a pass over it has
 * nothing to do. Made once by the checkout's `terminus ingest`, pass after pass until one has
 * nothing to say, and reused while `ready.json` matches the corpus. Snapshots are off: a
 * VACUUM INTO of a 1.3 GB store mid-measurement is not what the figures are about.
 */
import { join } from "node:path";
import { ingest, type Scenario, scenario } from "./terminus.ts";
import { type ScaleCorpus, withScaleLock } from "./scale_corpus.ts";
import { withStore } from "./store.ts";
import { forgetDecisions } from "../../core/store/decisions.ts";
import { lastRunNotes as notesOfLastRun } from "../../core/store/inspect.ts";
import { openWrite, rebuildPending } from "../../core/store/db.ts";

/**
 * Bumped when the settled store must be remade (not for a schema change: a pass migrates). 2: a
 * pass that adds most of the archive merges the search index, so the store a bulk pass leaves
 * has one segment, where version 1's kept the eight or eleven its commits made.
 */
const STORE_VERSION = 2;

export function scaleConfig(s: Scenario): void {
  Deno.writeTextFileSync(
    join(s.configDir, "terminus.toml"),
    `roots = [${s.roots.map((r) => JSON.stringify(r)).join(", ")}]\n[snapshot]\nenabled = false\n`,
  );
}

/** Whether the store's last pass had anything to say (closing, observing, leaving work). */
export function lastRunNotes(store: string): string | null {
  return withStore(store, notesOfLastRun);
}

export interface SettledStore {
  scn: Scenario;
  reused: boolean;
  /** Passes it took to settle, when made now. */
  passes: number;
}

/** The corpus's settled store, made now unless a current one is there. */
export async function settledStore(
  scaleDir: string,
  repo: string,
  c: ScaleCorpus,
  log: (m: string) => void,
): Promise<SettledStore> {
  return await withScaleLock(scaleDir, () => settledLocked(scaleDir, repo, c, log));
}

async function settledLocked(
  scaleDir: string,
  repo: string,
  c: ScaleCorpus,
  log: (m: string) => void,
): Promise<SettledStore> {
  const dir = join(scaleDir, `store-${c.size.name}`);
  const want = readyFor(c);
  try {
    const have = JSON.parse(Deno.readTextFileSync(join(dir, "ready.json")));
    if (have.version === want.version && have.files === want.files && have.bytes === want.bytes) {
      const scn = scenario(scaleDir, `store-${c.size.name}`, [c.root], false);
      scaleConfig(scn);
      const gone = forgetHooks(scn);
      if (gone > 0) {
        log(`scale ${c.size.name}: ${gone} decision(s) earlier runs' hooks left cleared`);
      }
      // a store an older build left is upgraded by its next pass (a derived schema change
      // rebuilds the index): done here, not inside the rows that time the hooks
      const passes = await settle(repo, scn);
      if (passes > 1) log(`scale ${c.size.name}: settled again after ${passes} pass(es)`);
      return { scn, reused: true, passes: 0 };
    }
  } catch { /* not made yet */ }
  const scn = scenario(scaleDir, `store-${c.size.name}`, [c.root], true);
  scaleConfig(scn);
  log(`scale ${c.size.name}: making the settled store (${(c.bytes / 1e9).toFixed(2)} GB)`);
  const passes = await settle(
    repo,
    scn,
    (ms) => log(`scale ${c.size.name}: backfill ${(ms / 1000).toFixed(1)} s`),
  );
  log(`scale ${c.size.name}: settled after ${passes} pass(es)`);
  markReady(scaleDir, c);
  return { scn, reused: false, passes };
}

/**
 * Passes until one has nothing to say and no rebuild of the index is pending (at most 500);
 * `first` hears the first pass's wall.
 */
async function settle(repo: string, scn: Scenario, first?: (ms: number) => void): Promise<number> {
  let passes = 0;
  for (;;) {
    const r = await ingest(repo, scn);
    passes++;
    if (passes === 1) first?.(r.wallMs);
    const settled = lastRunNotes(scn.store) === null && !withStore(scn.store, rebuildPending);
    if (settled || passes >= 500) return passes;
  }
}

/**
 * What earlier runs' hooks (this bench's, and any other tool's pointed at the store) left: the
 * decision log, its labels, the queue and the session state. The corpus holds no hook, so a
 * settled store holds none of it. Their session ids have no transcript, so no pass can label
 * their decisions, and each pass's labelling look walks every one (1,825 of them cost the
 * no-op pass 2.5-5.6 ms): left in place, the no-op row would grow with the bench's own history.
 */
function forgetHooks(scn: Scenario): number {
  const db = openWrite(scn.store).db;
  let n = 0;
  try {
    n = forgetDecisions(db);
  } finally {
    db.close();
  }
  for (const sub of ["queue", "state"]) {
    const d = join(scn.dataDir, sub);
    try {
      for (const e of Deno.readDirSync(d)) {
        if (e.isFile && e.name.endsWith(".json")) Deno.removeSync(join(d, e.name));
      }
    } catch { /* none yet */ }
  }
  return n;
}

function readyFor(c: ScaleCorpus) {
  return { version: STORE_VERSION, files: c.files, bytes: c.bytes };
}

/** Records that `store-<size>` holds the whole corpus, settled. */
export function markReady(scaleDir: string, c: ScaleCorpus): void {
  Deno.writeTextFileSync(
    join(scaleDir, `store-${c.size.name}`, "ready.json"),
    JSON.stringify(readyFor(c)) + "\n",
  );
}
