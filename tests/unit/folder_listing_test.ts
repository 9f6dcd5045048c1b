/**
 * A pass lists again only the folders whose names may have changed: a kept listing is used
 * while the folder's dev, ino, mtime and ctime are the ones it had, and was kept only once
 * those were LISTING_SETTLED_MS old. Appending to a transcript changes no folder, so a file
 * appended to in a folder whose listing is kept must still be archived. Real temp folders and
 * a real temp store; the one wrapper counts statements.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { defaultConfig } from "../../core/config.ts";
import { runWholePass } from "../../core/ingest/whole.ts";
import { discover, encodeProjectFolder, listSorted } from "../../core/transcript/discover.ts";
import { type KeptListing, LISTING_SETTLED_MS, Listings } from "../../core/transcript/listing.ts";
import { appendTo, prng, syntheticSession, uuidFrom, writeTranscript } from "../helpers.ts";
import { watched } from "./world.ts";

const CWD = "/home/you/code/project-listing";
const LATER = () => Date.now() + 10 * LISTING_SETTLED_MS;

/** A lister that counts the folders it reads (it reads them for real). */
function counted(): { list: (dir: string) => Deno.DirEntry[]; reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    list: (dir) => {
      reads.push(dir);
      return listSorted(dir);
    },
  };
}

async function tree() {
  const dir = await Deno.makeTempDir({ prefix: "terminus-listing-" });
  const root = join(dir, "claude");
  const rand = prng(11);
  const ids = [uuidFrom(rand), uuidFrom(rand)];
  for (const id of ids) {
    await writeTranscript(
      root,
      CWD,
      `${id}.jsonl`,
      syntheticSession({ sessionId: id, cwd: CWD, bytes: 1_500, rand }),
    );
  }
  const folder = join(root, "projects", encodeProjectFolder(CWD));
  await Deno.mkdir(join(folder, ids[0], "subagents"), { recursive: true });
  await Deno.writeTextFile(join(folder, ids[0], "subagents", "agent-a1.jsonl"), "");
  await Deno.writeTextFile(join(folder, "notes.txt"), "not a transcript");
  // every folder's mtime an hour back, so any change to one leaves a different mtime
  const hourAgo = new Date(Date.now() - 3_600_000);
  for (
    const d of [
      join(root, "projects"),
      folder,
      join(folder, ids[0]),
      join(folder, ids[0], "subagents"),
    ]
  ) {
    Deno.utimeSync(d, hourAgo, hourAgo);
  }
  return {
    dir,
    root,
    folder,
    ids,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
  };
}

/** Discovery through kept listings (`kept`), with `now` as the clock; what it read and kept. */
function listOnce(root: string, kept: KeptListing[], now: () => number) {
  const c = counted();
  const l = new Listings(kept, c.list, now);
  const d = discover([root], [], l.entries);
  return { paths: d.files.map((f) => f.path), reads: c.reads, changes: l.changes(), l };
}

Deno.test("a folder listed again gives what a fresh listing gives, and only a changed one is read", async () => {
  await using t = await tree();
  const fresh = discover([t.root], []).files.map((f) => f.path);

  const first = listOnce(t.root, [], LATER);
  assert.deepEqual(first.paths, fresh);
  assert.deepEqual(
    first.reads.length,
    4,
    "projects, the project folder, its session folder, subagents",
  );
  assert.deepEqual(first.changes.put.length, 4);

  const second = listOnce(t.root, first.changes.put, LATER);
  assert.deepEqual(second.paths, fresh, "the kept listings give the same files in the same order");
  assert.deepEqual(second.reads, [], "no folder is read again");
  assert.deepEqual(second.changes, { put: [], drop: [] }, "nothing to write");

  // a new transcript changes its folder's mtime: that folder alone is read again
  const id = uuidFrom(prng(12));
  await writeTranscript(t.root, CWD, `${id}.jsonl`, "");
  const third = listOnce(t.root, first.changes.put, LATER);
  assert.deepEqual(third.reads, [t.folder]);
  assert(third.paths.includes(join(t.folder, `${id}.jsonl`)), "the new transcript is found");
  assert.deepEqual(third.paths, discover([t.root], []).files.map((f) => f.path));
});

