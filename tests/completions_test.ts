/**
 * Shell completions and the man page, both written from the command registry: every command,
 * verb, option and fixed value appears in each; bash -n, zsh -n and fish -n accept the
 * scripts (each shell that is installed); bash's completes as a person types; install places
 * the man page where man finds it and says how to turn completions on, never editing a shell's
 * startup file, and uninstall takes the page away.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli, sandbox } from "./helpers.ts";
import { install, setupBox } from "./setup_helpers.ts";
import { REGISTRY } from "../commands/mod.ts";
import { cliSpec } from "../commands/spec.ts";
import { manPage } from "../core/setup/manpage.ts";
import { SHELLS } from "../core/setup/completions.ts";
import { HOOK_EVENTS } from "../hooks/run.ts";
import { VERSION } from "../core/constants.ts";

function found(cmd: string): boolean {
  try {
    return new Deno.Command("sh", { args: ["-c", `command -v ${cmd}`], stdout: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

/** Every word the scripts and the page must hold, from the registry itself. */
async function registryWords() {
  const out: { command: string; verbs: string[]; options: string[]; values: string[] }[] = [];
  for (const e of REGISTRY) {
    const cmd = await e.load();
    const options = Object.keys(cmd.options).filter((o) => !cmd.help.internal?.includes(o));
    if (cmd.json) options.push("json");
    out.push({
      command: e.name,
      verbs: [...(cmd.subcommands?.names ?? [])],
      options,
      values: Object.values(cmd.values ?? {}).flat(),
    });
  }
  return out;
}

Deno.test("each completion script holds every registry command, verb, option and fixed value", async () => {
  await using sb = await sandbox();
  const words = await registryWords();
  for (const shell of SHELLS) {
    const r = await runCli(sb, ["completions", shell]);
    assert.equal(r.code, 0, `${shell}: ${r.err}`);
    assert.equal(r.err, "");
    for (const w of words) {
      assert.match(r.out, new RegExp(`\\b${w.command}\\b`), `${shell}: ${w.command}`);
      for (const v of w.verbs) assert.match(r.out, new RegExp(`\\b${v}\\b`), `${shell}: ${v}`);
      for (const o of w.options) {
        // fish names an option without its dashes (-l project)
        const re = shell === "fish" ? new RegExp(`-l ${o}\\b`) : new RegExp(`--${o}\\b`);
        assert.match(r.out, re, `${shell}: ${w.command} --${o}`);
      }
      for (const v of w.values) assert.ok(r.out.includes(v), `${shell}: value ${v}`);
    }
    assert.match(r.out, /^# .*terminus completions/m, "it says how to turn it on");
  }
  // the hook's events come from the registry; they are the ones the hook answers
  const hook = await REGISTRY.find((e) => e.name === "hook")!.load();
  assert.deepEqual(hook.values?.[""], [...HOOK_EVENTS]);
  const bad = await runCli(sb, ["completions", "tcsh"]);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^terminus: completions: unknown shell 'tcsh'; expected bash, zsh, fish/);
});

Deno.test("bash -n, zsh -n and fish -n accept the scripts (each shell installed here)", async () => {
  await using sb = await sandbox();
  let checked = 0;
  for (const shell of SHELLS) {
    if (!found(shell)) {
      console.warn(`${shell} is not installed; its script is not syntax-checked`);
      continue;
    }
    const r = await runCli(sb, ["completions", shell]);
    const file = join(sb.dir, `terminus.${shell}`);
    await Deno.writeTextFile(file, r.out);
    const o = await new Deno.Command(shell, { args: ["-n", file], stderr: "piped" }).output();
    assert.ok(o.success, `${shell} -n: ${new TextDecoder().decode(o.stderr)}`);
    checked++;
  }
  assert.ok(checked >= 1, "bash at least is here");
});

Deno.test("bash completes commands, verbs, a verb's options and an option's values", async () => {
  await using sb = await sandbox();
  const script = join(sb.dir, "terminus.bash");
  await Deno.writeTextFile(script, (await runCli(sb, ["completions", "bash"])).out);
  const complete = async (...words: string[]) => {
    const line = words.map((w) => `'${w}'`).join(" ");
    const o = await new Deno.Command("bash", {
      args: [
        "-c",
        `source '${script}'; COMP_WORDS=(${line}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _terminus; printf '%s\\n' "\${COMPREPLY[@]}"`,
      ],
      stdout: "piped",
    }).output();
    return new TextDecoder().decode(o.stdout).trim().split("\n").filter((l) => l !== "");
  };
  assert.deepEqual(await complete("terminus", "se"), ["search", "sessions"]);
  assert.deepEqual(await complete("terminus", "sessions", "sh"), ["show"]);
  assert.deepEqual(await complete("terminus", "sessions", "show", "42", "--f"), ["--full"]);
  assert.deepEqual(await complete("terminus", "sessions", "export", "42", "--format", ""), [
    "md",
    "html",
    "jsonl",
  ]);
  assert.ok((await complete("terminus", "sessions", "--")).includes("--all"));
  assert.ok(!(await complete("terminus", "sessions", "--")).includes("--full"), "show's only");
  assert.deepEqual(await complete("terminus", "completions", ""), ["bash", "zsh", "fish"]);
  assert.deepEqual(await complete("terminus", "search", "--kind", "a"), [
    "assistant",
    "attachment",
  ]);
});

Deno.test("the man page holds every command, verb and option, and man reads it without a warning", async () => {
  const page = manPage(await cliSpec(REGISTRY), VERSION);
  assert.ok(page.startsWith(".TH TERMINUS 1 "));
  for (const w of await registryWords()) {
    assert.ok(page.includes(`.SS ${w.command.replace(/-/g, "\\-")}\n`), w.command);
    for (const v of w.verbs) {
      assert.ok(page.includes(`.B ${w.command} ${v}\n`), `${w.command} ${v}`);
    }
    for (const o of w.options) assert.ok(page.includes(`\\-\\-${o.replace(/-/g, "\\-")}`), o);
  }
  if (!found("man")) return;
  await using sb = await sandbox();
  const file = join(sb.dir, "terminus.1");
  await Deno.writeTextFile(file, page);
  const o = await new Deno.Command("man", {
    args: ["--warnings", "-l", file],
    env: { MANWIDTH: "80", MANPAGER: "cat", PAGER: "cat" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(o.success);
  assert.equal(new TextDecoder().decode(o.stderr), "", "no roff warning");
  assert.match(new TextDecoder().decode(o.stdout), /sessions show/);
});

Deno.test("install places the man page and names the completions line; it edits no shell file; uninstall removes the page", async () => {
  await using sb = await setupBox("none");
  await Deno.writeTextFile(join(sb.home, ".bashrc"), "# mine\n");
  const r = await install(sb, { SHELL: "/bin/bash" });
  const page = join(sb.home, ".local", "share", "man", "man1", "terminus.1");
  assert.equal(await Deno.readTextFile(page), manPage(await cliSpec(REGISTRY), VERSION));
  assert.match(r.out, /man page +.*terminus\.1: written; man terminus reads it/);
  assert.match(
    r.out,
    /^completions: .*add this line to ~\/\.bashrc: eval "\$\(terminus completions bash\)" \(install never edits it\)$/m,
  );
  assert.equal(await Deno.readTextFile(join(sb.home, ".bashrc")), "# mine\n", "left alone");
  const again = await install(sb, { SHELL: "/bin/bash" });
  assert.match(again.out, /man page +.*terminus\.1: already current/);
  await runCli(sb, ["uninstall"]);
  await assert.rejects(() => Deno.stat(page), Deno.errors.NotFound);
});
