/**
 * `sessions browse` as you type, over the full corpus store: the time from a keystroke (the
 * search line gains a character) to the next screen, with its result list, being ready.
 *
 * - In process: this module re-run as a child (`browse.ts --inproc <store> <typed.json>`)
 *   builds the browser's own source (storeSource over the store opened read-only, the
 *   project scoped as `browse` scopes it) and state, and for each query presses its characters
 *   one at a time, as a person types them: each keystroke is `press` (which runs the source's
 *   `find`, the search `browse` runs) and `render` at 80x24, timed together. Three fresh
 *   children type every query once (a person opening the browser and typing: the target
 *   figure), then once more (warm).
 * - End to end, when tmux is there: `terminus sessions browse` in an 80x24 tmux pane, typed
 *   into through a tmux control-mode client; a keystroke is timed from the `send-keys` to the
 *   frame whose search line shows it (the frame is drawn once the list for it is computed).
 */
import { join } from "node:path";
import { type BenchContext, metric, type Section } from "../lib/context.ts";
import { inprocChildren } from "../lib/inproc.ts";
import { median, round } from "../lib/stats.ts";
import { cliArgs, type Scenario, scenarioEnv } from "../lib/terminus.ts";
import { fullStore } from "./backfill.ts";
import { pct, QUERIES, resolveQueries } from "./search.ts";

/** The queries typed, by their place in search's QUERIES (so each keeps its project). */
const TYPED = [
  "SearchManager",
  "ErkContext",
  "PlanRowData",
  "useTodos",
  "plan_file_path",
  "BranchManager",
  "src/worker/S.ts",
  "src/erk/tui/app.py",
  "components/TodoList.tsx",
  "AssertionError: assert 0 == 1",
  "CalledProcessError",
  "Exit code 1",
  "worktree",
  "pull request",
  "git commit",
  "session id",
];
const CHILDREN = 3;
/** Rounds over TYPED in each child: the first is the measured one, the rest warm. */
const ROUNDS = 2;
const COLS = 80;
const ROWS = 24;
/** Queries typed through tmux (over every project). */
const TMUX_QUERIES = 8;

type Resolved = ReturnType<typeof resolveQueries>[number];

interface Keystroke {
  query: number;
  round: number;
  /** The search line after the keystroke. */
  text: string;
  ms: number;
  found: number;
}

interface ChildOut {
  /** The browser's first list (nothing typed), ms, per query's scope. */
  openMs: number[];
  keys: Keystroke[];
}

/* ---------- in process (the child side) ---------- */

async function inprocChild(store: string, typedFile: string): Promise<ChildOut> {
  const qs = JSON.parse(Deno.readTextFileSync(typedFile)) as Resolved[];
  await import("../../mod.ts"); // the graph `sessions browse` runs in
  const { storeSource } = await import("../../core/browse/source.ts");
  const { initialState, press, render } = await import("../../core/browse/screen.ts");
  const { openRead } = await import("../../core/store/db.ts");
  const { initReader } = await import("../../core/store/codec.ts");
  const { loadConfig } = await import("../../core/config.ts");
  const { processEnv } = await import("../../core/paths.ts");
  const { resolveScope } = await import("../../core/open.ts");
  const cfg = loadConfig(processEnv);
  const opened = openRead(store);
  if (!opened) throw new Error(`no store at ${store}`);
  const db = opened.db;
  await initReader();
  // `browse` scopes to the project its folder is in; a query over every project presses Ctrl-A
  const sources = qs.map((r) => {
    const sc = resolveScope(db, cfg, r.project ?? "/", r.project ?? "*");
    if (!sc.ok) throw new Error(`scope of ${r.project}: ${sc.reason}`);
    return storeSource({
      db,
      store,
      cfg,
      cwd: r.project ?? "/",
      roots: [],
      current: r.project === null ? null : sc.vis,
    });
  });
  const out: ChildOut = { openMs: [], keys: [] };
  for (let round = 0; round < ROUNDS; round++) {
    qs.forEach((r, qi) => {
      const src = sources[qi];
      const s = initialState(false);
      s.all = r.project === null;
      let t = performance.now();
      s.sessions = src.find("", s.all).sessions; // the first list, as the browser opens
      render(s, src, COLS, ROWS);
      if (round === 0) out.openMs.push(performance.now() - t);
      for (const c of r.q) {
        t = performance.now();
        press(s, { k: "char", c }, src);
        render(s, src, COLS, ROWS);
        const ms = performance.now() - t;
        out.keys.push({ query: qi, round, text: s.text, ms, found: s.sessions.length });
      }
    });
  }
  db.close();
  return out;
}

/* ---------- end to end, under tmux ---------- */

