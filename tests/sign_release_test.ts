/**
 * scripts/sign-release.sh: its copies of install.sh's checks are held to install.sh's text,
 * and it runs end to end against a stand-in `gh` that serves a draft from a folder, with a
 * throwaway key pinned in a copy of install.sh beside it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  fakeBuild,
  INSTALL_SH,
  type Key,
  manifestFor,
  must,
  type Ran,
  run,
  SH,
  SIGN_RELEASE_SH,
  throwawayKey,
  withKey,
} from "./release_helpers.ts";
import { exists } from "./helpers.ts";

const TARGETS = ["linux-x86_64", "linux-aarch64", "macos-x86_64", "macos-aarch64"];

const WORK = await Deno.makeTempDir({ prefix: "terminus-sign-release-" });
globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(WORK, { recursive: true });
  } catch { /* already gone */ }
});
const KEY: Key = await throwawayKey(WORK, "release");
const OTHER_KEY: Key = await throwawayKey(WORK, "other");

/** Every function definition in a script, by name, as its exact text. */
function functions(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/^([a-z_][a-z0-9_]*)\(\) \{\n[\s\S]*?^\}$/gm)) {
    out.set(m[1], m[0]);
  }
  return out;
}

Deno.test("the signer's valid_version, digest and manifest check are install.sh's, to the byte", async () => {
  const installer = functions(await Deno.readTextFile(INSTALL_SH));
  const signer = functions(await Deno.readTextFile(SIGN_RELEASE_SH));
  for (const name of ["valid_version", "digest", "check_manifest"]) {
    assert.ok(installer.has(name), `install.sh defines ${name}`);
    assert.equal(signer.get(name), installer.get(name), `${name} differs`);
  }
  // the constant valid_version compares against is the same too
  const u64 = /^u64_max='18446744073709551615'$/m;
  assert.match(await Deno.readTextFile(INSTALL_SH), u64);
  assert.match(await Deno.readTextFile(SIGN_RELEASE_SH), u64);
});

Deno.test("the signer keeps no key of its own: it reads install.sh's release_key line", async () => {
  const text = await Deno.readTextFile(SIGN_RELEASE_SH);
  assert.ok(!/ssh-ed25519 AAAA/.test(text), "no key in the signer");
  assert.match(text, /\^release_key=/);
  await must("sh", ["-n", SIGN_RELEASE_SH]);
  await must(SH, ["-n", SIGN_RELEASE_SH]);
});

const FAKE_GH = `#!/bin/sh
# A stand-in for gh: the draft is the folder $FAKE_GH.
printf '%s\\n' "$*" >> "$FAKE_GH/log"
case "$1 $2" in
  "release view") cat "$FAKE_GH/is_draft" ;;
  "release download")
    dir=''
    while [ "$#" -gt 0 ]; do
      case $1 in --dir) dir=$2; shift ;; esac
      shift
    done
    cp "$FAKE_GH"/assets/* "$dir"/ ;;
  "attestation verify")
    n=\${3##*/}
    if [ -e "$FAKE_GH/unattested-$n" ]; then echo "no attestation for $n" >&2; exit 1; fi ;;
  "release upload")
    shift 3
    mkdir -p "$FAKE_GH/uploaded"
    for f in "$@"; do
      case $f in --*) ;; *) [ -f "$f" ] && cp "$f" "$FAKE_GH/uploaded/" ;; esac
    done ;;
  "release edit")
    if [ -e "$FAKE_GH/fail-publish" ]; then exit 1; fi
    echo "$*" > "$FAKE_GH/published" ;;
  *) echo "fake gh: $*" >&2; exit 2 ;;
esac
`;

interface Draft {
  dir: string;
  gh: string;
  repo: string;
}

async function draft(version = "1.2.3"): Promise<Draft> {
  const dir = await Deno.makeTempDir({ dir: WORK });
  const repo = join(dir, "repo");
  await Deno.mkdir(join(repo, "scripts"), { recursive: true });
  await Deno.writeTextFile(
    join(repo, "install.sh"),
    withKey(await Deno.readTextFile(INSTALL_SH), KEY),
  );
  await Deno.copyFile(SIGN_RELEASE_SH, join(repo, "scripts", "sign-release.sh"));
  const gh = join(dir, "gh");
  await Deno.mkdir(join(gh, "assets"), { recursive: true });
  await Deno.writeTextFile(join(gh, "is_draft"), "true\n");
  await Deno.mkdir(join(dir, "bin"));
  await Deno.writeTextFile(join(dir, "bin", "gh"), FAKE_GH, { mode: 0o755 });
  for (const t of TARGETS) {
    const binary = fakeBuild(version);
    await Deno.writeFile(join(gh, "assets", `terminus-${t}`), binary);
    await Deno.writeFile(
      join(gh, "assets", `terminus-${t}.manifest`),
      await manifestFor(version, binary),
    );
  }
  return { dir, gh, repo };
}

