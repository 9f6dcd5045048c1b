/**
 * Opening a file that a person or another program controls (a transcript, history.jsonl,
 * terminus.toml as doctor reads it): whatever the name is now, a FIFO, a device, a folder or a
 * link to any of them, the open never blocks and nothing is read from anything but a regular
 * file. The open is non-blocking (a FIFO's open waits for a writer otherwise), and the kind is
 * decided by fstat on the descriptor just opened, never by the name or a stat taken earlier.
 *
 * The runtime's own open has no O_NONBLOCK, so this goes through `node:fs`. Loading it costs a
 * process tens of ms, so it is loaded on first use, and the hooks' read of terminus.toml does
 * not use it (see docs/design/faults.md); everything else that reads such a file does.
 */
import type * as NodeFs from "node:fs";

let loaded: typeof NodeFs | undefined;
/**
 * `node:fs`, loaded the first time a file is opened here, never at import: a command that only
 * imports a module that may read a transcript (`sessions` listing, say) does not pay for it.
 */
function fs(): typeof NodeFs {
  // deno-lint-ignore no-explicit-any
  return loaded ??= (globalThis as any).process.getBuiltinModule("node:fs") as typeof NodeFs;
}

/** The file is there but is not a regular file: it was opened, looked at and closed unread. */
export class NotPlainFile extends Error {
  constructor(readonly path: string, readonly kind: string) {
    super(`${path} is not a regular file (${kind}); it was not read`);
    this.name = "NotPlainFile";
  }
}

/** An open regular file: its size and mtime as fstat gave them, and reads at an offset. */
export interface PlainFile extends Disposable {
  size: number;
  mtimeMs: number | null;
  /** Reads into `buf` from byte `at`; returns how many bytes came (0 at the end). */
  readAt(buf: Uint8Array, at: number): number;
  close(): void;
}

/** What a stat says a path is, in words, when it is not a regular file. */
export function fileKind(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a folder";
  if (info.isFifo) return "a FIFO";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  if (info.isSocket) return "a socket";
  return "not a file";
}

function kindOf(st: NodeFs.Stats): string {
  if (st.isDirectory()) return "a folder";
  if (st.isFIFO()) return "a FIFO";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a file";
}

/** Maps node's error codes to the runtime's classes, which callers already tell apart. */
function denoError(e: unknown): Error {
  const code = (e as { code?: string }).code;
  const msg = (e as Error).message;
  if (code === "ENOENT") return new Deno.errors.NotFound(msg);
  if (code === "EACCES" || code === "EPERM") return new Deno.errors.PermissionDenied(msg);
  if (code === "ELOOP") return new Deno.errors.FilesystemLoop(msg);
  if (code === "EISDIR") return new Deno.errors.IsADirectory(msg);
  return e as Error;
}

/**
 * Opens `path` for reading without blocking, following links. Throws NotPlainFile for anything
 * but a regular file (closed again unread), and the runtime's NotFound and PermissionDenied
 * for a missing or unreadable one.
 */
export function openPlain(path: string): PlainFile {
  const { closeSync, constants, fstatSync, openSync, readSync } = fs();
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw denoError(e);
  }
  let st;
  try {
    st = fstatSync(fd);
  } catch (e) {
    closeSync(fd);
    throw denoError(e);
  }
  if (!st.isFile()) {
    closeSync(fd);
    throw new NotPlainFile(path, kindOf(st));
  }
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    closeSync(fd);
  };
  return {
    size: st.size,
    mtimeMs: Number.isFinite(st.mtimeMs) ? st.mtimeMs : null,
    readAt(buf, at) {
      if (buf.length === 0) return 0;
      try {
        return readSync(fd, buf, 0, buf.length, at);
      } catch (e) {
        throw denoError(e);
      }
    },
    close,
    [Symbol.dispose]: close,
  };
}

/** Fills `buf` from byte `at` as far as the file goes; returns the filled part. */
export function readFully(f: PlainFile, buf: Uint8Array, at: number): Uint8Array {
  let got = 0;
  while (got < buf.length) {
    const n = f.readAt(buf.subarray(got), at + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/**
 * The whole of a regular file of at most `max` bytes, or TooLarge (nothing more than `max` + 1
 * bytes is ever read, whatever fstat said: a file may grow while it is read).
 */
export function readPlainCapped(path: string, max: number): Uint8Array {
  using f = openPlain(path);
  if (f.size > max) throw new TooLarge(path, max);
  let buf = new Uint8Array(Math.min(f.size, max) + 1);
  let n = 0;
  for (;;) {
    if (n === buf.length) {
      if (buf.length > max) break;
      const more = new Uint8Array(Math.min(2 * buf.length, max + 1));
      more.set(buf);
      buf = more;
    }
    const got = f.readAt(buf.subarray(n), n);
    if (got === 0) break;
    n += got;
  }
  if (n > max) throw new TooLarge(path, max);
  return buf.subarray(0, n);
}

export class TooLarge extends Error {
  constructor(readonly path: string, readonly max: number) {
    super(`${path} is larger than ${max} bytes; it was not read`);
    this.name = "TooLarge";
  }
}
