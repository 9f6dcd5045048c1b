/**
 * Each bench hook's own clock, from the decision log: `elapsed_ms` (the deadline clock) and
 * `before_ms` (the process's life before that clock started: runtime start, module load, the
 * pass's spawn, stdin). A hook queues its decision and a later pass moves it into the store, so
 * both places are read. Only sessions whose id starts with `prefix` are kept.
 */
import { join } from "node:path";
import { decisionDocs } from "../../core/store/decisions.ts";
import { withStore } from "./store.ts";

export interface HookTimes {
  elapsed: number;
  before: number;
}

export function hookTimes(store: string, dataDir: string, prefix: string): Map<string, HookTimes> {
  const m = new Map<string, HookTimes>();
  const take = (doc: string) => {
    const d = JSON.parse(doc);
    if (typeof d.session_id === "string" && d.session_id.startsWith(prefix)) {
      m.set(d.session_id, { elapsed: d.elapsed_ms ?? NaN, before: d.before_ms ?? NaN });
    }
  };
  try {
    for (const doc of withStore(store, (db) => decisionDocs(db))) take(doc);
  } catch { /* no store yet: the queue alone */ }
  try {
    for (const e of Deno.readDirSync(join(dataDir, "queue"))) {
      if (!e.isFile || !e.name.endsWith(".json")) continue;
      try {
        take(Deno.readTextFileSync(join(dataDir, "queue", e.name)));
      } catch { /* moved into the store since the listing: read there next time */ }
    }
  } catch { /* no queue */ }
  return m;
}
