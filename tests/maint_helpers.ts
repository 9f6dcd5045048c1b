/**
 * Helpers the retention, maintenance and export tests share, beside tests/helpers.ts: small
 * transcripts dated where a test needs them, file modes, digests and a held ingest lock.
 */
import { join } from "node:path";
import { type Envelope, parseEnvelope } from "./helpers.ts";

/** Long enough ago that any age_days rule a test sets is due. */
export const OLD = new Date("2025-01-01T10:00:00.000Z");

export interface TurnsOptions {
  sessionId: string;
  cwd: string | null;
  /** Time of the first turn; later turns follow a second apart. */
  at: Date | null;
  /** How many user/assistant pairs. */
  pairs?: number;
  /** Text put in every prompt, so a search can find this session. */
  marker?: string;
  /** Extra characters of filler per reply. */
  filler?: number;
}

/** A transcript of user/assistant pairs; each record carries cwd and timestamp when given. */
export function turns(o: TurnsOptions): string {
  const lines: string[] = [];
  let t = o.at?.getTime() ?? 0;
  let parent: string | null = null;
  const pairs = o.pairs ?? 1;
  for (let i = 0; i < pairs; i++) {
    for (const role of ["user", "assistant"] as const) {
      const uuid = crypto.randomUUID();
      const rec: Record<string, unknown> = {
        parentUuid: parent,
        isSidechain: false,
        uuid,
        sessionId: o.sessionId,
        type: role,
        message: role === "user" ? { role, content: `${o.marker ?? "prompt"} number ${i}` } : {
          role,
          content: [{ type: "text", text: `reply ${i} ${filler(o.filler ?? 0, i)}` }],
        },
      };
      if (o.cwd !== null) rec.cwd = o.cwd;
      if (o.at !== null) rec.timestamp = new Date(t).toISOString();
      t += 1000;
      parent = uuid;
      lines.push(JSON.stringify(rec) + "\n");
    }
  }
  return lines.join("");
}

/** Text that compresses poorly, so a session takes real pages in the store. */
function filler(n: number, seed: number): string {
  let x = (seed + 1) * 2654435761;
  let s = "";
  while (s.length < n) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += x.toString(36);
  }
  return s.slice(0, n);
}

export async function sha256(data: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", data as Uint8Array<ArrayBuffer>);
  return new Uint8Array(d).toHex();
}

/** The permission bits of a path. */
export function mode(path: string): number {
  return Deno.statSync(path).mode! & 0o777;
}

/** Holds the ingest lock from this process, as a running pass would. */
export function holdIngestLock(dataDir: string): { release(): void } {
  Deno.mkdirSync(dataDir, { recursive: true });
  const f = Deno.openSync(join(dataDir, "LOCK"), { read: true, write: true, create: true });
  if (!f.tryLockSync(true)) {
    f.close();
    throw new Error("the ingest lock is already held");
  }
  return {
    release() {
      f.unlockSync();
      f.close();
    },
  };
}

/** The --json document's data, after checking the envelope's shape. */
export function data<T = Record<string, unknown>>(out: string): T {
  return (parseEnvelope(out) as Envelope).data as T;
}

/** Every file below `dir`, as paths relative to it, sorted. */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of Deno.readDirSync(d)) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory) walk(join(d, e.name), r);
      else out.push(r);
    }
  };
  walk(dir, "");
  return out.sort();
}