Deno.test("a folder removed and made again with the same names is read again", async () => {
  await using t = await tree();
  const sub = join(t.folder, t.ids[0], "subagents");
  const first = listOnce(t.root, [], LATER);
  await Deno.remove(sub, { recursive: true });
  await Deno.mkdir(sub);
  await Deno.writeTextFile(join(sub, "agent-a1.jsonl"), "");
  await Deno.writeTextFile(join(sub, "agent-a2.jsonl"), "");
  const again = listOnce(t.root, first.changes.put, LATER);
  assert(again.reads.includes(sub), "the remade folder is read");
  assert(again.paths.includes(join(sub, "agent-a2.jsonl")));
});

Deno.test("a folder changed within the settling time is not kept", async () => {
  await using t = await tree();
  // the real clock: every folder of the tree was just written
  const first = listOnce(t.root, [], Date.now);
  assert.deepEqual(first.changes.put, [], "nothing just changed is kept");
  const second = listOnce(t.root, first.changes.put, Date.now);
  assert.deepEqual(second.reads.length, 4, "so every folder is read again");
});

Deno.test("a folder no longer visited loses its kept listing", async () => {
  await using t = await tree();
  const first = listOnce(t.root, [], LATER);
  await Deno.remove(join(t.folder, t.ids[0]), { recursive: true });
  const again = listOnce(t.root, first.changes.put, LATER);
  assert.deepEqual(
    again.changes.drop.sort(),
    [join(t.folder, t.ids[0]), join(t.folder, t.ids[0], "subagents")].sort(),
  );
});

/** The statements a pass runs that write kept listings. */
function listingWrites(sql: Map<string, number>): number {
  let n = 0;
  for (const [s, k] of sql) if (/INTO folder_listings/.test(s)) n += k;
  return n;
}

Deno.test("a transcript appended to in a folder whose listing is kept is still archived", async () => {
  await using t = await tree();
  const data = join(t.dir, "data");
  const cfg = defaultConfig(join(t.dir, "config", "terminus.toml"));
  cfg.snapshot.enabled = false;
  const input = { cfg, dataDir: data, roots: [t.root] };
  const rand = prng(13);
  const id = uuidFrom(rand);
  const text = syntheticSession({ sessionId: id, cwd: CWD, bytes: 6_000, rand });
  const cut = text.indexOf("\n", text.length >> 1) + 1;
  const path = await writeTranscript(t.root, CWD, `${id}.jsonl`, text.slice(0, cut));
  // every folder settles (the real clock), so the next pass keeps their listings
  await new Promise((r) => setTimeout(r, LISTING_SETTLED_MS + 1_100));
  const first = await runWholePass(input);
  assert.deepEqual(first.run!.filesCommitted, 3);

  const folderMtime = Deno.statSync(t.folder).mtime!.getTime();
  await appendTo(path, text.slice(cut));
  assert.deepEqual(Deno.statSync(t.folder).mtime!.getTime(), folderMtime, "no folder changed");

  const sql = new Map<string, number>();
  const r = await runWholePass({
    ...input,
    instrument: (db) => watched(db, (s) => sql.set(s, (sql.get(s) ?? 0) + 1)),
  });
  assert.deepEqual(listingWrites(sql), 0, "every folder came from its kept listing");
  assert.deepEqual(r.run!.filesCommitted, 1, "the appended bytes are archived");
  assert.deepEqual(r.run!.bytesRead, new TextEncoder().encode(text.slice(cut)).length);
  const db = new DatabaseSync(join(data, "terminus.db"), { readOnly: true });
  try {
    const w = db.prepare(
      "SELECT w.offset AS o FROM watermarks w JOIN sessions s USING (session_no) WHERE s.session_key = ?",
    ).get(`${id}.jsonl`) as { o: number };
    assert.deepEqual(w.o, new TextEncoder().encode(text).length);
  } finally {
    db.close();
  }
});
