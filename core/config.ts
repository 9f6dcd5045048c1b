/**
 * terminus.toml: every key, its default, its clamp and its load rule. Read on every command,
 * hook and MCP call; never written.
 */
import { parse, TomlError } from "smol-toml";
import { configFile, type Env, normaliseUserPath } from "./paths.ts";
import { ConfigError } from "./errors.ts";
import {
  BRIEF_CHARS_DEFAULT,
  CONFIG_BYTES_MAX,
  CONFIG_ERROR_CHARS,
  INJECTION_CHARS_CAP,
  PROMPT_CHARS_DEFAULT,
  SNAPSHOT_INTERVAL_HOURS_DEFAULT,
  SNAPSHOT_KEEP_DEFAULT,
} from "./constants.ts";
import { editDistance } from "./suggest.ts";
import { fileKind } from "./plain_file.ts";

export type CaptureMode = "full" | "lean" | "minimal";
export type RetentionAction = "keep" | "evict" | "delete";

export interface RetentionRule {
  action: RetentionAction;
  ageDays: number;
}

export interface Config {
  /** The file this came from (whether or not it existed). */
  path: string;
  roots: string[];
  /** Normalised absolute exclude entries, plus the paths they resolve to through symlinks. */
  exclude: string[];
  /** The exclude entries as normalised, before symlink resolution (for display). */
  excludeListed: string[];
  injection: { briefChars: number; promptChars: number };
  retention: RetentionRule;
  /** Per-project rules keyed by normalised absolute path. */
  retentionProjects: Map<string, RetentionRule>;
  snapshot: { enabled: boolean; intervalHours: number; keep: number };
  capture: { mode: CaptureMode };
  privacy: { redactRecall: boolean };
  /**
   * Values the file sets that Terminus does not know, each read as its default (`action =
   * "purge"` keeps everything, as the spec wants): one line each, for a command to name.
   */
  unknownValues: string[];
}

export function defaultConfig(path: string): Config {
  return {
    path,
    roots: [],
    exclude: [],
    excludeListed: [],
    injection: { briefChars: BRIEF_CHARS_DEFAULT, promptChars: PROMPT_CHARS_DEFAULT },
    retention: { action: "keep", ageDays: 0 },
    retentionProjects: new Map(),
    snapshot: {
      enabled: true,
      intervalHours: SNAPSHOT_INTERVAL_HOURS_DEFAULT,
      keep: SNAPSHOT_KEEP_DEFAULT,
    },
    capture: { mode: "full" },
    unknownValues: [],
    privacy: { redactRecall: false },
  };
}

type Table = Record<string, unknown>;

