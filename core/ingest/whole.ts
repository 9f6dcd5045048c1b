/**
 * The whole-tree pass: the archive pass plus the steps that follow it (observing closed
 * sessions, retention, snapshots) as later modules add them.
 */
import { type PassInput, type PassResult, runPass } from "./pass.ts";

export function runWholePass(input: Omit<PassInput, "only" | "afterClose">): Promise<PassResult> {
  return runPass({ ...input });
}
