/**
 * Session references as a person types them: `42`, `#42`, a session UUID, a unique UUID
 * prefix of at least REF_PREFIX_MIN characters (digits alone included), a transcript path, or
 * a transcript's file name as listings print it (`<uuid>.jsonl`, a subagent's `agent-*.jsonl`).
 * A session in an excluded project is never found, whatever the reference.
 */
import type { Config } from "../config.ts";
import { REF_PREFIX_MIN } from "../constants.ts";
import { NotFoundError, UsageError } from "../errors.ts";
import { resolve } from "../posix.ts";
import type { Db } from "../store/db.ts";
import { listSessions, type SessionRow, sessionsMatching } from "../store/session_listing.ts";
import { keyFor } from "../transcript/session_key.ts";

const NUMBER = /^#?(\d+)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PREFIX = /^[0-9a-f-]+$/i;

export type RefKind = "number" | "uuid" | "prefix" | "path";

/** What kind of reference a word is; throws UsageError for one that is none of them. */
export function refKind(ref: string): RefKind {
  if (NUMBER.test(ref)) return "number";
  if (UUID.test(ref)) return "uuid";
  if (ref.includes("/") || ref.endsWith(".jsonl")) return "path";
  if (PREFIX.test(ref) && ref.length >= REF_PREFIX_MIN) return "prefix";
  if (PREFIX.test(ref)) {
    throw new UsageError(
      `session reference '${ref}' is too short: a UUID prefix needs at least ${REF_PREFIX_MIN} characters`,
    );
  }
  throw new UsageError(
    `'${ref}' is not a session reference: give a number (42 or #42), a session UUID, a UUID prefix of at least ${REF_PREFIX_MIN} characters, a transcript path, or its file name`,
  );
}

/**
 * A bare run of digits is a number, a UUID prefix, or both: about 6% of UUIDs start with six
 * digits. `#42` is only ever a number, and a leading zero is never how a number is written,
 * so `048425` is a prefix (a short `07` still means 7). Otherwise both readings are looked
 * up and, when each finds a session, both are listed.
 */
function digitCandidates(db: Db, ref: string): number[] {
  const digits = NUMBER.exec(ref)![1];
  const hashed = ref.startsWith("#");
  const canPrefix = !hashed && digits.length >= REF_PREFIX_MIN;
  const asNumber = canPrefix && digits.startsWith("0")
    ? []
    : sessionsMatching(db, { no: Number(digits) });
  const asPrefix = canPrefix ? sessionsMatching(db, { keyPrefix: digits }) : [];
  return [...new Set([...asNumber, ...asPrefix])];
}

function candidates(db: Db, ref: string, cwd: string): number[] {
  const kind = refKind(ref);
  if (kind === "number") return digitCandidates(db, ref);
  const lower = ref.toLowerCase();
  if (kind === "uuid") {
    return sessionsMatching(db, { keyPrefix: `${lower}.jsonl`, sessionId: lower });
  }
  if (kind === "prefix") return sessionsMatching(db, { keyPrefix: lower });
  const abs = resolve(cwd, ref);
  const byPath = sessionsMatching(db, { path: abs });
  if (byPath.length) return byPath;
  // a bare file name, as `sessions` and `search` print it
  if (!ref.includes("/")) return sessionsMatching(db, { fileName: ref });
  return sessionsMatching(db, { key: keyFor(abs).sessionKey });
}

/**
 * The one visible session a reference names. An unknown reference, or one that names a
 * session of an excluded project, is a NotFoundError; an ambiguous one lists its candidates.
 */
export function resolveRef(db: Db, cfg: Config, cwd: string, ref: string): SessionRow {
  const vis = { project: null, exclude: cfg.exclude };
  const rows = candidates(db, ref, cwd)
    .map((no) => listSessions(db, vis, { sessionNo: no })[0])
    .filter((r): r is SessionRow => r !== undefined);
  if (rows.length === 1) return rows[0];
  if (rows.length === 0) throw new NotFoundError(`no archived session matches '${ref}'`);
  const list = rows.slice(0, 10).map((r) => `#${r.session_no} ${r.session_key}`).join(", ");
  const more = rows.length > 10 ? `, and ${rows.length - 10} more` : "";
  throw new NotFoundError(
    `'${ref}' matches ${rows.length} sessions: ${list}${more}; give more of the UUID, or #N for the number`,
  );
}
