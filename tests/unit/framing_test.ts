/**
 * Framing a session's windows into blocks on the derive side (core/ingest/derive_job.ts) and
 * writing them (core/store/blocks.ts appendSession): a window that does not start on a block
 * boundary is framed with the stored trailing block joined in front, and the writer keeps
 * those frames only while the stored block is those bytes. Real store, real codec.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { BLOCK_BYTES } from "../../core/constants.ts";
import { type Derived, type DeriveJob, Deriving } from "../../core/ingest/derive_job.ts";
import { WorkerDeriver } from "../../core/ingest/deriver.ts";
import { appendSession, type MetaUpdate } from "../../core/store/blocks.ts";
import { decompress, frameBlocks, initCodec } from "../../core/store/codec.ts";
import { type Db, openWrite, transaction } from "../../core/store/db.ts";
import { concat } from "../../core/bytes.ts";
import { jsonl } from "../helpers.ts";
import { watched } from "./world.ts";

const enc = new TextEncoder();
const KEY = "frame-1.jsonl";

/** Lines of varied length, so no window ends on a block boundary. */
function transcript(lines: number): Uint8Array {
  const recs = [];
  for (let i = 0; i < lines; i++) {
    recs.push({
      type: "user",
      uuid: `u-${i}`,
      sessionId: "frame-1",
      timestamp: "2026-11-30T10:00:00Z",
      message: { role: "user", content: `line ${i} ${"x".repeat((i * 7919) % 3000)}` },
    });
  }
  return enc.encode(jsonl(recs));
}

/** Cuts the file into windows at line ends near each multiple of `size`. */
function windows(bytes: Uint8Array, size: number): [number, number][] {
  const out: [number, number][] = [];
  let at = 0;
  while (at < bytes.length) {
    let end = Math.min(at + size, bytes.length);
    while (end < bytes.length && bytes[end - 1] !== 0x0a) end++;
    out.push([at, end]);
    at = end;
  }
  return out;
}

/** The job for the window [a, b) of the file: its bytes as a stream from offset a. */
function job(chunk: Uint8Array, a: number, last: boolean): DeriveJob {
  return {
    key: KEY,
    input: {
      chunk,
      end: chunk.length,
      mode: "full",
      streamOffset: a,
      turnSeq: 0,
      sidecar: false,
      sessionId: null,
      cwd: null,
    },
    raw: false,
    observe: "none",
    last,
  };
}

function derive(d: Deriving, bytes: Uint8Array, win: [number, number][], i: number): Derived {
  const [a, b] = win[i];
  return d.run(job(bytes.subarray(a, b), a, i === win.length - 1), true);
}

const meta: MetaUpdate = {
  sessionId: "frame-1",
  transcriptPath: "/nonexistent/frame-1.jsonl",
  firstTurnAt: null,
  lastTurnAt: null,
  cwd: null,
  project: null,
  projectPreWorktree: null,
  branch: null,
  parentSessionKey: null,
  agentMeta: null,
  continuesFrom: null,
  firstParentUuid: null,
  captureMode: "full",
};

/** One window's append, in a transaction of its own, with the frames the derive side made. */
function append(db: Db, stream: Uint8Array, offset: number, framed: Derived["framed"]): void {
  transaction(
    db,
    () => appendSession(db, { sessionKey: KEY, stream, offset, meta, derived: [], framed }),
  );
}

function stored(db: Db): { blockNo: number; rawLen: number; hash: string; raw: Uint8Array }[] {
  return (db.prepare(
    "SELECT block_no, raw_len, hash, bytes FROM blocks ORDER BY block_no",
  ).all() as { block_no: number; raw_len: number; hash: Uint8Array; bytes: Uint8Array }[])
    .map((r) => ({
      blockNo: r.block_no,
      rawLen: r.raw_len,
      hash: r.hash.toHex(),
      raw: decompress(r.bytes),
    }));
}

