// The least a prompt's hook can do on this host (bench/sections/scale.ts, "bare" rows): read the
// payload, take the prompt's words that look like a path below its cwd, and print the ids of
// the newest turns that name one, through node:sqlite and the entities index. No config,
// session state, ranking, excerpts, decision record or pass.
// deno run ... hook.js <store> < payload
import { DatabaseSync } from "node:sqlite";

const payload = JSON.parse(await new Response(Deno.stdin.readable).text());
const words = String(payload.prompt ?? "").split(/\s+/)
  .map((w) => w.replace(/[,.?!;:]+$/, ""))
  .filter((w) => w.includes("/") || w.includes("."));
const db = new DatabaseSync(Deno.args[0], { readOnly: true });
const newest = db.prepare(
  "SELECT turn_id FROM entities WHERE kind = 'path' AND value = ? ORDER BY act DESC, turn_id DESC LIMIT 3",
);
const ids = words.flatMap((w) => newest.all(`${payload.cwd}/${w}`).map((r) => r.turn_id));
db.close();
if (ids.length) {
  console.log(JSON.stringify({
    hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: ids.join(" ") },
  }));
}
