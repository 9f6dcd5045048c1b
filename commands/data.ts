/**
 * terminus data move <path> [-y | --yes]: copy the whole data directory to <path> under the
 * ingest lock, record the new location, then delete the old directory. It asks once before
 * anything moves, so this one command writes its report and question as it goes rather than
 * handing everything to the renderer at the end.
 */
import type { Command } from "./types.ts";
import { escapeControls, humanBytes, type Outcome, outcome, row } from "../core/output.ts";
import { UsageError } from "../core/errors.ts";
import { dataDir as resolveDataDir } from "../core/paths.ts";
import { LOCK_HELD, lockHeldMessage, withIngestLock } from "../core/ingest/lock.ts";
import { DIR_MODE } from "../core/constants.ts";
import {
  insideDataDir,
  MOVE_STAGING,
  nearestExisting,
  normalizeTarget,
  probeTarget,
  recheckTarget,
} from "../core/move/target.ts";
import { copyStaged, dirSize } from "../core/move/copy.ts";
import { networkFsType } from "../core/move/mounts.ts";
import { dataLocationFile, recordable, recordDataLocation } from "../core/move/location.ts";

/** What the command says before its question, and how it reads the answer. */
export interface Conversation {
  say(text: string): void;
  warn(text: string): void;
  /** One line from stdin without its newline; null when there is no answer to read. */
  ask(question: string): Promise<string | null>;
}

const encoder = new TextEncoder();

function writeAll(stream: typeof Deno.stdout, text: string): void {
  let buf = encoder.encode(escapeControls(text));
  while (buf.length > 0) buf = buf.subarray(stream.writeSync(buf));
}

async function readLine(): Promise<string | null> {
  const chunks: number[] = [];
  const buf = new Uint8Array(1);
  while (true) {
    let n: number | null;
    try {
      n = await Deno.stdin.read(buf);
    } catch {
      n = null;
    }
    if (n === null || n === 0) break;
    if (buf[0] === 0x0a) return new TextDecoder().decode(new Uint8Array(chunks));
    chunks.push(buf[0]);
  }
  return chunks.length ? new TextDecoder().decode(new Uint8Array(chunks)) : null;
}

export const terminal: Conversation = {
  say: (text) => writeAll(Deno.stdout, text),
  warn: (text) => writeAll(Deno.stderr, text),
  ask: (question) => {
    writeAll(Deno.stdout, question);
    return readLine();
  },
};

const NAME = "data move";

function refuse(reason: string): Outcome {
  return outcome(NAME, null, { ok: false, reason });
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

export async function moveData(
  ctx: Parameters<Command["run"]>[0],
  raw: string,
  yes: boolean,
  io: Conversation,
): Promise<Outcome> {
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
  const inside = insideDataDir(target, source);
  if (inside) return refuse(inside);
  if (!recordable(target)) {
    return refuse(`${JSON.stringify(target)} cannot be recorded as the data directory`);
  }
  const ours = new Set([...Deno.readDirSync(real)].map((e) => e.name));
  const before = probeTarget(target, undefined, ours);
  if (!before.ok) return refuse(`${before.reason}; nothing moved`);

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
  const overridden = ctx.env("TERMINUS_DATA_DIR");
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

  // copied, recorded and deleted under the ingest lock, so no pass writes meanwhile
  const moved = await withIngestLock(source, () => {
    const changed = recheckTarget(target, before, ours);
    if (changed) return refuse(changed);
    const cleared: string[] = [];
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

    try {
      Deno.removeSync(`${target}/${MOVE_STAGING}`);
    } catch { /* an empty folder left behind is skipped by the next move's copy */ }
    const done = [...cleared, `copied ${humanBytes(copied)} to ${target}`, `recorded in ${file}`];
    try {
      Deno.removeSync(real, { recursive: true });
      if (linked) Deno.removeSync(source);
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
  });
  return moved === LOCK_HELD ? refuse(`${lockHeldMessage(source)}; nothing moved`) : moved;
}

export const command: Command = {
  name: "data",
  usage: "terminus data move <path> [-y | --yes]",
  options: { yes: { type: "boolean", short: "y" } },
  positionals: true,
  json: false,
  empty: () => null,
  run(ctx, args) {
    const [sub, path, ...rest] = args.positionals;
    if (sub === undefined) throw new UsageError("data: name a subcommand (move)");
    if (sub !== "move") throw new UsageError(`data: unknown subcommand '${sub}'`);
    if (path === undefined || path === "") throw new UsageError("data move: name the new path");
    if (rest.length > 0) throw new UsageError("data move takes one path");
    return moveData(ctx, path, args.values.yes === true, terminal);
  },
};
