/**
 * The program as a person runs it: `terminus install` from this checkout into a HOME of the
 * bench's own, and the launcher it places (`~/.local/bin/terminus`). The copy is bundled when
 * the bundler is in the module cache (`deno task install` and `deno task bench` fetch it), so
 * this is where the installed start-up is measured; the checkout's `deno run mod.ts` loads its
 * modules one by one.
 */
import { dirname, join } from "node:path";
import { PERMISSION_FLAGS } from "../../core/context.ts";
import type { BenchContext } from "./context.ts";
import { runTimed } from "./proc.ts";

export interface Installed {
  /** The launcher `~/.local/bin/terminus` points at. */
  launcher: string;
  /** Whether the copy behind it runs from a bundle (`mod.js`) rather than its source. */
  bundled: boolean;
}

/** The module cache the checkout's packages are in: the bench's own DENO_DIR. */
function moduleCache(): string {
  const set = Deno.env.get("DENO_DIR");
  if (set) return set;
  const home = Deno.env.get("HOME") ?? "/";
  const xdg = Deno.env.get("XDG_CACHE_HOME");
  return Deno.build.os === "darwin"
    ? join(home, "Library", "Caches", "deno")
    : join(xdg ?? join(home, ".cache"), "deno");
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
    // the bundler on first use, as `deno task install` does before installing
    const warm = await runTimed(Deno.execPath(), [
      "bundle",
      "--quiet",
      "--frozen",
      "--platform",
      "deno",
      "--code-splitting",
      "--outdir",
      join(home, "warm"),
      "mod.ts",
    ], { cwd: ctx.repo });
    if (warm.code !== 0) ctx.log(`installed: deno bundle failed, so the copy is unbundled`);
    ctx.log("installed: terminus install into a HOME of the bench's own");
    const r = await runTimed(Deno.execPath(), ["run", ...PERMISSION_FLAGS, "mod.ts", "install"], {
      cwd: ctx.repo,
      env: {
        HOME: home,
        DENO_DIR: moduleCache(),
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
