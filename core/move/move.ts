/**
 * `terminus data move <path>`: copy the whole data directory to <path> under the ingest lock,
 * record the new location, then delete the old directory. It asks once before anything moves,
 * so it reports and asks as it goes, through the Context's conversation, rather than handing
 * everything to the renderer at the end. A move killed part way is finished or undone by the
 * next run (core/move/leftover.ts).
 */
import type { Context } from "../context.ts";
import type { Dialogue } from "../dialogue.ts";
import { humanBytes, type Outcome, outcome, row } from "../output.ts";
import { dataDir as resolveDataDir } from "../paths.ts";
import { LOCK_HELD, lockHeldMessage, withIngestLock } from "../store/lock.ts";
import { DIR_MODE } from "../constants.ts";
import {
  canonical,
  insideDataDir,
  MOVE_STAGING,
  nearestExisting,
  normalizeTarget,
  probeTarget,
  recheckTarget,
} from "./target.ts";
import { copyStaged, dirSize } from "./copy.ts";
import { networkFsType } from "./mounts.ts";
import { dataLocationFile, recordable, recordDataLocation } from "./location.ts";
import {
  clearStaging,
  deleteOldCopy,
  finishInterruptedMove,
  markMove,
  MOVED_AWAY,
} from "./leftover.ts";

const NAME = "data move";

function refuse(reason: string): Outcome {
  return outcome(NAME, null, { ok: false, reason });
}

/** finishInterruptedMove under the lock: its notes, or the refusal when the lock is held. */
async function finishEarlier(dataDir: string): Promise<string[] | Outcome> {
  const r = await withIngestLock(dataDir, () => {
    try {
      return finishInterruptedMove(dataDir);
    } catch (e) {
      return refuse(`an earlier move's leftovers could not be cleared: ${(e as Error).message}`);
    }
  });
  return r === LOCK_HELD ? refuse(`${lockHeldMessage(dataDir)}; nothing moved`) : r;
}

/** Removes what a failed copy left in the target, and the target itself when it was made here. */
function undoCopy(target: string, created: string | null): string | null {
  try {
    if (created) {
      Deno.removeSync(created, { recursive: true });
    } else {
      for (const ent of Deno.readDirSync(target)) {
        Deno.removeSync(`${target}/${ent.name}`, { recursive: true });
      }
    }
    return null;
  } catch (e) {
    return `the partial copy in ${target} could not be removed: ${(e as Error).message}`;
  }
}

/** The first folder `mkdir -p target` would create, or null when it exists already. */
function firstMissing(target: string): string | null {
  const anc = nearestExisting(target);
  const rest = target.slice(anc === "/" ? 1 : anc.length + 1).split("/");
  return anc === "/" ? `/${rest[0]}` : `${anc}/${rest[0]}`;
}

export async function moveData(ctx: Context, raw: string, yes: boolean): Promise<Outcome> {
  const io: Dialogue | undefined = ctx.io;
  if (!io) throw new Error("data move needs a conversation to report and ask through");
  const source = resolveDataDir(ctx.env);
  const target = normalizeTarget(raw, ctx.cwd);

  let sourceInfo: Deno.FileInfo;
  try {
    sourceInfo = Deno.statSync(source);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return refuse(`there is no data directory at ${source} yet, so there is nothing to move`);
    }
    throw e;
  }
  if (!sourceInfo.isDirectory) return refuse(`the data directory ${source} is not a folder`);
  // A data directory that is a link is copied and deleted where it really is; deleting the
  // link alone would leave the whole store behind.
  const linked = Deno.lstatSync(source).isSymlink;
  const real = linked ? Deno.realPathSync(source) : source;
  // A move here that recorded this place but was killed before deleting the old copy is
  // finished first; a rerun of that same move has nothing else to do.
  const finished = await finishEarlier(source);
  if (!Array.isArray(finished)) return finished;
  const inside = insideDataDir(target, source);
  if (inside && finished.length > 0 && canonical(target) === canonical(source)) {
    return outcome(NAME, null, { counts: finished });
  }
  if (inside) return refuse(inside);
  if (!recordable(target)) {
    return refuse(`${JSON.stringify(target)} cannot be recorded as the data directory`);
  }
  const ours = new Set([...Deno.readDirSync(real)].map((e) => e.name));
  ours.delete(MOVED_AWAY);
  const before = probeTarget(target, undefined, ours);
  if (!before.ok) return refuse(`${before.reason}; nothing moved`);

  const overridden = ctx.env("TERMINUS_DATA_DIR") ?? null;
  const declined = await askToMove(io, { source, real, linked, target, overridden }, yes);
  if (declined) return declined;

  // copied, recorded and deleted under the ingest lock, so no pass writes meanwhile
  const m: Move = { source, real, linked, target, before, ours, finished, overridden };
  const moved = await withIngestLock(source, () => moveUnderLock(ctx, m));
  return moved === LOCK_HELD ? refuse(`${lockHeldMessage(source)}; nothing moved`) : moved;
}

