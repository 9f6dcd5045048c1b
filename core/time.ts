/**
 * Time bounds: `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC, exactly three fraction digits),
 * both inclusive, and nothing else: the contract names these two forms and exits 2 on any
 * other, so an offset or a missing fraction is refused rather than guessed at.
 * A bare date means the start of the day (UTC) in --since and the end of it in --until.
 */
import { UsageError } from "./errors.ts";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const STAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z$/;

/** What a bad bound's message says the two accepted forms are, for the CLI and MCP alike. */
export const BOUND_FORMS = "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS.mmmZ (UTC)";

function real(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): boolean {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** Parses a bound; returns null for a value that is not one of the two forms or not a real time. */
export function parseBound(value: string, end: "start" | "end"): string | null {
  let m = DATE.exec(value);
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (!real(y, mo, d)) return null;
    return `${m[1]}-${m[2]}-${m[3]}T${end === "start" ? "00:00:00.000" : "23:59:59.999"}Z`;
  }
  m = STAMP.exec(value);
  if (!m) return null;
  const n = m.slice(1, 7).map(Number);
  if (!real(n[0], n[1], n[2], n[3], n[4], n[5])) return null;
  return value; // already the normalized form
}

export function boundFlag(
  flag: string,
  value: string | undefined,
  end: "start" | "end",
): string | null {
  if (value === undefined) return null;
  const b = parseBound(value, end);
  if (b === null) {
    throw new UsageError(
      `${flag} takes ${BOUND_FORMS}; '${value}' is not a real date or time in either form`,
    );
  }
  return b;
}

export function day(ts: string | null): string {
  return ts ? ts.slice(0, 10) : "-";
}

/** "1h 2m 3s", "2m 9s", "45s"; "-" when there is nothing to measure. */
export function durationText(s: number | null | undefined): string {
  if (s === null || s === undefined) return "-";
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h ${m}m ${sec}s` : m > 0 ? `${m}m ${sec}s` : `${sec}s`;
}

/** Whole seconds from `a` to `b`; null when either is missing or unreadable. */
export function secondsBetween(a: string | null, b: string | null): number | null {
  if (!a || !b) return null;
  const d = Date.parse(b) - Date.parse(a);
  return Number.isFinite(d) ? Math.max(0, Math.round(d / 1000)) : null;
}