/** One short line: a parser's excerpt of a huge or deeply nested line is cut, never echoed whole. */
export function oneLine(text: string, max = CONFIG_ERROR_CHARS): string {
  const flat = text.replace(/[\r\n]+/g, " ");
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function invalid(path: string, detail: string): ConfigError {
  return new ConfigError(`${path} is not valid TOML: ${oneLine(detail)}`);
}

/**
 * A value of the wrong type in a file that is valid TOML (`age_days = "30"`): said as what it
 * is. A key set to "" that is not a text key keeps the spec's `is not valid TOML` wording.
 */
function wrongType(path: string, value: unknown, detail: string): ConfigError {
  return value === "" ? invalid(path, detail) : new ConfigError(`${path}: ${oneLine(detail)}`);
}

/** The values each text key takes; any other is read as the first (the default). */
const KNOWN_VALUES: Record<string, readonly string[]> = {
  action: ["keep", "evict", "delete"],
  mode: ["full", "lean", "minimal"],
};

/** A text value Terminus does not know, said with what it is read as; null when it knows it. */
function unknownValue(where: string, key: string, v: unknown): string | null {
  const known = KNOWN_VALUES[key];
  if (typeof v !== "string" || v === "" || known.includes(v)) return null;
  return `${where} = "${oneLine(v, 40)}" is not a value Terminus knows (${
    known.join(", ")
  }), so it is read as "${known[0]}"`;
}

/** Every unknown text value in a parsed file: [retention] action, each project's, [capture] mode. */
function unknownValuesIn(doc: Table): string[] {
  const out: string[] = [];
  const r = doc.retention;
  if (isTable(r)) {
    const v = unknownValue("retention.action", "action", r.action);
    if (v) out.push(v);
    if (isTable(r.project)) {
      for (const [p, rule] of Object.entries(r.project)) {
        if (!isTable(rule)) continue;
        const pv = unknownValue(`retention.project."${p}".action`, "action", rule.action);
        if (pv) out.push(pv);
      }
    }
  }
  if (isTable(doc.capture)) {
    const v = unknownValue("capture.mode", "mode", doc.capture.mode);
    if (v) out.push(v);
  }
  return out;
}

function tomlDetail(e: TomlError): string {
  const first = e.message.split("\n")[0].replace(/^Invalid TOML document: /, "");
  const where = `line ${e.line}, column ${e.column}`;
  // A parser message that names api_key would echo the key's value: print the position only.
  if (/api_key/i.test(e.message)) return `${first} at ${where}`;
  const excerpt = (e.codeblock ?? "").split("\n").find((l) => l.startsWith(`${e.line}:`));
  const text = excerpt ? excerpt.slice(excerpt.indexOf(":") + 1).trim() : "";
  return text ? `${first} at ${where}: ${text}` : `${first} at ${where}`;
}

/** Every key terminus.toml reads, by table ("" is the top level). */
const KNOWN_KEYS: Record<string, string[]> = {
  "": ["roots", "exclude", "injection", "retention", "snapshot", "capture", "privacy"],
  injection: ["brief_chars", "prompt_chars"],
  retention: ["action", "age_days", "project"],
  snapshot: ["enabled", "interval_hours", "keep"],
  capture: ["mode"],
  privacy: ["redact_recall"],
};

/**
 * Unknown keys that look like a misspelling of a known one (`brief_char`, `[snapshots]`), and
 * text values Terminus does not know (`action = "purge"`), one line each. Unknown keys are
 * ignored and unknown values read as the default, as the file format promises; this only lets
 * doctor say that a setting someone meant to make is not taking effect. A file that does not
 * parse has none (its load error says why).
 */
export function nearMissKeys(text: string): string[] {
  let doc: Table;
  try {
    doc = parse(text) as Table;
  } catch {
    return [];
  }
  const out: string[] = [];
  const look = (t: Table, table: string) => {
    const known = KNOWN_KEYS[table];
    for (const k of Object.keys(t)) {
      if (known.includes(k)) {
        const sub = table === "" ? k : null;
        if (sub && KNOWN_KEYS[sub] && isTable(t[k])) look(t[k] as Table, sub);
        continue;
      }
      const close = known.find((c) => editDistance(k, c) <= Math.min(2, Math.floor(c.length / 3)));
      if (close) {
        const name = (x: string) => (table === "" ? x : `${table}.${x}`);
        out.push(`${name(k)} is not a setting Terminus reads; did you mean ${name(close)}?`);
      }
    }
  };
  look(doc, "");
  return [...out, ...unknownValuesIn(doc)];
}

function isTable(v: unknown): v is Table {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** Reads terminus.toml from the config directory; a missing file means every default. */
export function loadConfig(env: Env): Config {
  const path = configFile(env);
  const text = readConfigText(path);
  return text === null ? defaultConfig(path) : parseConfig(text, path, env);
}

/**
 * The file's text, or null when there is none. Anything but a regular file (a FIFO would block
 * the open itself, a device could stream forever) is refused before it is opened, and at most
 * CONFIG_BYTES_MAX + 1 bytes are read, so neither a hook nor a command can hang or stall here.
 */
export function readConfigText(path: string): string | null {
  const refuse = (why: string) => new ConfigError(oneLine(`${path} ${why}`));
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw refuse(`cannot be read: ${(e as Error).message}`);
  }
  if (!info.isFile) {
    throw refuse(
      `is not a regular file (${
        fileKind(info)
      }); terminus.toml must be a plain file, so it was not read`,
    );
  }
  // made only when thrown: an Error takes its stack, and every command and hook reads this file
  const tooBig = () =>
    refuse(
      `is larger than ${
        CONFIG_BYTES_MAX / 1024 / 1024
      } MiB, the most a configuration file may be; it was not read`,
    );
  if (info.size > CONFIG_BYTES_MAX) throw tooBig();
  let f: Deno.FsFile;
  try {
    f = Deno.openSync(path, { read: true });
  } catch (e) {
    throw refuse(`cannot be read: ${(e as Error).message}`);
  }
  try {
    // checked again on the open file: the name may have been swapped since the stat
    const open = f.statSync();
    if (!open.isFile) throw refuse("is not a regular file; it was not read");
    // sized by the file (one byte more, to see it grow), not by the most it may be: a 1 MiB
    // buffer is 256 pages every command and hook would touch for a file of a few lines
    let buf = new Uint8Array(Math.min(open.size, CONFIG_BYTES_MAX) + 1);
    let n = 0;
    while (true) {
      if (n === buf.length) {
        if (buf.length > CONFIG_BYTES_MAX) break;
        const more = new Uint8Array(Math.min(2 * buf.length, CONFIG_BYTES_MAX + 1));
        more.set(buf);
        buf = more;
      }
      const got = f.readSync(buf.subarray(n));
      if (got === null || got === 0) break;
      n += got;
    }
    if (n > CONFIG_BYTES_MAX) throw tooBig();
    return new TextDecoder().decode(buf.subarray(0, n));
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    throw refuse(`cannot be read: ${(e as Error).message}`);
  } finally {
    f.close();
  }
}

/**
 * The typed reads of one file's values: a value of the wrong type fails the load and names
 * its key and line, so the person (and the SessionStart message) can go straight to it.
 * Non-text keys: "" (or a wrong type) fails the load; text keys: "" means unset.
 */
class ValueReader {
  constructor(readonly text: string, readonly path: string) {}

  at(key: string): string {
    const n = this.text.split("\n").findIndex((l) => new RegExp(`^\\s*"?${key}"?\\s*=`).test(l));
    return n < 0 ? "" : ` (line ${n + 1})`;
  }
  list(t: Table, key: string, where: string): string[] | undefined {
    if (!(key in t)) return undefined;
    const v = t[key];
    if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
      throw wrongType(this.path, v, `${where} must be a list of paths${this.at(key)}`);
    }
    return v as string[];
  }
  whole(t: Table, key: string, where: string): number | undefined {
    if (!(key in t)) return undefined;
    const v = t[key];
    if (typeof v === "bigint") return Number(v);
    if (typeof v !== "number" || !Number.isInteger(v)) {
      throw wrongType(this.path, v, `${where} must be a whole number${this.at(key)}`);
    }
    return v;
  }
  bool(t: Table, key: string, where: string): boolean | undefined {
    if (!(key in t)) return undefined;
    const v = t[key];
    if (typeof v !== "boolean") {
      throw wrongType(this.path, v, `${where} must be true or false${this.at(key)}`);
    }
    return v;
  }
  text_(t: Table, key: string, where: string): string | undefined {
    if (!(key in t)) return undefined;
    const v = t[key];
    if (typeof v !== "string") {
      throw wrongType(this.path, v, `${where} must be text${this.at(key)}`);
    }
    return v === "" ? undefined : v;
  }
  table(t: Table, key: string): Table | undefined {
    if (!(key in t)) return undefined;
    const v = t[key];
    if (!isTable(v)) throw invalid(this.path, `${key} must be a table`);
    return v;
  }
}

