/** Small pieces the read commands share: opening the store, scope, and flag values. */
import type { Context } from "../core/context.ts";
import { UsageError } from "../core/errors.ts";
import type { Resolved } from "../core/resolve.ts";
import type { Db } from "../core/store/db.ts";
import { openStore, type StoreOpen } from "../core/open.ts";
import { resolveScope, type Scope } from "../core/open.ts";
import type { Values } from "./types.ts";

export type ReadOpen = StoreOpen;

/** Opens the store read-only (core/open.ts); `readsBlocks` loads zstd, which a listing never needs. */
export function openForRead(ctx: Context, readsBlocks = true): Promise<ReadOpen> {
  return openStore(ctx, { readsBlocks });
}

export function scopeOf(ctx: Context, db: Db, r: Resolved, values: Values): Scope {
  return resolveScope(db, r.cfg, ctx.cwd, values.project as string | undefined);
}

/**
 * A whole number flag; `min` is the smallest accepted value. `max`, where given, caps it: any
 * larger whole number, however many digits, is taken as `max` (search's limit, as the guide says).
 */
export function wholeFlag(
  values: Values,
  name: string,
  min: number,
  max?: number,
): number | null {
  const v = values[name];
  if (v === undefined) return null;
  const s = String(v);
  if (/^-\d/.test(s)) {
    throw new UsageError(`--${name} takes a whole number of ${min} or more; '${s}' is negative`);
  }
  if (!/^\d+$/.test(s)) throw new UsageError(`--${name} takes a whole number; '${s}' is not one`);
  if (max !== undefined && BigInt(s) > BigInt(max)) return max;
  const n = Number(s);
  // Past 2^53 a number no longer names itself exactly: refuse it rather than round it.
  if (!Number.isSafeInteger(n)) {
    throw new UsageError(
      `--${name} takes a whole number up to ${Number.MAX_SAFE_INTEGER}; '${s}' is larger`,
    );
  }
  if (n < min) throw new UsageError(`--${name} must be at least ${min}; got ${n}`);
  return n;
}

export function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

export function list(values: Values, name: string): string[] {
  const v = values[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(String);
}

export const PROJECT_OPTION = { project: { type: "string" as const } };
export const BOUND_OPTIONS = {
  since: { type: "string" as const },
  until: { type: "string" as const },
};
