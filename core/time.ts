/**
 * Time bounds: `YYYY-MM-DD`, or an RFC 3339 time (`YYYY-MM-DDTHH:MM:SS`, any fraction or none,
 * `Z` or an offset), both inclusive; a time is compared in UTC with millisecond precision.
 * A bare date means the start of the day (UTC) in --since and the end of it in --until.
 */
import { UsageError } from "./errors.ts";

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const STAMP =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function real(y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0): boolean {
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return false;
  const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
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
  // stored times have milliseconds: a finer fraction is rounded inward, so the bound keeps
  // out what lies outside it
  const frac = (m[7] ?? "").padEnd(9, "0");
  let ms = Number(frac.slice(0, 3));
  if (end === "start" && Number(frac.slice(3)) > 0) ms++;
  let offsetMin = 0;
  if (!m[8]) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) return null;
    offsetMin = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const t = Date.UTC(n[0], n[1] - 1, n[2], n[3], n[4], n[5], ms) - offsetMin * 60_000;
  return new Date(t).toISOString();
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
      `${flag} takes a date as YYYY-MM-DD or a time as YYYY-MM-DDTHH:MM:SS with an optional fraction and Z or an offset such as +02:00; '${value}' is not a real date or time in either form`,
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
