/**
 * The two workflows cannot run here, so their text is held to what docs/design/release.md
 * says of them: what starts a release, the four builds and their checks, who may write what,
 * and that CI runs deno.json's own test task on Linux and macOS with the pinned Deno.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_DIR } from "./helpers.ts";
import { COMPILED_PERMISSION_FLAGS } from "../core/context.ts";

const RELEASE = await Deno.readTextFile(join(REPO_DIR, ".github", "workflows", "release.yml"));
const CI = await Deno.readTextFile(join(REPO_DIR, ".github", "workflows", "ci.yml"));

/** The lines of a top-level key's block (`permissions:`, `on:`, `jobs:`), without comments. */
function topBlock(text: string, key: string): string {
  const lines = text.split("\n");
  const start = lines.indexOf(`${key}:`);
  assert.ok(start >= 0, `a top-level ${key}:`);
  const out: string[] = [];
  for (const l of lines.slice(start + 1)) {
    if (/^\S/.test(l)) break;
    if (l.trim() !== "" && !l.trim().startsWith("#")) out.push(l);
  }
  return out.join("\n");
}

/** A job's block under `jobs:`. */
function job(text: string, name: string): string {
  const jobs = topBlock(text, "jobs").split("\n");
  const start = jobs.indexOf(`  ${name}:`);
  assert.ok(start >= 0, `a job named ${name}`);
  const out: string[] = [];
  for (const l of jobs.slice(start + 1)) {
    if (/^ {2}\S/.test(l)) break;
    out.push(l);
  }
  return out.join("\n");
}

/** A job's `permissions:` as key: value pairs. */
function permissions(block: string, indent: string): Record<string, string> {
  const lines = block.split("\n");
  const i = lines.indexOf(`${indent}permissions:`);
  assert.ok(i >= 0, "the job states its permissions");
  const out: Record<string, string> = {};
  for (const l of lines.slice(i + 1)) {
    const m = l.match(new RegExp(`^${indent}  ([a-z-]+): ([a-z]+)$`));
    if (!m) break;
    out[m[1]] = m[2];
  }
  return out;
}

function jobNames(text: string): string[] {
  return topBlock(text, "jobs").split("\n").filter((l) => /^ {2}[a-z-]+:$/.test(l)).map((l) =>
    l.trim().slice(0, -1)
  );
}

Deno.test("release.yml: a v<X.Y.Z> tag push starts it, and nothing else does", () => {
  assert.equal(topBlock(RELEASE, "on"), '  push:\n    tags:\n      - "v[0-9]+.[0-9]+.[0-9]+"');
  for (const trigger of ["workflow_dispatch", "pull_request", "schedule", "branches", "release:"]) {
    assert.ok(!RELEASE.includes(trigger), `no ${trigger}`);
  }
  assert.match(
    RELEASE,
    /grep -Eqx 'v\(0\|\[1-9\]\[0-9\]\*\)\\\.\(0\|\[1-9\]\[0-9\]\*\)\\\.\(0\|\[1-9\]\[0-9\]\*\)'/,
  );
});

Deno.test("release.yml: contents: read at the top; id-token and attestations only on the builds; contents: write only on the draft", () => {
  assert.equal(topBlock(RELEASE, "permissions"), "  contents: read");
  assert.deepEqual(jobNames(RELEASE), ["build", "draft"]);
  assert.deepEqual(permissions(job(RELEASE, "build"), "    "), {
    contents: "read",
    "id-token": "write",
    attestations: "write",
  });
  assert.deepEqual(permissions(job(RELEASE, "draft"), "    "), { contents: "write" });
  assert.equal((RELEASE.match(/contents: write/g) ?? []).length, 1);
  assert.equal((RELEASE.match(/id-token: write/g) ?? []).length, 1);
  assert.equal((RELEASE.match(/attestations: write/g) ?? []).length, 1);
});

Deno.test("release.yml: four builds on their own runners, Linux and macOS, x86_64 and aarch64", () => {
  const build = job(RELEASE, "build");
  const targets = [...build.matchAll(/- target: (\S+)\n\s+runner: (\S+)\n\s+deno_target: (\S+)/g)]
    .map((m) => [m[1], m[2], m[3]]);
  assert.deepEqual(targets, [
    ["linux-x86_64", "ubuntu-24.04", "x86_64-unknown-linux-gnu"],
    ["linux-aarch64", "ubuntu-24.04-arm", "aarch64-unknown-linux-gnu"],
    ["macos-x86_64", "macos-15-intel", "x86_64-apple-darwin"],
    ["macos-aarch64", "macos-15", "aarch64-apple-darwin"],
  ]);
  assert.match(build, /runs-on: \$\{\{ matrix\.runner \}\}/);
  assert.match(build, /deno-version: v2\.9\.6/);
});

