/**
 * Folder listings kept from one pass to the next, so a pass lists again only the folders whose
 * set of names may have changed. Adding, removing or renaming a name in a folder sets the
 * folder's mtime and ctime to the current time; a listing is kept only when both were already
 * LISTING_SETTLED_MS old as it was read, so any later change leaves another mtime or ctime.
 * A listing says nothing about the files' contents: bytes appended to a transcript change no
 * folder, so every file is still looked at (stat) on every pass.
 */
import { AGENT_JSONL, UUID_JSONL } from "./session_key.ts";

/**
 * How old a folder's mtime and ctime must be when it is read for its listing to be kept.
 * Deno reports ctime in whole seconds, so this is over one second; a folder changed within it
 * is simply listed again on the next pass.
 */
export const LISTING_SETTLED_MS = 2_000;

/** A folder's identity and times when its listing was read, and the entries discovery uses. */
export interface KeptListing {
  path: string;
  dev: number;
  ino: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Sorted entries, each `<kind><name>` (d folder, f file, l link), joined by "/". */
  entries: string;
}

const KIND = { d: "d", f: "f", l: "l" } as const;

function encode(entries: Deno.DirEntry[]): string {
  const out: string[] = [];
  for (const e of entries) {
    // only what discovery can use: folders (for agents below), and transcript-shaped names
    if (e.isDirectory && !e.isSymlink) out.push(KIND.d + e.name);
    else if (!(e.isFile || e.isSymlink)) continue;
    else if (UUID_JSONL.test(e.name) || AGENT_JSONL.test(e.name)) {
      out.push((e.isSymlink ? KIND.l : KIND.f) + e.name);
    }
  }
  // no name holds "/", so it cannot split one
  return out.join("/");
}

function decode(s: string): Deno.DirEntry[] {
  if (s === "") return [];
  return s.split("/").map((x) => {
    const k = x.charCodeAt(0);
    return {
      name: x.slice(1),
      isDirectory: k === 0x64, // d
      isFile: k === 0x66, // f
      isSymlink: k === 0x6c, // l
    };
  });
}

/**
 * Lists folders for discovery, from a kept listing when the folder's dev, ino, mtime and ctime
 * are the ones it had then, otherwise with `list` (which reads the folder and sorts it).
 */
export class Listings {
  #kept: Map<string, KeptListing>;
  #visited = new Set<string>();
  #fresh: KeptListing[] = [];
  /** Folders listed from a kept listing, and read afresh (for tests and the bench). */
  reused = 0;
  read = 0;

  constructor(
    kept: KeptListing[],
    readonly list: (dir: string) => Deno.DirEntry[],
    readonly now: () => number = Date.now,
  ) {
    this.#kept = new Map(kept.map((k) => [k.path, k]));
  }

  /** The folder's entries in sorted order: what `list` would give, kept or read afresh. */
  entries = (dir: string): Deno.DirEntry[] => {
    this.#visited.add(dir);
    const at = this.now();
    let info: Deno.FileInfo | null = null;
    try {
      // followed: `projects` may be a link to a folder, whose own times are what change
      info = Deno.statSync(dir);
    } catch {
      // the listing below reports why the folder cannot be read
    }
    const k = this.#kept.get(dir);
    const mtimeMs = info?.mtime?.getTime() ?? null;
    const ctimeMs = info?.ctime?.getTime() ?? null;
    if (
      k && info && k.dev === info.dev && k.ino === info.ino && k.mtimeMs === mtimeMs &&
      k.ctimeMs === ctimeMs
    ) {
      this.reused++;
      return decode(k.entries);
    }
    const entries = this.list(dir);
    this.read++;
    if (
      info?.isDirectory && info.ino !== null && mtimeMs !== null && ctimeMs !== null &&
      mtimeMs <= at - LISTING_SETTLED_MS && ctimeMs <= at - LISTING_SETTLED_MS
    ) {
      this.#fresh.push({
        path: dir,
        dev: info.dev,
        ino: info.ino!,
        mtimeMs,
        ctimeMs,
        entries: encode(entries),
      });
    }
    return entries;
  };

  /** Listings to keep (read afresh this pass), and kept ones for folders no longer visited. */
  changes(): { put: KeptListing[]; drop: string[] } {
    const drop = [...this.#kept.keys()].filter((p) => !this.#visited.has(p));
    return { put: this.#fresh, drop };
  }
}
