/**
 * Claude Code's settings.json as setup sees it: the four exec-form hook entries, found,
 * added and taken out again, with every other entry and key left as it was. Written only in
 * two-space form (`JSON.stringify(v, null, 2)` and a newline), through a temp file and a rename.
 */
import { dirname } from "../posix.ts";
import { makeDirs } from "./modes.ts";
import { SETUP_HOOK_EVENTS, type SetupHookEvent } from "./locations.ts";
import { canonicalJson } from "../output.ts";
import { writeFileAtomic } from "../fs.ts";

export type JsonObject = Record<string, unknown>;

export interface SettingsFile {
  path: string;
  exists: boolean;
  /** The file's bytes as text, null when it does not exist or cannot be read. */
  text: string | null;
  /** The parsed object, null when missing or in error. */
  doc: JsonObject | null;
  /** Why it cannot be used: unreadable, not JSON, not an object. */
  error: string | null;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Where a JSON parse failed, without the parser's own message: V8 quotes the text around the
 * error, and these files can hold credentials.
 */
export function jsonErrorWhere(e: unknown): string {
  const m = (e as Error).message ?? "";
  const lc = m.match(/\(line (\d+) column (\d+)\)/);
  if (lc) return ` (line ${lc[1]}, column ${lc[2]})`;
  const pos = m.match(/at position (\d+)/);
  if (pos) return ` (at byte ${pos[1]})`;
  if (/end of JSON input/.test(m)) return " (it ends early)";
  return "";
}

export function readSettings(path: string): SettingsFile {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return { path, exists: false, text: null, doc: null, error: null };
    }
    return {
      path,
      exists: true,
      text: null,
      doc: null,
      error: `${path} cannot be read: ${(e as Error).message}`,
    };
  }
  // An empty file holds no settings yet; Claude Code reads it the same way.
  if (text.trim() === "") return { path, exists: true, text, doc: {}, error: null };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return {
      path,
      exists: true,
      text,
      doc: null,
      error: `${path} is not JSON: ${(e as Error).message}`,
    };
  }
  if (!isObject(doc)) {
    return { path, exists: true, text, doc: null, error: `${path} is not a JSON object` };
  }
  return { path, exists: true, text, doc, error: null };
}

/** Why the hooks block cannot take our entries without changing the meaning of yours. */
export function hooksShapeProblem(doc: JsonObject, path: string): string | null {
  if (doc.hooks === undefined) return null;
  if (!isObject(doc.hooks)) return `${path} has a "hooks" value that is not an object`;
  for (const e of SETUP_HOOK_EVENTS) {
    const v = doc.hooks[e];
    if (v !== undefined && !Array.isArray(v)) return `${path} has a hooks.${e} that is not a list`;
  }
  return null;
}

/** The exec-form entry: Claude Code runs the link with these args and no shell. */
export function hookEntry(link: string, event: SetupHookEvent): JsonObject {
  return { type: "command", command: link, args: ["hook", event] };
}

export function isOurEntry(h: unknown, link: string, event: string): boolean {
  return isObject(h) && h.type === "command" && h.command === link && Array.isArray(h.args) &&
    h.args.length === 2 && h.args[0] === "hook" && h.args[1] === event;
}

/** Every hook object under hooks.<event>[].hooks[]. */
export function hooksFor(doc: JsonObject, event: string): unknown[] {
  const hooks = doc.hooks;
  if (!isObject(hooks)) return [];
  const groups = hooks[event];
  if (!Array.isArray(groups)) return [];
  const out: unknown[] = [];
  for (const g of groups) {
    if (isObject(g) && Array.isArray(g.hooks)) out.push(...g.hooks);
  }
  return out;
}

/**
 * Another install's entry for the same event: a command whose program is named `terminus`
 * (exec or shell form) that runs `hook`, and that is not ours.
 */
export function looksLikeTerminus(h: unknown, link: string, event: string): boolean {
  if (!isObject(h) || isOurEntry(h, link, event) || typeof h.command !== "string") return false;
  const words = h.command.trim().split(/\s+/);
  const prog = words[0] ?? "";
  const named = prog === "terminus" || prog.endsWith("/terminus");
  if (!named) return false;
  const args = Array.isArray(h.args) ? h.args.map(String) : words.slice(1);
  return args[0] === "hook";
}

