/**
 * Egress redaction ([privacy] redact_recall): text shaped like a secret is replaced on its
 * way to Claude Code or a terminal. Markers hold no whitespace, so running it twice changes
 * nothing more. The archive is never filtered and the ingest path never calls this.
 */

const SECRET = "(?:token|password|passwd|secret|key|api|bearer|cookie|authorization)";
const NAME = `[A-Za-z0-9_.-]*${SECRET}[A-Za-z0-9_.-]*`;

const RULES: [RegExp, string | ((...m: string[]) => string)][] = [
  // 1. PEM private-key blocks, to the end of the text if unterminated.
  [
    /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
    "[redacted:a-pem-private-key]",
  ],
  // 2. userinfo in a URL.
  [/([a-z][a-z0-9+.-]*:\/\/)[^\s/@'"]+@/gi, "$1[redacted:connection-url-userinfo]@"],
  // 3. header shapes; an auth scheme word takes the next word too.
  [
    new RegExp(
      `(\\b${NAME}\\s*:\\s*)(?:(?:bearer|basic|digest|token|negotiate|ntlm)\\s+)?(?!\\[redacted)[^\\s"',;]+`,
      "gi",
    ),
    "$1[redacted]",
  ],
  // 4. JSON "name": "value".
  [new RegExp(`("${NAME}"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, "gi"), '$1"[redacted]"'],
  // 5. NAME=value, quoted to its quote or bare to whitespace/quote/backslash.
  [
    new RegExp(`(\\b${NAME}=)(?:"[^"]*"|'[^']*'|(?!\\[redacted)[^\\s"'\\\\]+)`, "gi"),
    "$1[redacted]",
  ],
  // 6. --name value / -name value flags.
  [
    new RegExp(`((?:^|\\s)--?${NAME}[ \\t]+)(?!-)(?!\\[redacted)[^\\s]+`, "gi"),
    "$1[redacted:a-command-line-flag-value]",
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
  for (const [re, to] of RULES) s = s.replace(re, to as string);
  return s;
}

/** The filter when it applies, else the identity. */
export function egress(enabled: boolean): (s: string) => string {
  return enabled ? redact : (s) => s;
}
