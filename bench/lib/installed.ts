/**
 * The program as a person runs it: `deno task install` from this checkout into a HOME of the
 * bench's own, and the launcher it places (`~/.local/bin/terminus`). The task bundles the
 * checkout first, which puts the bundler in the module cache, so the copy is bundled; the
 * checkout's `deno run mod.ts` loads its modules one by one.
 */
import { dirname, join } from "node:path";
import type { BenchContext } from "./context.ts";
import { runTimed } from "./proc.ts";

export interface Installed {
  /** The launcher `~/.local/bin/terminus` points at. */
  launcher: string;
  /** Whether the copy behind it runs from a bundle (`mod.js`) rather than its source. */
  bundled: boolean;
}

/** The runtime's module cache, as the runtime itself names it (DENO_DIR or its default). */
async function moduleCache(): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stderr: "null" })
    .output();
  if (!out.success) throw new Error("deno info --json failed");
  return JSON.parse(new TextDecoder().decode(out.stdout)).denoDir;
}

/** Installs once per bench run (into `workDir/installed`, emptied first). */
export function installed(ctx: BenchContext): Promise<Installed> {
  return ctx.once("installed", async () => {
    const home = join(ctx.workDir, "installed");
    try {
      Deno.removeSync(home, { recursive: true });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    const claude = join(home, ".claude");
    Deno.mkdirSync(claude, { recursive: true });
    ctx.log("installed: deno task install (the README's command) into a HOME of the bench's own");
    const r = await runTimed(Deno.execPath(), ["task", "-q", "install"], {
      cwd: ctx.repo,
      env: {
        HOME: home,
        // the bench's own module cache, which holds the checkout's packages
        DENO_DIR: await moduleCache(),
        CLAUDE_CONFIG_DIR: claude,
        TERMINUS_DATA_DIR: join(home, "data"),
        TERMINUS_CONFIG_DIR: join(home, "config"),
        // the runtime, and no claude: the MCP registration is reported as not done, nothing else
        PATH: `${dirname(Deno.execPath())}:/usr/bin:/bin`,
      },
    });
    const launcher = join(home, ".local", "bin", "terminus");
    try {
      Deno.statSync(launcher);
    } catch {
      throw new Error(`terminus install exited ${r.code} and placed no launcher: ${r.stderr}`);
    }
    const text = Deno.readTextFileSync(Deno.realPathSync(launcher));
    return { launcher, bundled: /\/mod\.js'? "\$@"/.test(text) };
  });
}