export interface EventFinding {
  event: SetupHookEvent;
  ours: number;
  others: number;
}

export function examineHooks(doc: JsonObject, link: string): EventFinding[] {
  return SETUP_HOOK_EVENTS.map((event) => {
    const hs = hooksFor(doc, event);
    return {
      event,
      ours: hs.filter((h) => isOurEntry(h, link, event)).length,
      others: hs.filter((h) => looksLikeTerminus(h, link, event)).length,
    };
  });
}

/** Adds a `{matcher: "", hooks: [entry]}` group for each event that has no entry of ours. */
export function withEntries(
  doc: JsonObject,
  link: string,
): { doc: JsonObject; added: SetupHookEvent[] } {
  const next = structuredClone(doc) as JsonObject;
  const added: SetupHookEvent[] = [];
  for (const f of examineHooks(doc, link)) {
    if (f.ours > 0) continue;
    if (!isObject(next.hooks)) next.hooks = {};
    const hooks = next.hooks as JsonObject;
    if (!Array.isArray(hooks[f.event])) hooks[f.event] = [];
    (hooks[f.event] as unknown[]).push({ matcher: "", hooks: [hookEntry(link, f.event)] });
    added.push(f.event);
  }
  return { doc: next, added };
}

/**
 * Takes our four entries out. A group, an event list or the hooks object left empty by that
 * removal goes too; one that was already empty stays, and so does one that `before` (the
 * copy install kept) holds, so a person's own `"hooks": {}` comes back as it was.
 */
export function withoutEntries(
  doc: JsonObject,
  link: string,
  before: JsonObject | null = null,
): { doc: JsonObject; removed: number } {
  const had = before && isObject(before.hooks) ? before.hooks : null;
  const next = structuredClone(doc) as JsonObject;
  let removed = 0;
  const hooks = next.hooks;
  if (!isObject(hooks)) return { doc: next, removed };
  for (const event of SETUP_HOOK_EVENTS) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    const keptGroups: unknown[] = [];
    let touchedList = false;
    for (const g of groups) {
      if (isObject(g) && Array.isArray(g.hooks)) {
        const kept = g.hooks.filter((h) => !isOurEntry(h, link, event));
        if (kept.length !== g.hooks.length) {
          removed += g.hooks.length - kept.length;
          touchedList = true;
          if (kept.length === 0) continue;
          g.hooks = kept;
        }
      }
      keptGroups.push(g);
    }
    if (!touchedList) continue;
    if (keptGroups.length === 0 && !(had && Array.isArray(had[event]))) delete hooks[event];
    else hooks[event] = keptGroups;
  }
  if (removed > 0 && Object.keys(hooks).length === 0 && !had) delete next.hooks;
  return { doc: next, removed };
}

export function twoSpace(doc: unknown): string {
  return JSON.stringify(doc, null, 2) + "\n";
}

/** Already in two-space form: exactly what `twoSpace` writes, with or without the final newline. */
export function isTwoSpace(text: string, doc: unknown): boolean {
  const s = JSON.stringify(doc, null, 2);
  return text === s + "\n" || text === s;
}

/** The same settings, whatever their key order and spacing. */
export function sameSettings(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * Writes through a temp file in the same folder and a rename, keeping the old file's mode. A
 * settings.json that is a symlink (a dotfiles checkout) is written where it points, so the
 * link stays a link.
 */
export function writeAtomic(linkOrPath: string, text: string, fallbackMode = 0o644): void {
  let path = linkOrPath;
  try {
    if (Deno.lstatSync(linkOrPath).isSymlink) path = Deno.realPathSync(linkOrPath);
  } catch { /* a new file, or a link to nothing: written at the path itself */ }
  let mode = fallbackMode;
  try {
    const m = Deno.statSync(path).mode;
    if (m !== null) mode = m & 0o7777;
  } catch { /* a new file */ }
  makeDirs(dirname(path));
  writeFileAtomic(path, text, { mode, sweep: true });
}