export function parseConfig(text: string, path: string, env: Env): Config {
  let doc: Table;
  try {
    doc = parse(text) as Table;
  } catch (e) {
    if (e instanceof TomlError) throw invalid(path, tomlDetail(e));
    throw invalid(path, (e as Error).message);
  }
  if ("provider" in doc) {
    throw new ConfigError(
      `${path} still has a [provider] table. Model calls were removed from Terminus, so nothing reads that table any more. Delete it from the file to continue.`,
    );
  }
  const cfg = defaultConfig(path);
  const r = new ValueReader(text, path);
  const roots = r.list(doc, "roots", "roots");
  if (roots) cfg.roots = roots; // used exactly as written; `~` is not expanded here
  readExclude(r, doc, cfg, env);
  readInjection(r, doc, cfg);
  readRetention(r, doc, cfg, env);
  readSnapshot(r, doc, cfg);
  const capture = r.table(doc, "capture");
  if (capture) {
    const mode = r.text_(capture, "mode", "capture.mode");
    cfg.capture.mode = mode === "lean" || mode === "minimal" ? mode : "full";
  }
  const privacy = r.table(doc, "privacy");
  if (privacy) {
    const red = r.bool(privacy, "redact_recall", "privacy.redact_recall");
    if (red !== undefined) cfg.privacy.redactRecall = red;
  }
  cfg.unknownValues = unknownValuesIn(doc);
  return cfg;
}

