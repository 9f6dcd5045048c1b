/**
 * A real terminal for tests: a tmux server of its own (its own socket, no config), one
 * session, send-keys to type and capture-pane to read the screen. Waits poll a bounded number
 * of times; nothing asserts on how long a thing took.
 */

export function hasTmux(): boolean {
  try {
    return new Deno.Command("tmux", { args: ["-V"], stdout: "null", stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
}

export class Tmux implements AsyncDisposable {
  readonly socket = `terminus-test-${crypto.randomUUID().slice(0, 8)}`;

  async tmux(...args: string[]): Promise<string> {
    const o = await new Deno.Command("tmux", {
      args: ["-L", this.socket, "-f", "/dev/null", ...args],
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!o.success) {
      throw new Error(`tmux ${args.join(" ")}: ${new TextDecoder().decode(o.stderr)}`);
    }
    return new TextDecoder().decode(o.stdout);
  }

  /** Runs `script` (an executable file) in session `b`, `cols` x `rows`. */
  async run(script: string, cols = 80, rows = 24): Promise<void> {
    await this.tmux("new-session", "-d", "-s", "b", "-x", `${cols}`, "-y", `${rows}`, script);
  }

  screen(): Promise<string> {
    return this.tmux("capture-pane", "-p", "-t", "b");
  }

  keys(...keys: string[]): Promise<string> {
    return this.tmux("send-keys", "-t", "b", ...keys);
  }

  type(text: string): Promise<string> {
    return this.tmux("send-keys", "-t", "b", "-l", text);
  }

  /** Pastes `text` as a terminal paste (bracketed, when the program asked for that). */
  async paste(text: string): Promise<void> {
    const file = await Deno.makeTempFile({ prefix: "terminus-paste-" });
    try {
      await Deno.writeTextFile(file, text);
      await this.tmux("load-buffer", "-b", "p", file);
      await this.tmux("paste-buffer", "-p", "-d", "-b", "p", "-t", "b");
    } finally {
      await Deno.remove(file);
    }
  }

  /** Polls the screen until `ok` holds (at most `looks` looks, 50 ms apart); returns it. */
  async until(ok: (screen: string) => boolean, what: string, looks = 600): Promise<string> {
    let last = "";
    for (let i = 0; i < looks; i++) {
      last = await this.screen();
      if (ok(last)) return last;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the screen never showed ${what}:\n${last}`);
  }

  async [Symbol.asyncDispose]() {
    await this.tmux("kill-server").catch(() => {});
  }
}

/** A single-quoted shell word. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
