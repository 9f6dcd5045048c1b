// The least `terminus sessions --project '*'` can do on this host (bench/sections/scale.ts, "bare"
// rows): node:sqlite, the store opened read-only, the 20 newest sessions of every project and the
// count of the rest, one line each. No config, titles, names, tags or table layout.
// deno run ... sessions.js <store>
import { DatabaseSync } from "node:sqlite";

const db = new DatabaseSync(Deno.args[0], { readOnly: true });
const newest = db.prepare(
  "SELECT session_no, project, last_turn_at, turn_count FROM session_meta ORDER BY last_turn_at DESC LIMIT 20",
).all();
const id = db.prepare("SELECT session_id FROM session_meta WHERE session_no = ?");
const all = db.prepare("SELECT count(*) AS n FROM session_meta").get();
const lines = newest.map((r) =>
  `${id.get(r.session_no)?.session_id}\t${r.project}\t${r.last_turn_at}\t${r.turn_count}`
);
db.close();
console.log(`${lines.join("\n")}\n${all.n - lines.length} more`);