function readExclude(r: ValueReader, doc: Table, cfg: Config, env: Env): void {
  const exclude = r.list(doc, "exclude", "exclude");
  if (!exclude) return;
  const listed: string[] = [];
  for (const e of exclude) {
    const n = normaliseUserPath(e, env);
    if (n !== undefined && !listed.includes(n)) listed.push(n);
  }
  cfg.excludeListed = listed;
  const all = new Set(listed);
  for (const n of listed) {
    try {
      all.add(Deno.realPathSync(n));
    } catch {
      // a path that does not exist (yet) matches only as written
    }
  }
  cfg.exclude = [...all];
}

function readInjection(r: ValueReader, doc: Table, cfg: Config): void {
  const injection = r.table(doc, "injection");
  if (!injection) return;
  const clamp = (n: number) => Math.max(0, Math.min(INJECTION_CHARS_CAP, n));
  const b = r.whole(injection, "brief_chars", "injection.brief_chars");
  if (b !== undefined) cfg.injection.briefChars = clamp(b);
  const p = r.whole(injection, "prompt_chars", "injection.prompt_chars");
  if (p !== undefined) cfg.injection.promptChars = clamp(p);
}

function readRetention(r: ValueReader, doc: Table, cfg: Config, env: Env): void {
  const readRule = (t: Table, where: string): RetentionRule => {
    const action = r.text_(t, "action", `${where}.action`);
    const age = r.whole(t, "age_days", `${where}.age_days`);
    return {
      action: action === "evict" || action === "delete" ? action : "keep",
      ageDays: Math.max(0, age ?? 0),
    };
  };
  const retention = r.table(doc, "retention");
  if (!retention) return;
  cfg.retention = readRule(retention, "retention");
  const projects = retention["project"];
  if (projects === undefined) return;
  if (!isTable(projects)) throw invalid(r.path, "retention.project must be a table of tables");
  for (const [p, rule] of Object.entries(projects)) {
    if (!isTable(rule)) throw invalid(r.path, `retention.project."${p}" must be a table`);
    const parsed = readRule(rule, `retention.project."${p}"`);
    const n = normaliseUserPath(p, env);
    if (n !== undefined) cfg.retentionProjects.set(n, parsed);
  }
}

function readSnapshot(r: ValueReader, doc: Table, cfg: Config): void {
  const snapshot = r.table(doc, "snapshot");
  if (!snapshot) return;
  const en = r.bool(snapshot, "enabled", "snapshot.enabled");
  if (en !== undefined) cfg.snapshot.enabled = en;
  const ih = r.whole(snapshot, "interval_hours", "snapshot.interval_hours");
  if (ih !== undefined) {
    cfg.snapshot.intervalHours = ih <= 0 ? SNAPSHOT_INTERVAL_HOURS_DEFAULT : ih;
  }
  const keep = r.whole(snapshot, "keep", "snapshot.keep");
  if (keep !== undefined) cfg.snapshot.keep = Math.max(1, keep);
}

/** True when `project` (an absolute path) is covered by an exclude entry. */
export function isExcluded(cfg: Config, project: string | null | undefined): boolean {
  if (!project) return false;
  for (const e of cfg.exclude) {
    if (project === e || project.startsWith(e.endsWith("/") ? e : e + "/")) return true;
  }
  return false;
}
