/**
 * The whole-tree pass: the archive pass, then the steps that follow closing — observing
 * closed sessions (retention and snapshots join here).
 */
import { type PassInput, type PassResult, runPass } from "./pass.ts";
import { observeClosed } from "../observe/step.ts";

export function runWholePass(input: Omit<PassInput, "only" | "afterClose">): Promise<PassResult> {
  return runPass({
    ...input,
    afterClose(db, c) {
      c.notes.push(...observeClosed(db, c.now));
    },
  });
}
