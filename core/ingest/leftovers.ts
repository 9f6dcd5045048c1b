/**
 * What killed writers left that the pass clears as it starts, holding the ingest lock: an
 * interrupted data move into this directory (core/move/leftover.ts) and the hooks' temporary
 * state and queue files (a hook killed between writing and renaming one; none is swept while
 * its writer still holds it locked).
 */
import { join } from "../posix.ts";
import { anyTemp, sweepLeftovers } from "../fs.ts";
import { QUEUE_DIR } from "../paths.ts";
import { STATE_DIR, TEMP_DIR } from "../paths.ts";
import { finishInterruptedMove } from "../move/leftover.ts";

export function clearLeftovers(dataDir: string): { notes: string[]; errors: string[] } {
  const notes: string[] = [];
  const errors: string[] = [];
  try {
    notes.push(...finishInterruptedMove(dataDir));
  } catch (e) {
    errors.push(`an interrupted data move could not be finished: ${(e as Error).message}`);
  }
  // the hooks write through a temporaries folder of their own, so only it is listed here (the
  // state folder holds a file per session)
  const swept = [STATE_DIR, QUEUE_DIR].flatMap((d) =>
    sweepLeftovers(join(dataDir, d, TEMP_DIR), anyTemp)
  );
  if (swept.length) {
    notes.push(`${swept.length} temporary hook file(s) a killed hook left were removed`);
  }
  return { notes, errors };
}
