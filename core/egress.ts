/**
 * Egress redaction ([privacy] redact_recall): text shaped like a secret is replaced on its
 * way to Claude Code or a terminal. Markers hold no whitespace, so running it twice changes
 * nothing more. The archive is never filtered and the ingest path never calls this.
 */

const SECRET = "(?:token|password|passwd|secret|key|api|bearer|cookie|authorization)";
const SECRET_WORD = new RegExp(SECRET, "i");
const NAME = `[A-Za-z0-9_.-]*${SECRET}[A-Za-z0-9_.-]*`;
/**
 * A name is matched whole and only where a name character does not precede it (the
 * lookahead-and-backreference pair is an atomic group), then checked for a secret word.
 * Matching `[chars]*secret[chars]*` directly backtracks quadratically on a long run such
 * as `keykeykey…`, and a hook cannot interrupt a regex.
 */
const NAME_ATOM = "(?<![A-Za-z0-9_.-])(?=([A-Za-z0-9_.-]+))\\1";

type Rule = [RegExp, string | ((...m: string[]) => string)];

/** A replacement that applies only when the captured name (group 1) holds a secret word. */
function whenSecret(to: (...m: string[]) => string): (...m: string[]) => string {
  return (...m: string[]) => (SECRET_WORD.test(m[1]) ? to(...m) : m[0]);
}

const RULES: Rule[] = [
  // 1. PEM private-key blocks, to the end of the text if unterminated.
  [
    /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    "[redacted:a-pem-private-key]",
  ],
  // 2. userinfo in a URL.
  [
    /((?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/@'"]+@/gi,
    "$1[redacted:connection-url-userinfo]@",
  ],
  // 3. header shapes; an auth scheme word takes the next word too.
  [
    new RegExp(
      `${NAME_ATOM}(\\s*:\\s*)((?:(?:bearer|basic|digest|token|negotiate|ntlm)\\s+)?)(?!\\[redacted)([^\\s"',;]+)`,
      "gi",
    ),
    whenSecret((_m, name, sep) => `${name}${sep}[redacted]`),
  ],
  // 4. JSON "name": "value".
  [
    new RegExp(`"(?=([A-Za-z0-9_.-]+))\\1"(\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, "gi"),
    whenSecret((_m, name, sep) => `"${name}"${sep}"[redacted]"`),
  ],
  // 5. NAME=value, quoted to its quote or bare to whitespace/quote/backslash.
  [
    new RegExp(`${NAME_ATOM}=(?:"[^"]*"|'[^']*'|(?!\\[redacted)[^\\s"'\\\\]+)`, "gi"),
    whenSecret((_m, name) => `${name}=[redacted]`),
  ],
  // 6. --name value / -name value flags.
  [
    new RegExp(`((?:^|\\s)--?)(?=([A-Za-z0-9_.-]+))\\2([ \\t]+)(?!-)(?!\\[redacted)[^\\s]+`, "gi"),
    (m, lead, name, gap) =>
      SECRET_WORD.test(name) ? `${lead}${name}${gap}[redacted:a-command-line-flag-value]` : m,
  ],
  // 7. JWTs.
  [
    /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}(?:\.[A-Za-z0-9_-]*)?/g,
    "[redacted:a-json-web-token]",
  ],
  // 8. GitHub tokens.
  [
    /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{6,}\b|\bgithub_pat_[A-Za-z0-9_]{6,}/g,
    "[redacted:a-github-token]",
  ],
  // 9. bare sk- keys.
  [/\bsk-[A-Za-z0-9_-]{8,}/g, "[redacted:an-sk-key]"],
];

export function redact(text: string): string {
  let s = text;
  for (const [re, to] of RULES) s = s.replace(re, to as (...m: string[]) => string);
  return s;
}

const SECRET_KEY = new RegExp(`^${NAME}$`, "i");
const LITERAL = /"(?:[^"\\]|\\.)*"/g;
const KEY_COLON = /\s*:/y;

/**
 * A copy of a parsed record in which every string value under a secret-named key, at any
 * depth, is `[redacted]`: the record's text leaves (tool inputs, tool results, attachments)
 * lose their keys once they are joined into an excerpt, so the value is taken out first.
 */
export function redactValues<T>(v: T): T {
  if (Array.isArray(v)) return v.map(redactValues) as T;
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    out[k] = typeof x === "string" && SECRET_KEY.test(k) ? "[redacted]" : redactValues(x);
  }
  return out as T;
}

/**
 * One archived JSON line, filtered string by string: each JSON string's text goes through
 * `redact`, and a string value under a secret-named key becomes "[redacted]". The filter
 * never reaches across the record's structure, so the line stays JSON with every key it had.
 * A line that is not JSON is filtered as text.
 */
export function redactLine(line: string): string {
  try {
    JSON.parse(line);
  } catch {
    return redact(line);
  }
  let secretValueAt = -1;
  return line.replace(LITERAL, (lit: string, offset: number) => {
    KEY_COLON.lastIndex = offset + lit.length;
    const text = JSON.parse(lit) as string;
    if (KEY_COLON.test(line)) {
      secretValueAt = SECRET_KEY.test(text) ? KEY_COLON.lastIndex : -1;
      return lit; // a key is never changed
    }
    const underSecret = secretValueAt >= 0 && line.slice(secretValueAt, offset).trim() === "";
    secretValueAt = -1;
    if (underSecret) return '"[redacted]"';
    const r = redact(text);
    return r === text ? lit : JSON.stringify(r);
  });
}

/** Whether `filter` is the redaction filter (as `egress(true)` returns it). */
export function isRedacting(filter: (s: string) => string): boolean {
  return filter === redact;
}

/** The filter when it applies, else the identity. */
export function egress(enabled: boolean): (s: string) => string {
  return enabled ? redact : (s) => s;
}
