// The least a search process can do on this host (bench/sections/scale.ts, "bare" rows): the
// runtime, node:sqlite, the store opened read-only and FTS5's own BM25 over the same index,
// every word, top 10 turn ids. No options, config, sessions, excerpts or output shaping.
// deno run ... search.js <store> <fts5 match>
import { DatabaseSync } from "node:sqlite";

const [store, match] = Deno.args;
const db = new DatabaseSync(store, { readOnly: true });
const rows = db.prepare(
  "SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? ORDER BY rank LIMIT 10",
).all(match);
db.close();
console.log(JSON.stringify(rows.map((r) => r.rowid)));