Deno.test("release.yml: deno compile runs with core/context.ts's compiled permission flags and nothing more", () => {
  const m = RELEASE.match(/run: >-\n((?:\s+.*\n)*?)\s+mod\.ts\n/);
  assert.ok(m, "a folded deno compile command");
  const words = m[1].split(/\s+/).filter((w) => w !== "");
  assert.deepEqual(words.slice(0, 2), ["deno", "compile"]);
  const perms = words.filter((w) =>
    w.startsWith("--allow") || w.startsWith("--v8-flags") || w === "--no-prompt" || w === "--quiet"
  );
  assert.deepEqual(perms, [...COMPILED_PERMISSION_FLAGS]);
  const banned = ["--allow-net", "--allow-ffi", "--allow-all", "--allow-import"];
  for (const bad of banned) assert.ok(!RELEASE.includes(bad), `no ${bad}`);
  // sys access only to lower a priority (the hook's pass, the backfill's worker)
  for (const m of RELEASE.matchAll(/--allow-sys\S*/g)) {
    assert.equal(m[0], "--allow-sys=setPriority");
  }
  assert.ok(!words.includes("-A"), "never -A");
  assert.ok(words.includes("--frozen"), "the lockfile is frozen");
});

Deno.test("release.yml: each build checks --version against the tag, its links, the marker, then writes the manifest and attests", () => {
  const build = job(RELEASE, "build");
  const steps = [
    "The tag is v<major.minor.patch>",
    "Compile",
    "The binary's --version matches the tag",
    "A Linux binary links only the C library and the loader",
    "A macOS binary links nothing outside /usr/lib/ and the system frameworks",
    "The binary carries the build marker install.sh looks for",
    "The manifest, exactly two lines",
    "Attest the binary",
  ];
  let at = -1;
  for (const s of steps) {
    const i = build.indexOf(`name: ${s}`);
    assert.ok(i > at, `step '${s}' comes next`);
    at = i;
  }
  assert.match(build, /want="terminus \$\{GITHUB_REF_NAME#v\}"/);
  assert.match(build, /printf 'version %s\\nsha256 %s\\n'/);
  assert.match(build, /uses: actions\/attest-build-provenance@v\d+\n\s+with:\n\s+subject-path: /);
  assert.match(build, /sed -n "s\/\^marker=/);
});

Deno.test("release.yml: the draft job needs all four builds, checks exactly eight files, and only drafts", () => {
  const draft = job(RELEASE, "draft");
  assert.match(draft, /needs: build/);
  assert.match(draft, /for t in linux-x86_64 linux-aarch64 macos-x86_64 macos-aarch64; do/);
  assert.match(draft, /printf 'terminus-%s\\nterminus-%s\.manifest\\n'/);
  assert.match(draft, /\[ "\$have" != "\$want" \]/);
  assert.match(draft, /gh release create "\$GITHUB_REF_NAME" .*--draft/);
  assert.match(draft, /GH_TOKEN: \$\{\{ github\.token \}\}/);
  for (const bad of ["--prerelease", "--latest", "--draft=false", "secrets.", "ssh-keygen"]) {
    assert.ok(!RELEASE.includes(bad), `no ${bad}`);
  }
});

Deno.test("ci.yml: deno.json's test task, step by step, on Linux and macOS with Deno 2.9.6", async () => {
  const tasks = JSON.parse(await Deno.readTextFile(join(REPO_DIR, "deno.json"))).tasks;
  const parts = (tasks.test as string).split(" && ");
  const runs = [...CI.matchAll(/^\s+run: (.+)$/gm)].map((m) => m[1]);
  assert.deepEqual(runs, parts);
  assert.match(CI, /os:\n\s+- ubuntu-latest\n\s+- macos-latest\n/);
  assert.match(CI, /deno-version: v2\.9\.6/);
  assert.equal(topBlock(CI, "permissions"), "  contents: read");
});
