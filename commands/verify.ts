/** terminus verify: every archived block against its hash, every session against its checksum. */
import type { Command } from "./types.ts";
import { outcome } from "../core/output.ts";
import { resolveAll } from "../core/setup_context.ts";
import { openRead } from "../core/store/db.ts";
import { verifyStore } from "../core/store/inspect.ts";
import { initCodec } from "../core/store/codec.ts";

const empty = () => ({ checked: 0, failures: [] });

export const command: Command = {
  name: "verify",
  usage: "terminus verify [--json]",
  options: {},
  positionals: false,
  json: true,
  empty,
  async run(ctx) {
    const r = resolveAll(ctx);
    const opened = openRead(r.store);
    if (!opened) {
      return outcome("verify", empty(), {
        reason: `no store yet at ${r.store}; nothing to verify`,
      });
    }
    const { db, warnings } = opened;
    try {
      await initCodec();
      const rep = verifyStore(db);
      const human = rep.failures.map((f) =>
        f.block === null
          ? `${f.session_key}: ${f.detail}\n`
          : `${f.session_key}: block ${f.block}: ${f.detail}\n`
      );
      for (const k of rep.diverged) {
        warnings.push(
          `${k}: the transcript on disk is shorter than the archive; the archive is intact`,
        );
      }
      const failed = rep.failures.length > 0;
      return outcome("verify", { checked: rep.checked, failures: rep.failures }, {
        ok: !failed,
        exitCode: failed ? 1 : 0,
        reason: failed
          ? `${rep.failures.length} failure(s) in ${
            new Set(rep.failures.map((f) => f.session_key)).size
          } session(s)`
          : null,
        human,
        warnings,
        counts: [`${rep.checked} session(s) checked, ${rep.failures.length} failure(s)`],
      });
    } finally {
      db.close();
    }
  },
};
