/**
 * The fast layer's house: a temp HOME, config and data directory like tests/helpers.ts's
 * sandbox, but the program is called in this process. A command runs through the same parse,
 * run and render steps mod.ts uses; a pass runs through the same core call `ingest` makes,
 * with the clock handed in. Real SQLite files, real transcripts; nothing is mocked, and
 * nothing here starts a process (the task runs these files without --allow-run).
 */
import type { Context } from "../../core/context.ts";
import type { Streams } from "../../core/streams.ts";
import { UsageError } from "../../core/errors.ts";
import { render } from "../../core/output.ts";
import { resolveAll } from "../../core/resolve.ts";
import { runWholePass } from "../../core/ingest/whole.ts";
import type { PassResult } from "../../core/ingest/pass.ts";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { type Db, openRead } from "../../core/store/db.ts";
import { initCodec } from "../../core/store/codec.ts";
import { find } from "../../commands/mod.ts";
import { parse, runCommand } from "../../commands/parse.ts";
import { type Sandbox, tempWorld } from "../helpers.ts";

const decoder = new TextDecoder();

/** A fixed clock: every test names its own now, so no answer depends on the day it runs. */
export const NOW = new Date("2026-11-30T12:00:00.000Z");

export interface UnitBox extends Sandbox {
  /** The context a command gets, typed in `cwd` (the box's folder unless told). */
  ctx(cwd?: string): Context;
  /** What the box's clock reads; a test moves it by setting it. */
  now: Date;
}

/** A temp world: HOME, TERMINUS_CONFIG_DIR, CLAUDE_CONFIG_DIR with projects/, a data dir. */
export async function unitBox(): Promise<UnitBox> {
  const sb = await tempWorld("terminus-unit-", {});
  const box: UnitBox = Object.assign(sb, {
    now: NOW,
    ctx(cwd = sb.dir): Context {
      // the spec's rule, as processEnv applies it: an empty value counts as unset
      const get = (name: string) => (sb.env[name] === "" ? undefined : sb.env[name]);
      return { env: get, cwd, self: ["terminus-unit-has-no-self"], now: () => box.now };
    },
  });
  return box;
}

export interface Ran {
  code: number;
  out: string;
  err: string;
}

/**
 * `terminus <args>` answered in this process: parse, run and render as mod.ts does, misuse
 * exit 2 with its message. Commands that start processes or read stdin are not for here.
 */
export async function cli(
  box: UnitBox,
  args: string[],
  cwd?: string,
  terminal?: { columns: number },
): Promise<Ran> {
  const entry = find(args[0]);
  if (!entry) throw new Error(`no command ${args[0]}`);
  const cmd = await entry.load();
  try {
    const parsed = await parse(cmd, args.slice(1));
    const ctx = box.ctx(cwd);
    if (terminal) ctx.streams = terminalStreams(terminal.columns);
    const r = render(
      await runCommand(cmd, ctx, parsed),
      parsed.json,
      terminal ? terminal.columns : null,
    );
    return {
      code: r.exitCode,
      out: r.stdout.map((c) => (typeof c === "string" ? c : decoder.decode(c))).join(""),
      err: r.stderr.map((l) => l + "\n").join(""),
    };
  } catch (e) {
    if (e instanceof UsageError) return { code: 2, out: "", err: e.message + "\n" };
    throw e;
  }
}

/** Streams whose stdout and stderr are a terminal `columns` wide (nothing is read). */
export function terminalStreams(columns: number): Streams {
  return {
    isTerminal: (s) => s !== "stdin",
    size: () => ({ columns, rows: 24 }),
    read: () => Promise.resolve(null),
    stdio: () => {
      throw new Error("no stdio in the fast layer");
    },
    screen: () => {
      throw new Error("no screen in the fast layer");
    },
  };
}

/** The data of `terminus <args> --json`, failing with the output when it did not exit 0. */
export async function jsonOf(box: UnitBox, args: string[], cwd?: string) {
  const r = await cli(box, [...args, "--json"], cwd);
  if (r.code !== 0) throw new Error(`${args.join(" ")} exited ${r.code}: ${r.out}${r.err}`);
  return JSON.parse(r.out) as { data: Record<string, unknown>; ok: boolean; reason: string };
}

/** The whole-tree pass `terminus ingest` runs, at the given time (the box's clock unless told). */
export function pass(box: UnitBox, now = box.now): Promise<PassResult> {
  const r = resolveAll(box.ctx());
  return runWholePass({ cfg: r.cfg, dataDir: r.dataDir, roots: r.roots, now });
}

/** Runs `fn` against the store opened read-only, with the block codec ready. */
export async function withStore<T>(box: UnitBox, fn: (db: Db) => T): Promise<T> {
  await initCodec();
  const o = openRead(box.store);
  if (!o) throw new Error(`no store at ${box.store}`);
  try {
    return fn(o.db);
  } finally {
    o.db.close();
  }
}

/**
 * The connection, with `note` told of every statement it runs: the SQL and its parameters of
 * each run/get/all/iterate, and each exec (no parameters). Nothing else changes: the statements
 * run on the real store.
 */
export function watched(db: Db, note: (sql: string, params: unknown[]) => void): Db {
  const wrap = (st: StatementSync, sql: string): StatementSync =>
    new Proxy(st, {
      get(t, p) {
        const v = Reflect.get(t, p, t);
        if (typeof v !== "function") return v;
        if (p === "run" || p === "get" || p === "all" || p === "iterate") {
          return (...a: unknown[]) => {
            note(sql, a);
            return (v as (...x: unknown[]) => unknown).apply(t, a);
          };
        }
        return v.bind(t);
      },
    });
  return new Proxy(db, {
    get(t, p) {
      const v = Reflect.get(t, p, t);
      if (typeof v !== "function") return v;
      if (p === "prepare") return (sql: string) => wrap(t.prepare(sql), sql);
      if (p === "exec") {
        return (sql: string) => {
          note(sql, []);
          return t.exec(sql);
        };
      }
      return v.bind(t);
    },
  }) as DatabaseSync;
}
