/**
 * terminus data move <path> [-y | --yes]: the adapter. The move itself, its question and its
 * report are the use case in core/move/move.ts.
 */
import type { Command, CommandHelp } from "./types.ts";
import { UsageError } from "../core/errors.ts";
import { moveData } from "../core/move/move.ts";

const help: CommandHelp = {
  options: [["-y, --yes", "answer the move question yes"]],
  examples: ["mkdir -m 700 /mnt/big/terminus && terminus data move /mnt/big/terminus"],
};

export const command: Command = {
  name: "data",
  help,
  subcommands: {
    names: ["move"],
    summaries: { move: "move the data directory to a new path" },
    missing: "data: name a subcommand (move)",
    unknown: (word) => `data: unknown subcommand '${word}'`,
  },
  usage: "terminus data move <path> [-y | --yes]",
  options: { yes: { type: "boolean", short: "y" } },
  positionals: true,
  json: false,
  empty: () => null,
  run(ctx, args) {
    const [, path, ...rest] = args.positionals; // the one subcommand, move, is the first word
    if (path === undefined || path === "") throw new UsageError("data move: name the new path");
    if (rest.length > 0) throw new UsageError("data move takes one path");
    return moveData(ctx, path, args.values.yes === true);
  },
};