function hasTmux(): boolean {
  try {
    return new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

/**
 * A tmux control-mode client (`tmux -C`): commands go in on its stdin, and what the pane's
 * program writes comes back as `%output` lines, as tmux reads it. No process per key or per
 * look at the screen, so the figure is the browser's, plus tmux passing bytes on.
 */
class Control {
  private out = "";
  private want: { text: string; done: () => void } | null = null;
  private readonly w: WritableStreamDefaultWriter<Uint8Array>;
  private readonly p: Deno.ChildProcess;

  constructor(readonly socket: string) {
    this.p = new Deno.Command("tmux", {
      args: ["-L", socket, "-f", "/dev/null", "-C", "attach", "-t", "b"],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.w = this.p.stdin.getWriter();
    void this.read();
  }

  private async read() {
    const dec = new TextDecoder();
    for await (const chunk of this.p.stdout) {
      this.out += dec.decode(chunk, { stream: true });
      if (this.want && this.out.includes(this.want.text)) this.want.done();
    }
  }

  /** Forgets what the pane wrote so far. */
  clear() {
    this.out = "";
  }

  send(command: string): Promise<void> {
    return this.w.write(new TextEncoder().encode(command + "\n"));
  }

  /** Resolves once the pane has written `text` (since the last clear), or rejects. */
  seen(text: string, ms = 30_000): Promise<void> {
    if (this.out.includes(text)) return Promise.resolve();
    return new Promise((ok, fail) => {
      const timer = setTimeout(() => {
        this.want = null;
        fail(new Error(`browse under tmux never wrote ${JSON.stringify(text)}`));
      }, ms);
      this.want = {
        text,
        done: () => {
          clearTimeout(timer);
          this.want = null;
          ok();
        },
      };
    });
  }

  async close() {
    await this.send("kill-server").catch(() => {});
    await this.w.close().catch(() => {});
    await this.p.status;
  }
}

/** Keystroke to screen through a real terminal; every project (its folder is in none). */
async function viaTmux(ctx: BenchContext, scn: Scenario, typed: string[]): Promise<number[]> {
  const socket = `terminus-bench-${Deno.pid}`;
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = join(scn.dir, "browse.sh");
  Deno.writeTextFileSync(
    script,
    [
      "#!/bin/sh",
      ...Object.entries({ ...scenarioEnv(scn), TERM: "xterm-256color" }).map(([k, v]) =>
        `export ${k}=${q(v)}`
      ),
      "cd /",
      [Deno.execPath(), ...cliArgs(ctx.repo, ["sessions", "browse"])].map(q).join(" "),
    ].join("\n") + "\n",
    { mode: 0o755 },
  );
  const started = await new Deno.Command("tmux", {
    args: ["-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "b", "-x", `${COLS}`]
      .concat(["-y", `${ROWS}`, script]),
  }).output();
  if (!started.success) throw new Error("tmux new-session failed");
  const c = new Control(socket);
  const ms: number[] = [];
  try {
    await c.seen(" found\\033[K");
    for (const text of typed) {
      for (let i = 1; i <= text.length; i++) {
        c.clear();
        const t = performance.now();
        await c.send(`send-keys -t b -l ${q(text[i - 1])}`);
        // the search line is drawn with the list, once the list is computed
        await c.seen(`search: ${text.slice(0, i)}█`);
        ms.push(performance.now() - t);
      }
      c.clear();
      await c.send(`send-keys -t b ${Array(text.length).fill("BSpace").join(" ")}`);
      await c.seen("search: █");
    }
  } finally {
    await c.close();
  }
  return ms;
}

/* ---------- the section ---------- */

const r1 = (x: number) => round(x, 1);
const r2 = (x: number) => round(x, 2);
const spread = (xs: number[]) =>
  `p50 ${r1(pct(xs, 0.5))}, p95 ${r1(pct(xs, 0.95))}, max ${r1(Math.max(...xs))} ms`;

export const section: Section = {
  name: "browse",
  title: "Browse (keystroke to result list, over the full store)",
  async run(ctx) {
    const { scn } = await fullStore(ctx);
    const all = resolveQueries(ctx, scn.store);
    const typed = TYPED.map((t) => {
      const i = QUERIES.findIndex((x) => x.q === t);
      if (i < 0) throw new Error(`browse: ${JSON.stringify(t)} is not one of search's queries`);
      return all[i];
    });
    const typedFile = join(ctx.workDir, "browse-typed.json");
    Deno.writeTextFileSync(typedFile, JSON.stringify(typed, null, 2) + "\n");
    const env = scenarioEnv(scn);
    const keystrokes = typed.reduce((n, r) => n + r.q.length, 0);
    ctx.log(`browse: ${keystrokes} keystrokes x ${ROUNDS} rounds in ${CHILDREN} processes`);
    const outs = await inprocChildren<ChildOut>(import.meta.url, [scn.store, typedFile], {
      cwd: ctx.repo,
      env,
      n: CHILDREN,
      name: "browse",
    });
    const keys = outs.flatMap((o) => o.keys);
    const first = keys.filter((k) => k.round === 0).map((k) => k.ms);
    const warm = keys.filter((k) => k.round > 0).map((k) => k.ms);
    const open = outs.flatMap((o) => o.openMs);
    const scoped = keys.filter((k) => k.round === 0 && typed[k.query].project !== null);
    const everywhere = keys.filter((k) => k.round === 0 && typed[k.query].project === null);
    const slowest = [...keys].filter((k) => k.round === 0).sort((a, b) => b.ms - a.ms)
      .slice(0, 5).map((k) =>
        `${JSON.stringify(k.text)}${typed[k.query].project === null ? " (*)" : ""} ${
          r1(k.ms)
        } ms, ${k.found} found`
      );

    let e2e: number[] | null = null;
    let e2eWhy = "tmux is not installed";
    if (hasTmux()) {
      const words = typed.slice(0, TMUX_QUERIES).map((r) => r.q);
      ctx.log(`browse: ${words.join("").length} keystrokes through tmux`);
      try {
        e2e = await viaTmux(ctx, scn, words);
      } catch (e) {
        e2eWhy = (e as Error).message;
      }
    }

    const metrics = [
      metric(
        "browse_key_p50_ms",
        "keystroke to result list and screen, in process, p50",
        r2(pct(first, 0.5)),
        "ms",
        undefined,
        `${first.length} keystrokes: ${keystrokes} (${typed.length} queries typed a character at a time) x ${CHILDREN} fresh processes`,
      ),
      metric(
        "browse_key_p95_ms",
        "keystroke to result list and screen, in process, p95",
        r2(pct(first, 0.95)),
        "ms",
        { op: "<=", value: 50 },
        `max ${r1(Math.max(...first))} ms; slowest: ${slowest.join("; ")}`,
      ),
      metric(
        "browse_key_warm_p95_ms",
        "the same, typed again in the same process, p95",
        r2(pct(warm, 0.95)),
        "ms",
        undefined,
        `${spread(warm)} over ${warm.length} keystrokes`,
      ),
      metric(
        "browse_open_ms",
        "the first list (nothing typed, up to 500 sessions), median",
        r1(median(open)),
        "ms",
        undefined,
        spread(open),
      ),
      metric(
        "browse_tmux_p50_ms",
        "keystroke to screen through tmux (control mode), p50",
        e2e ? r1(pct(e2e, 0.5)) : null,
        "ms",
        undefined,
        e2e
          ? `${e2e.length} keystrokes (the first ${TMUX_QUERIES} queries, every project)`
          : e2eWhy,
      ),
      metric(
        "browse_tmux_p95_ms",
        "keystroke to screen through tmux (control mode), p95",
        e2e ? r1(pct(e2e, 0.95)) : null,
        "ms",
        undefined,
        e2e ? `max ${r1(Math.max(...e2e))} ms; the first keystroke ${r1(e2e[0])} ms` : e2eWhy,
      ),
    ];
    const notes = [
      `In process: ${CHILDREN} children each import mod.ts, open the store read-only, and build \`sessions browse\`'s source (storeSource) per query: scoped to the query's project in its copy as browse run in that folder is (${
        typed.filter((r) => r.project !== null).length
      } queries: ${spread(scoped.map((k) => k.ms))}), or over every project as after Ctrl-A (${
        typed.filter((r) => r.project === null).length
      }: ${
        spread(everywhere.map((k) => k.ms))
      }). A keystroke is press() (the search the browser runs: titles, then search's ranking, limit 50, then each session's row) and render() at ${COLS}x${ROWS}. The target figure is the first typing in each fresh process.`,
      "Words match whole (as in `search`): a prefix of a word finds nothing until the word is complete, and each prefix is searched all the same.",
      `Through tmux: \`terminus sessions browse\` from \`/\` (no project, so every project) in an ${COLS}x${ROWS} pane, driven by one control-mode client (\`tmux -C\`): from writing \`send-keys -l <character>\` to tmux passing on the frame whose search line shows it (the frame is drawn once the list is computed). The first keystroke pays for the first search in the process.`,
    ];
    return {
      metrics,
      notes,
      data: {
        typed,
        keys: keys.map((k) => ({ ...k, ms: r2(k.ms) })),
        openMs: open.map(r2),
        tmuxMs: e2e?.map(r2) ?? null,
      },
    };
  },
};

if (import.meta.main && Deno.args[0] === "--inproc") {
  const out = await inprocChild(Deno.args[1], Deno.args[2]);
  console.log(JSON.stringify(out));
  Deno.exit(0);
}