/** What a confirmed move carries under the lock. */
interface Move {
  source: string;
  real: string;
  linked: boolean;
  target: string;
  before: ReturnType<typeof probeTarget> & { ok: true };
  ours: Set<string>;
  finished: string[];
  overridden: string | null;
}

/**
 * Says what would move where (and what makes it unsafe), then asks; `--yes` answers for the
 * person. Null when the move is to go ahead, else the outcome that ends it.
 */
async function askToMove(
  io: Dialogue,
  p: { source: string; real: string; linked: boolean; target: string; overridden: string | null },
  yes: boolean,
): Promise<Outcome | null> {
  const { source, real, linked, target, overridden } = p;
  const size = dirSize(real);
  const network = networkFsType(target);
  io.say(
    [
      row("data now", linked ? `${source} (a link to ${real})` : source),
      row("moving to", target),
      row("size", humanBytes(size)),
    ].join("\n") + "\n",
  );
  if (network) {
    io.warn(
      `warning: ${target} is on a network filesystem (${network}); the store is not safe there\n`,
    );
  }
  if (overridden) {
    io.warn(
      `warning: TERMINUS_DATA_DIR is set (${overridden}) and outranks the recorded location, ` +
        `so Terminus keeps using that path until you change or unset it\n`,
    );
  }
  const question =
    `The store is not safe on a network filesystem (NFS, SMB/CIFS, sshfs): keep it on a local disk.\n` +
    `Move the data directory to ${target}? [y/N] `;
  if (yes) {
    io.say(question + "yes (--yes)\n");
  } else {
    const answer = await io.ask(question);
    if (answer === null) {
      io.say("\n");
      return refuse("no answer to read (stdin is closed); nothing moved. -y answers yes");
    }
    if (!/^\s*(y|yes)\s*$/i.test(answer)) {
      return outcome(NAME, null, { counts: ["nothing moved"] });
    }
  }
  return null;
}

/** Copies, records the new place and deletes the old copy: run under the ingest lock. */
function moveUnderLock(ctx: Context, m: Move): Outcome {
  const { source, real, linked, target, before, ours, finished, overridden } = m;
  const changed = recheckTarget(target, before, ours);
  if (changed) return refuse(changed);
  const cleared: string[] = [...finished];
  if (before.kind === "leftover") {
    // An earlier move stopped part way: what it left is cleared and the copy starts over.
    const undo = undoCopy(target, null);
    if (undo) return refuse(`${undo}; nothing moved`);
    cleared.push(`cleared what an earlier move left in ${target}`);
  }

  let created: string | null = null;
  if (before.kind === "absent") {
    created = firstMissing(target);
    try {
      Deno.mkdirSync(target, { recursive: true, mode: DIR_MODE });
    } catch (e) {
      return refuse(`${target} could not be created: ${(e as Error).message}; nothing moved`);
    }
  }

  let copied: number;
  const shown = ctx.progress?.("copying", dirSize(real), "bytes");
  try {
    copied = copyStaged(real, target, `${target}/${MOVE_STAGING}`, shown);
  } catch (e) {
    shown?.finish();
    const undo = undoCopy(target, created);
    return refuse(
      `the copy to ${target} failed: ${(e as Error).message}. ${source} is untouched ` +
        `and still the data directory` + (undo ? `; ${undo}` : ""),
    );
  }
  shown?.finish();

  let file: string;
  try {
    // where the data came from and went, before the location says so: a kill from here on
    // leaves what the next run needs to delete the old copy (core/move/leftover.ts)
    markMove(real, linked ? source : null, target);
    file = recordDataLocation(ctx.env, target);
  } catch (e) {
    const undo = undoCopy(target, created);
    return refuse(
      `the new location could not be recorded in ${dataLocationFile(ctx.env)}: ${
        (e as Error).message
      }. ${source} is untouched and still the data directory` +
        (undo ? `; ${undo}` : ""),
    );
  }

  const done = [...cleared, `copied ${humanBytes(copied)} to ${target}`, `recorded in ${file}`];
  try {
    deleteOldCopy(real, linked ? source : null);
    clearStaging(target);
  } catch (e) {
    return outcome(NAME, null, {
      ok: false,
      counts: done,
      reason: `the data now lives in ${target}, but ${source} could not be deleted: ${
        (e as Error).message
      }; delete it by hand`,
    });
  }
  done.push(linked ? `deleted ${real}, and the link ${source} to it` : `deleted ${source}`);
  const warnings = overridden
    ? [`TERMINUS_DATA_DIR still names ${overridden}; unset it to use ${target}`]
    : [];
  return outcome(NAME, null, { counts: done, warnings });
}