async function withDb(fn: (db: Db) => void): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "terminus-framing-" });
  const o = openWrite(join(dir, "terminus.db"));
  try {
    fn(o.db);
  } finally {
    o.db.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The blocks a single framing of the whole file gives: what the archive must hold. */
function whole(bytes: Uint8Array) {
  return frameBlocks(bytes, 0).map((f, i) => ({
    blockNo: f.blockNo,
    rawLen: f.rawLen,
    hash: f.hash.toHex(),
    raw: bytes.subarray(i * BLOCK_BYTES, i * BLOCK_BYTES + f.rawLen),
  }));
}

Deno.test("framing: a window that starts inside a block is framed with the block's head joined in front", async () => {
  await initCodec();
  const bytes = transcript(900);
  const win = windows(bytes, 300_000);
  assert.ok(win.length >= 4 && win.slice(1).every(([a]) => a % BLOCK_BYTES !== 0));
  const d = new Deriving();
  const got = win.map((_, i) => derive(d, bytes, win, i));
  for (const [i, g] of got.entries()) {
    const at = win[i][0];
    assert.ok(g.framed, `window ${i} was framed`);
    assert.equal(g.framed.from, at - (at % BLOCK_BYTES));
    assert.equal(g.framed.head, at % BLOCK_BYTES);
    assert.equal(g.framed.headHash === null, at % BLOCK_BYTES === 0);
  }
  // a window whose head was not derived before it (another key's tail, or none) is not framed
  const fresh = new Deriving();
  assert.equal(derive(fresh, bytes, win, 2).framed, undefined);
});

Deno.test("framing: the writer keeps the derive side's frames, reading no block back, and the blocks are the whole file's", async () => {
  await initCodec();
  const bytes = transcript(900);
  const win = windows(bytes, 300_000);
  const d = new Deriving();
  await withDb((db) => {
    const reads: string[] = [];
    const w = watched(db, (sql) => {
      if (/SELECT bytes FROM blocks/.test(sql)) reads.push(sql);
    });
    for (const [i, [a, b]] of win.entries()) {
      const g = derive(d, bytes, win, i);
      append(w, g.out.stream, b, g.framed);
      assert.equal(a + g.out.stream.length, b);
    }
    assert.deepEqual(reads, [], "no trailing block was read back");
    assert.deepEqual(stored(db), whole(bytes));
  });
});

Deno.test("framing: frames whose head is not the stored block are set aside and the block is framed again", async () => {
  await initCodec();
  const bytes = transcript(900);
  const win = windows(bytes, 300_000);
  // the same lengths, other bytes: a head that does not match what is stored
  const other = bytes.map((b) => (b === 0x78 ? 0x79 : b));
  const d = new Deriving();
  const o = new Deriving();
  await withDb((db) => {
    let reads = 0;
    const w = watched(db, (sql) => {
      if (/SELECT bytes FROM blocks/.test(sql)) reads++;
    });
    for (const [i, [, b]] of win.entries()) {
      const g = derive(d, bytes, win, i);
      const bad = derive(o, other, win, i);
      const framed = i === 2 ? bad.framed : g.framed;
      append(w, g.out.stream, b, framed);
    }
    assert.equal(reads, 1, "the one window with a foreign head read its block back");
    assert.deepEqual(stored(db), whole(bytes));
    assert.deepEqual(concat(stored(db).map((s) => s.raw)), bytes);
  });
});

Deno.test("deriver: the pass sees the worker ready without turning its event loop", async () => {
  const w = new WorkerDeriver();
  try {
    // the pass derives inline while the worker starts, awaiting only settled promises, so no
    // message from the worker is read in the meantime; here nothing is awaited at all
    const nap = new Int32Array(new SharedArrayBuffer(4));
    let spins = 0;
    while (w.ahead() === 0 && spins < 3000) {
      Atomics.wait(nap, 0, 0, 10);
      spins++;
    }
    assert.ok(w.ahead() > 0, "the worker was never seen ready");
    // and it derives: a window handed to it comes back framed
    const bytes = transcript(40);
    const got = await w.derive(job(bytes.slice(), 0, true));
    assert.ok("derived" in got && got.derived.framed?.frames.length);
  } finally {
    w.close();
  }
});
