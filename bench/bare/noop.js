// The least a pass with nothing new can do on this host (bench/sections/scale.ts, "bare" rows):
// node:sqlite, the store opened, every session's watermark read, the projects folder walked and
// each transcript stat'ed once against its watermark. No lock, config, run row, listings cache,
// recovery, exclusions or links.
// deno run ... noop.js <store> <claude config dir>
import { DatabaseSync } from "node:sqlite";

const [store, root] = Deno.args;
const db = new DatabaseSync(store, { readOnly: true });
const read = db.prepare(
  "SELECT s.session_key, w.offset FROM sessions s JOIN watermarks w USING (session_no)",
);
read.setReturnArrays(true);
const seen = new Map(read.all());
db.close();
let files = 0;
let changed = 0;
// a session's key is its transcript's path below its project folder
const walk = (dir, below) => {
  for (const e of Deno.readDirSync(dir)) {
    const key = below === null ? null : below === "" ? e.name : `${below}/${e.name}`;
    if (e.isDirectory) walk(`${dir}/${e.name}`, key ?? "");
    else if (key !== null && e.isFile && e.name.endsWith(".jsonl")) {
      files++;
      if (Deno.lstatSync(`${dir}/${e.name}`).size !== seen.get(key)) changed++;
    }
  }
};
walk(`${root}/projects`, null);
console.log(`${files} file(s), ${changed} changed`);
