/** terminus reindex: rebuild the derived tables from the archived blocks, same turn ids. */
import { noStoreYet } from "../core/errors.ts";
import type { Command } from "./types.ts";
import { outcome } from "../core/output.ts";
import { resolveAll } from "../core/setup_context.ts";
import { openRead } from "../core/store/db.ts";
import { LOCK_HELD, lockHeldMessage, withLockedStore } from "../core/ingest/lock.ts";
import { initCodec } from "../core/store/codec.ts";
import { rebuildDerived } from "../core/index/reindex.ts";

const empty = () => ({ sessions: 0, turns: 0, skipped: [], preserved: 0 });

export const command: Command = {
  name: "reindex",
  usage: "terminus reindex [--json]",
  options: {},
  positionals: false,
  json: true,
  empty,
  async run(ctx) {
    const r = resolveAll(ctx);
    const ro = openRead(r.store);
    if (!ro) {
      return outcome("reindex", empty(), {
        reason: `${noStoreYet(r.store)}; nothing to rebuild`,
      });
    }
    ro.db.close();
    await initCodec();
    const done = await withLockedStore(r.dataDir, r.store, (db) => {
      const res = rebuildDerived(db, undefined, ctx.progress);
      const failed = res.skipped.length > 0;
      // human mode only: under --json the document carries the same facts
      const counts = res.skipped.map((s) => `${s.session_key}: skipped: ${s.reason}`);
      if (res.preserved > 0) {
        counts.push(
          `${res.preserved} evicted session(s) carried across with their rows as they were`,
        );
      }
      counts.push(`${res.sessions} session(s), ${res.turns} turn(s) rebuilt`);
      return outcome("reindex", res, {
        ok: !failed,
        exitCode: failed ? 1 : 0,
        reason: failed ? `${res.skipped.length} session(s) could not be rebuilt` : null,
        counts,
      });
    });
    if (done === LOCK_HELD) {
      return outcome("reindex", empty(), { ok: false, reason: lockHeldMessage(r.dataDir) });
    }
    return done;
  },
};