function signRelease(d: Draft, tag: string, key: Key = KEY): Promise<Ran> {
  return run(SH, [join(d.repo, "scripts", "sign-release.sh"), tag], {
    env: {
      PATH: `${join(d.dir, "bin")}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
      HOME: d.dir,
      FAKE_GH: d.gh,
      TERMINUS_SIGNING_KEY: key.path,
    },
  });
}

async function log(d: Draft): Promise<string[]> {
  return (await exists(join(d.gh, "log")))
    ? (await Deno.readTextFile(join(d.gh, "log"))).trimEnd().split("\n")
    : [];
}

function refused(r: Ran, pattern: RegExp, what: string) {
  assert.equal(r.code, 1, `${what}: exit 1 (${r.err})`);
  assert.match(r.err, /^sign-release: /m, what);
  assert.match(r.err, pattern, what);
}

async function nothingUploaded(d: Draft, what: string) {
  assert.ok(!(await exists(join(d.gh, "uploaded"))), `${what}: nothing uploaded`);
  assert.ok(!(await exists(join(d.gh, "published"))), `${what}: not published`);
}

Deno.test("a good draft is checked, signed one manifest at a time, uploaded and published", async () => {
  const d = await draft();
  const r = await signRelease(d, "v1.2.3");
  assert.equal(r.code, 0, r.err);
  const allowed = join(d.dir, "allowed");
  await Deno.writeTextFile(allowed, `crenshawdev-release ${KEY.publicLine}\n`);
  for (const t of TARGETS) {
    const sig = join(d.gh, "uploaded", `terminus-${t}.manifest.sig`);
    assert.ok(await exists(sig), `terminus-${t}.manifest.sig uploaded`);
    const manifest = await Deno.readFile(join(d.gh, "assets", `terminus-${t}.manifest`));
    await must("ssh-keygen", [
      "-Y",
      "verify",
      "-f",
      allowed,
      "-I",
      "crenshawdev-release",
      "-n",
      "terminus-release",
      "-s",
      sig,
    ], { stdin: manifest });
  }
  const calls = await log(d);
  const verifies = calls.filter((c) => c.startsWith("attestation verify"));
  assert.equal(verifies.length, 4);
  for (const v of verifies) {
    assert.match(v, /--repo crenshawdev\/terminus/);
    assert.match(v, /--signer-workflow crenshawdev\/terminus\/\.github\/workflows\/release\.yml/);
    assert.match(v, /--source-ref refs\/tags\/v1\.2\.3/);
    assert.match(v, /--deny-self-hosted-runners/);
  }
  const upload = calls.findIndex((c) => c.startsWith("release upload"));
  const publish = calls.findIndex((c) => c.startsWith("release edit"));
  assert.ok(upload > calls.findLastIndex((c) => c.startsWith("attestation")), "attested first");
  assert.ok(publish > upload, "published after the upload");
  assert.match(calls[publish], /--draft=false --latest/);
});

Deno.test("the signer refuses what it must, before uploading anything", async () => {
  const cases: [string, string, (d: Draft) => Promise<void>, RegExp, Key?][] = [
    ["a tag without v", "1.2.3", () => Promise.resolve(), /must start with v/],
    ["a tag with a leading zero", "v1.02.3", () => Promise.resolve(), /is not v<major/],
    [
      "a published release",
      "v1.2.3",
      (d) => Deno.writeTextFile(join(d.gh, "is_draft"), "false\n"),
      /not a draft/,
    ],
    [
      "a missing binary",
      "v1.2.3",
      (d) => Deno.remove(join(d.gh, "assets", "terminus-macos-aarch64")),
      /has no terminus-macos-aarch64$/m,
    ],
    [
      "a missing manifest",
      "v1.2.3",
      (d) => Deno.remove(join(d.gh, "assets", "terminus-linux-aarch64.manifest")),
      /has no terminus-linux-aarch64\.manifest/,
    ],
    [
      "a manifest for another version",
      "v1.2.4",
      () => Promise.resolve(),
      /names version 1\.2\.3, not 1\.2\.4/,
    ],
    ["a manifest that is not the two lines", "v1.2.3", (d) =>
      Deno.writeTextFile(
        join(d.gh, "assets", "terminus-linux-x86_64.manifest"),
        "version 1.2.3\nsha256 00\n",
      ), /is not exactly the two lines/],
    [
      "a binary that does not match its manifest",
      "v1.2.3",
      (d) => Deno.writeFile(join(d.gh, "assets", "terminus-macos-x86_64"), fakeBuild("6.6.6")),
      /does not match its manifest/,
    ],
    [
      "a binary with no attestation",
      "v1.2.3",
      (d) => Deno.writeTextFile(join(d.gh, "unattested-terminus-linux-aarch64"), ""),
      /has no attestation/,
    ],
    [
      "a signing key that is not the pinned one",
      "v1.2.3",
      () => Promise.resolve(),
      /is not the key install\.sh pins/,
      OTHER_KEY,
    ],
  ];
  for (const [what, tag, make, pattern, key] of cases) {
    const d = await draft();
    await make(d);
    refused(await signRelease(d, tag, key), pattern, what);
    await nothingUploaded(d, what);
  }
  // a tag without v is refused before gh is asked anything
  const d = await draft();
  await signRelease(d, "1.2.3");
  assert.deepEqual(await log(d), []);
});

Deno.test("a failed publish leaves the release a draft and says so", async () => {
  const d = await draft();
  await Deno.writeTextFile(join(d.gh, "fail-publish"), "");
  const r = await signRelease(d, "v1.2.3");
  refused(r, /could not be published; it stays a draft/, "publish fails");
});
