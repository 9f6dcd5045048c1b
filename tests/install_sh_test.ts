/**
 * install.sh end to end, run by dash against a loopback HTTPS source with a self-signed
 * certificate that curl is told to trust through CURL_CA_BUNDLE. The script under test is a
 * copy of install.sh that differs only in its release_key line, which names a throwaway key
 * made for this run. Every refusal in "What install.sh checks" has a test here.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { exists } from "./helpers.ts";
import {
  fakeBuild,
  fakeUname,
  INSTALL_SH,
  type Key,
  manifestFor,
  must,
  pathDir,
  platformName,
  type Ran,
  run,
  selfSigned,
  serve,
  SH,
  sha256Hex,
  sign,
  type Source,
  throwawayKey,
  type Tls,
  withKey,
} from "./release_helpers.ts";
import { BUILD_MARKER } from "../core/constants.ts";

const encoder = new TextEncoder();

const WORK = await Deno.makeTempDir({ prefix: "terminus-install-sh-" });
globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(WORK, { recursive: true });
  } catch { /* already gone */ }
});
const TLS: Tls = await selfSigned(WORK);
const KEY: Key = await throwawayKey(WORK, "release");
const OTHER_KEY: Key = await throwawayKey(WORK, "someone-else");
const ORIGINAL = await Deno.readTextFile(INSTALL_SH);
const SCRIPT = join(WORK, "install.sh");
await Deno.writeTextFile(SCRIPT, withKey(ORIGINAL, KEY));

const NAME = platformName();

interface Scene {
  dir: string;
  home: string;
  link: string;
  versions: string;
}

let sceneNo = 0;
async function scene(): Promise<Scene> {
  const dir = join(WORK, `scene-${++sceneNo}`);
  const home = join(dir, "home");
  await Deno.mkdir(home, { recursive: true });
  return {
    dir,
    home,
    link: join(home, ".local", "bin", "terminus"),
    versions: join(home, ".local", "lib", "crenshawdev", "terminus", "versions"),
  };
}

/** Serves a release of `version` signed with `key` under `name` (this machine's by default). */
async function publish(
  src: Source,
  version: string,
  opts: { key?: Key; name?: string; binary?: Uint8Array; manifest?: Uint8Array } = {},
): Promise<{ binary: Uint8Array; manifest: Uint8Array }> {
  const name = opts.name ?? NAME;
  const binary = opts.binary ?? fakeBuild(version);
  const manifest = opts.manifest ?? await manifestFor(version, binary);
  src.files.set(`${name}.manifest`, manifest);
  src.files.set(`${name}.manifest.sig`, await sign(opts.key ?? KEY, manifest, WORK));
  src.files.set(name, binary);
  return { binary, manifest };
}

async function install(
  s: Scene,
  args: string[],
  opts: { env?: Record<string, string | undefined>; script?: string } = {},
): Promise<Ran> {
  const env: Record<string, string> = {
    HOME: s.home,
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    CURL_CA_BUNDLE: TLS.certFile,
  };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return await run(SH, [opts.script ?? SCRIPT, ...args], { env, cwd: s.dir });
}

function refused(r: Ran, pattern: RegExp, what: string) {
  assert.equal(r.code, 1, `${what}: exit 1 (stdout ${r.out}, stderr ${r.err})`);
  const last = r.err.trimEnd().split("\n").pop() ?? "";
  assert.match(last, /^terminus: /, `${what}: the refusal is 'terminus: <reason>' on stderr`);
  assert.match(last, pattern, `${what}: ${last}`);
}

async function nothingInstalled(s: Scene, what: string) {
  assert.ok(!(await exists(join(s.home, ".local", "lib"))), `${what}: nothing stored`);
  assert.ok(!(await exists(join(s.home, "install-ran"))), `${what}: terminus install not run`);
}

/* ---------- the happy path ---------- */

Deno.test("a signed release is stored under its version, linked, and terminus install runs", async () => {
  await using src = serve(TLS);
  const s = await scene();
  const { binary } = await publish(src, "1.2.3");
  const r = await install(s, [src.url]);
  assert.equal(r.code, 0, r.err);
  const stored = join(s.versions, "1.2.3", "terminus");
  assert.deepEqual(await Deno.readFile(stored), binary);
  assert.equal((await Deno.stat(stored)).mode! & 0o111, 0o111, "stored executable");
  assert.equal(await Deno.readLink(s.link), stored, "the link names the stored binary");
  assert.equal(
    await Deno.readTextFile(join(s.home, "install-ran")),
    `${s.link} install\n`,
    "terminus install ran once, through the link",
  );
  assert.match(r.out, /terminus 1\.2\.3 placed at /);
  assert.match(r.out, /versions held in .*:\n {2}1\.2\.3\n/);
  // the manifest and its signature come first, the binary only after the signature
  assert.deepEqual(src.requests, [`${NAME}.manifest`, `${NAME}.manifest.sig`, NAME]);
  assert.equal(r.err, "", "nothing on stderr");
});

Deno.test("under umask 000 the folders it makes are 0755 and the binary 0755", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  const r = await run(SH, ["-c", 'umask 000; exec "$0" "$@"', SH, SCRIPT, src.url], {
    env: {
      HOME: s.home,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      CURL_CA_BUNDLE: TLS.certFile,
    },
    cwd: s.dir,
  });
  assert.equal(r.code, 0, r.err);
  const dirs = [join(s.home, ".local", "bin"), join(s.versions, "1.2.3")];
  for (let d = s.versions; d !== s.home; d = join(d, "..")) dirs.push(d);
  for (const d of dirs) assert.equal((await Deno.stat(d)).mode! & 0o7777, 0o755, d);
  assert.equal((await Deno.stat(join(s.versions, "1.2.3", "terminus"))).mode! & 0o7777, 0o755);
});

Deno.test("piped into sh -s -- <source>, as the install line runs it, it installs the same", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  const r = await run(SH, ["-s", "--", src.url], {
    env: {
      HOME: s.home,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      CURL_CA_BUNDLE: TLS.certFile,
    },
    cwd: s.dir,
    stdin: await Deno.readFile(SCRIPT),
  });
  assert.equal(r.code, 0, r.err);
  assert.equal(await Deno.readLink(s.link), join(s.versions, "1.2.3", "terminus"));
  assert.ok(await exists(join(s.home, "install-ran")));
});

Deno.test("an update keeps the older version beside the new one and moves the link", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  assert.equal((await install(s, [src.url])).code, 0);
  await publish(src, "1.3.0");
  const r = await install(s, [src.url]);
  assert.equal(r.code, 0, r.err);
  assert.ok(await exists(join(s.versions, "1.2.3", "terminus")), "the older version stays");
  assert.equal(await Deno.readLink(s.link), join(s.versions, "1.3.0", "terminus"));
  assert.match(r.out, /versions held in .*:\n {2}1\.2\.3\n {2}1\.3\.0\n/);
});

Deno.test("the script exits with terminus install's status", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  const r = await install(s, [src.url], { env: { FAKE_INSTALL_STATUS: "3" } });
  assert.equal(r.code, 3);
  assert.ok(await exists(join(s.versions, "1.2.3", "terminus")), "stored before install ran");
});

Deno.test("the same binary already stored and executable is kept; a different one replaces it", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  assert.equal((await install(s, [src.url])).code, 0);
  const stored = join(s.versions, "1.2.3", "terminus");
  const ino = (await Deno.stat(stored)).ino;
  assert.equal((await install(s, [src.url])).code, 0);
  assert.equal((await Deno.stat(stored)).ino, ino, "the same file, not rewritten");
  const rebuilt = encoder.encode(new TextDecoder().decode(fakeBuild("1.2.3")) + "# rebuilt\n");
  await publish(src, "1.2.3", { binary: rebuilt });
  assert.equal((await install(s, [src.url])).code, 0);
  assert.deepEqual(await Deno.readFile(stored), rebuilt);
});

/* ---------- 1. the source ---------- */

Deno.test("a source that does not start with https:// is refused", async () => {
  await using src = serve(TLS);
  const s = await scene();
  for (const bad of ["http://127.0.0.1:1", src.url.replace("https", "ftp"), "127.0.0.1", ""]) {
    refused(await install(s, [bad]), /must start with https:\/\//, `source '${bad}'`);
  }
  assert.deepEqual(src.requests, [], "nothing was fetched");
  await nothingInstalled(s, "bad source");
});

Deno.test("more than one argument is refused", async () => {
  await using src = serve(TLS);
  const s = await scene();
  refused(await install(s, [src.url, src.url]), /more than one argument/, "two arguments");
  assert.deepEqual(src.requests, []);
  await nothingInstalled(s, "two arguments");
});

Deno.test("with no argument the source is the latest GitHub release", () => {
  assert.match(
    ORIGINAL,
    /^default_source='https:\/\/github\.com\/crenshawdev\/terminus\/releases\/latest\/download'$/m,
  );
});

/* ---------- 2. TERMINUS_BIN_DIR ---------- */

Deno.test("TERMINUS_BIN_DIR set is refused", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  const r = await install(s, [src.url], { env: { TERMINUS_BIN_DIR: join(s.dir, "bin") } });
  refused(r, /TERMINUS_BIN_DIR is set/, "TERMINUS_BIN_DIR");
  assert.deepEqual(src.requests, []);
  await nothingInstalled(s, "TERMINUS_BIN_DIR");
});

/* ---------- 3. HOME ---------- */

Deno.test("HOME unset, empty, relative or with a '..' part is refused", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  const cases: [string | undefined, RegExp][] = [
    [undefined, /HOME is not set/],
    ["", /HOME is not set/],
    ["home", /HOME is not an absolute path/],
    ["./home", /HOME is not an absolute path/],
    [`${s.dir}/../${s.dir.split("/").pop()}/home`, /HOME has a '\.\.' part/],
    [`${s.home}/..`, /HOME has a '\.\.' part/],
  ];
  for (const [home, pattern] of cases) {
    refused(await install(s, [src.url], { env: { HOME: home } }), pattern, `HOME=${home}`);
  }
  assert.deepEqual(src.requests, []);
  await nothingInstalled(s, "bad HOME");
});

Deno.test("a HOME that is not valid UTF-8 is refused", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  // the environment cannot carry the byte from here, so a shell puts it there
  const r = await run("sh", [
    "-c",
    `HOME="$(printf '${s.dir}/\\377home')" exec "$0" "$1" "$2"`,
    SH,
    SCRIPT,
    src.url,
  ], {
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", CURL_CA_BUNDLE: TLS.certFile },
  });
  refused(r, /HOME is not valid UTF-8/, "HOME with \\377");
  assert.deepEqual(src.requests, []);
});

Deno.test("a HOME with valid UTF-8 outside ASCII is accepted", async () => {
  await using src = serve(TLS);
  const s = await scene();
  const home = join(s.dir, "hömé");
  await Deno.mkdir(home);
  await publish(src, "1.2.3");
  const r = await install({ ...s, home }, [src.url]);
  assert.equal(r.code, 0, r.err);
  assert.ok(await exists(join(home, ".local", "bin", "terminus")));
});

/* ---------- 4. what sits at ~/.local/bin/terminus ---------- */

Deno.test("a folder, a link to a folder, a foreign file or a special file at the link path is refused", async () => {
  await using src = serve(TLS);
  await publish(src, "1.2.3");
  const setups: [string, (s: Scene) => Promise<void>, RegExp][] = [
    ["a folder", (s) => Deno.mkdir(s.link, { recursive: true }), /is a folder/],
    ["a link to a folder", async (s) => {
      await Deno.mkdir(join(s.dir, "elsewhere"));
      await Deno.mkdir(join(s.home, ".local", "bin"), { recursive: true });
      await Deno.symlink(join(s.dir, "elsewhere"), s.link);
    }, /is a link to a folder/],
    ["a foreign file", async (s) => {
      await Deno.mkdir(join(s.home, ".local", "bin"), { recursive: true });
      await Deno.writeFile(s.link, fakeBuild("9.9.9", false));
    }, /is a file that is not a Terminus build/],
    ["a link to a foreign file", async (s) => {
      await Deno.mkdir(join(s.home, ".local", "bin"), { recursive: true });
      await Deno.writeFile(join(s.dir, "other"), fakeBuild("9.9.9", false));
      await Deno.symlink(join(s.dir, "other"), s.link);
    }, /which is not a Terminus build/],
    ["a link to nothing outside the versions folder", async (s) => {
      await Deno.mkdir(join(s.home, ".local", "bin"), { recursive: true });
      await Deno.symlink(join(s.dir, "gone"), s.link);
    }, /is a link to nothing/],
    ["a named pipe", async (s) => {
      await Deno.mkdir(join(s.home, ".local", "bin"), { recursive: true });
      await must("mkfifo", [s.link]);
    }, /is neither a file nor a link/],
  ];
  for (const [what, make, pattern] of setups) {
    const s = await scene();
    await make(s);
    src.requests.length = 0;
    refused(await install(s, [src.url]), pattern, what);
    assert.deepEqual(src.requests, [], `${what}: nothing fetched`);
    await nothingInstalled(s, what);
  }
});

Deno.test("nothing, a Terminus build, or a link into the versions folder at the link path is fine", async () => {
  await using src = serve(TLS);
  await publish(src, "1.2.3");
  const setups: [string, (s: Scene) => Promise<void>][] = [
    ["nothing", () => Promise.resolve()],
    ["a Terminus build (the source launcher)", async (s) => {
      await Deno.mkdir(join(s.home, ".local", "bin"), { recursive: true });
      await Deno.writeFile(s.link, fakeBuild("0.1.0"));
    }],
    ["a link to a Terminus build elsewhere", async (s) => {
      await Deno.mkdir(join(s.home, ".local", "bin"), { recursive: true });
      await Deno.writeFile(join(s.dir, "build"), fakeBuild("0.1.0"));
      await Deno.symlink(join(s.dir, "build"), s.link);
    }],
    ["a link to a stored version", async (s) => {
      await Deno.mkdir(join(s.versions, "1.0.0"), { recursive: true });
      await Deno.writeFile(join(s.versions, "1.0.0", "terminus"), fakeBuild("1.0.0"), {
        mode: 0o755,
      });
      await Deno.mkdir(join(s.home, ".local", "bin"), { recursive: true });
      await Deno.symlink(join(s.versions, "1.0.0", "terminus"), s.link);
    }],
    ["a link to a version since deleted", async (s) => {
      await Deno.mkdir(join(s.home, ".local", "bin"), { recursive: true });
      await Deno.symlink(join(s.versions, "0.9.0", "terminus"), s.link);
    }],
  ];
  for (const [what, make] of setups) {
    const s = await scene();
    await make(s);
    const r = await install(s, [src.url]);
    assert.equal(r.code, 0, `${what}: ${r.err}`);
    assert.equal(await Deno.readLink(s.link), join(s.versions, "1.2.3", "terminus"), what);
  }
});

/* ---------- 5. OS and architecture ---------- */

Deno.test("an unsupported OS or architecture is refused; arm64 counts as aarch64", async () => {
  await using src = serve(TLS);
  const os = Deno.build.os === "darwin" ? "Darwin" : "Linux";
  const cases: [string, string, RegExp][] = [
    ["FreeBSD", "x86_64", /this system \(FreeBSD\) is not supported/],
    ["MINGW64_NT-10.0", "x86_64", /is not supported/],
    [os, "riscv64", /this architecture \(riscv64\) is not supported/],
    [os, "i686", /this architecture \(i686\) is not supported/],
  ];
  for (const [system, machine, pattern] of cases) {
    const s = await scene();
    const path = await pathDir(join(s.dir, "bin"), {
      extra: { uname: fakeUname(system, machine) },
    });
    refused(await install(s, [src.url], { env: { PATH: path } }), pattern, `${system}/${machine}`);
    assert.deepEqual(src.requests, []);
    await nothingInstalled(s, `${system}/${machine}`);
  }
  const s = await scene();
  const name = platformName("aarch64");
  await publish(src, "1.2.3", { name });
  const path = await pathDir(join(s.dir, "bin"), { extra: { uname: fakeUname(os, "arm64") } });
  const r = await install(s, [src.url], { env: { PATH: path } });
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(src.requests, [`${name}.manifest`, `${name}.manifest.sig`, name]);
});

/* ---------- 6. ssh-keygen ---------- */

Deno.test("no ssh-keygen on PATH is refused, naming the package", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  const path = await pathDir(join(s.dir, "bin"), { without: ["ssh-keygen"] });
  const r = await install(s, [src.url], { env: { PATH: path } });
  refused(r, /ssh-keygen is not on PATH/, "no ssh-keygen");
  assert.match(
    r.err,
    /openssh-client \(Debian, Ubuntu\), openssh-clients \(Fedora\).*openssh \(Arch\)/,
  );
  assert.deepEqual(src.requests, []);
  await nothingInstalled(s, "no ssh-keygen");
});

/* ---------- 7 and 9. downloads ---------- */

Deno.test("a failed download of the manifest, the signature or the binary is refused", async () => {
  for (const [missing, status] of [["manifest", 404], ["sig", 500], ["binary", 404]] as const) {
    await using src = serve(TLS);
    const s = await scene();
    await publish(src, "1.2.3");
    const file = missing === "manifest"
      ? `${NAME}.manifest`
      : missing === "sig"
      ? `${NAME}.manifest.sig`
      : NAME;
    src.files.set(file, status);
    refused(await install(s, [src.url]), /the download of .* failed/, `no ${missing}`);
    await nothingInstalled(s, `no ${missing}`);
  }
});

Deno.test("a source that is not there at all is a failed download", async () => {
  await using src = serve(TLS);
  const s = await scene();
  const url = src.url;
  await src[Symbol.asyncDispose]();
  refused(await install(s, [url]), /the download of .*\.manifest failed/, "closed port");
  await nothingInstalled(s, "closed port");
});

Deno.test("a certificate curl does not trust is a failed download", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  const r = await install(s, [src.url], { env: { CURL_CA_BUNDLE: undefined } });
  refused(r, /the download of .*\.manifest failed/, "untrusted certificate");
  await nothingInstalled(s, "untrusted certificate");
});

/* ---------- 8. the signature ---------- */

Deno.test("a signature by another key, a tampered manifest or a garbled signature is refused before the binary is fetched", async () => {
  const cases: [string, (src: Source) => Promise<void>][] = [
    ["signed by another key", async (src) => {
      await publish(src, "1.2.3", { key: OTHER_KEY });
    }],
    ["manifest changed after signing", async (src) => {
      await publish(src, "1.2.3");
      src.files.set(`${NAME}.manifest`, await manifestFor("1.2.4", fakeBuild("1.2.4")));
    }],
    ["a signature that is not one", async (src) => {
      await publish(src, "1.2.3");
      src.files.set(`${NAME}.manifest.sig`, encoder.encode("not a signature\n"));
    }],
    ["an empty signature", async (src) => {
      await publish(src, "1.2.3");
      src.files.set(`${NAME}.manifest.sig`, new Uint8Array());
    }],
  ];
  for (const [what, make] of cases) {
    await using src = serve(TLS);
    const s = await scene();
    await make(src);
    refused(await install(s, [src.url]), /signature .* does not verify/, what);
    assert.ok(!src.requests.includes(NAME), `${what}: the binary was never fetched`);
    await nothingInstalled(s, what);
  }
});

Deno.test("no allowed-signers file of the user's is read", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3", { key: OTHER_KEY });
  // an allowed_signers that would accept the other key, where ssh-keygen looks by default
  await Deno.mkdir(join(s.home, ".ssh"), { recursive: true });
  await Deno.writeTextFile(
    join(s.home, ".ssh", "allowed_signers"),
    `crenshawdev-release ${OTHER_KEY.publicLine}\n`,
  );
  refused(await install(s, [src.url]), /does not verify/, "user allowed_signers");
});

/* ---------- 10. the manifest's two lines ---------- */

Deno.test("a signed manifest that is not exactly the two lines is refused", async () => {
  const binary = fakeBuild("1.2.3");
  const hex = await sha256Hex(binary);
  const cases: [string, string][] = [
    ["leading zero in major", `version 01.2.3\nsha256 ${hex}\n`],
    ["leading zero in patch", `version 1.2.03\nsha256 ${hex}\n`],
    ["a part past u64", `version 18446744073709551616.0.0\nsha256 ${hex}\n`],
    ["a part far past u64", `version 1.99999999999999999999.0\nsha256 ${hex}\n`],
    ["two parts", `version 1.2\nsha256 ${hex}\n`],
    ["four parts", `version 1.2.3.4\nsha256 ${hex}\n`],
    ["a v prefix", `version v1.2.3\nsha256 ${hex}\n`],
    ["uppercase hex", `version 1.2.3\nsha256 ${hex.toUpperCase()}\n`],
    ["short hex", `version 1.2.3\nsha256 ${hex.slice(1)}\n`],
    ["trailing data", `version 1.2.3\nsha256 ${hex}\nextra\n`],
    ["a blank third line", `version 1.2.3\nsha256 ${hex}\n\n`],
    ["no final newline", `version 1.2.3\nsha256 ${hex}`],
    ["CRLF", `version 1.2.3\r\nsha256 ${hex}\r\n`],
    ["two spaces", `version  1.2.3\nsha256 ${hex}\n`],
    ["lines swapped", `sha256 ${hex}\nversion 1.2.3\n`],
    ["a NUL byte", `version 1.2.3\0\nsha256 ${hex}\n`],
    ["a trailing space", `version 1.2.3 \nsha256 ${hex}\n`],
  ];
  for (const [what, text] of cases) {
    await using src = serve(TLS);
    const s = await scene();
    await publish(src, "1.2.3", { binary, manifest: encoder.encode(text) });
    refused(await install(s, [src.url]), /manifest is not exactly/, what);
    await nothingInstalled(s, what);
  }
});

Deno.test("the largest u64 in each part and zeros are valid versions", async () => {
  for (
    const version of ["18446744073709551615.18446744073709551615.18446744073709551615", "0.0.0"]
  ) {
    await using src = serve(TLS);
    const s = await scene();
    await publish(src, version);
    const r = await install(s, [src.url]);
    assert.equal(r.code, 0, `${version}: ${r.err}`);
    assert.ok(await exists(join(s.versions, version, "terminus")));
  }
});

/* ---------- 11. the binary's SHA-256 ---------- */

Deno.test("a binary whose SHA-256 is not the manifest's is refused", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  src.files.set(NAME, fakeBuild("6.6.6"));
  refused(await install(s, [src.url]), /SHA-256 of .* is not the one its manifest names/, "sha");
  await nothingInstalled(s, "sha mismatch");
});

Deno.test("shasum -a 256 is used where sha256sum is missing", async () => {
  const shasum = await run("sh", ["-c", "command -v shasum"]);
  if (shasum.code !== 0) return; // neither path can be exercised without it
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  const path = await pathDir(join(s.dir, "bin"), { without: ["sha256sum"] });
  const r = await install(s, [src.url], { env: { PATH: path } });
  assert.equal(r.code, 0, r.err);
});

Deno.test("neither sha256sum nor shasum is refused", async () => {
  await using src = serve(TLS);
  const s = await scene();
  await publish(src, "1.2.3");
  const path = await pathDir(join(s.dir, "bin"), { without: ["sha256sum", "shasum"] });
  refused(
    await install(s, [src.url], { env: { PATH: path } }),
    /neither sha256sum nor shasum/,
    "no digest",
  );
});

/* ---------- storing ---------- */

Deno.test("storing is refused over a link, a non-file, or the same binary without execute permission", async () => {
  await using src = serve(TLS);
  const { binary } = await publish(src, "1.2.3");
  const dest = (s: Scene) => join(s.versions, "1.2.3", "terminus");
  const setups: [string, (s: Scene) => Promise<void>, RegExp][] = [
    ["a link", async (s) => {
      await Deno.mkdir(join(s.versions, "1.2.3"), { recursive: true });
      await Deno.writeFile(join(s.dir, "real"), binary, { mode: 0o755 });
      await Deno.symlink(join(s.dir, "real"), dest(s));
    }, /is a link/],
    ["a folder", (s) => Deno.mkdir(dest(s), { recursive: true }), /is not a regular file/],
    ["not executable", async (s) => {
      await Deno.mkdir(join(s.versions, "1.2.3"), { recursive: true });
      await Deno.writeFile(dest(s), binary, { mode: 0o644 });
      await Deno.chmod(dest(s), 0o644);
    }, /without execute permission/],
  ];
  for (const [what, make, pattern] of setups) {
    const s = await scene();
    await make(s);
    refused(await install(s, [src.url]), pattern, what);
    assert.ok(!(await exists(s.link)), `${what}: no link made`);
    assert.ok(!(await exists(join(s.home, "install-ran"))), `${what}: install not run`);
  }
});

/* ---------- the script itself ---------- */

Deno.test("install.sh parses under sh -n and dash -n", async () => {
  await must("sh", ["-n", INSTALL_SH]);
  await must(SH, ["-n", INSTALL_SH]);
});

Deno.test("the body is one brace group after only options, variables and functions", () => {
  const lines = ORIGINAL.split("\n");
  assert.equal(lines.pop(), "", "ends in a newline");
  assert.ok(lines[0].startsWith("#!/bin/sh"), "a POSIX sh script");
  const open = lines.indexOf("{");
  assert.ok(open > 0, "a line that is a lone '{'");
  assert.equal(lines[lines.length - 1], "}", "the last line closes it");
  assert.equal(lines.indexOf("{", open + 1), -1, "one brace group");
  let inFunction = false;
  for (const [i, line] of lines.slice(0, open).entries()) {
    if (inFunction) {
      if (line === "}") inFunction = false;
      else assert.ok(line === "" || line.startsWith("  "), `line ${i + 1} is inside a function`);
      continue;
    }
    if (line === "" || line.startsWith("#")) continue;
    if (/^[a-z_][a-z0-9_]*\(\) \{$/.test(line)) {
      inFunction = true;
      continue;
    }
    assert.match(line, /^(set -[a-z]+|[a-z_][a-z0-9_]*='[^']*')$/, `line ${i + 1}: ${line}`);
  }
  assert.ok(!inFunction, "every function is closed before the body");
  for (const line of lines.slice(open + 1, -1)) {
    assert.ok(line === "" || line.startsWith("  "), `the body is indented: ${line}`);
  }
});

Deno.test("a download cut off part way runs nothing", async () => {
  await using src = serve(TLS);
  await publish(src, "1.2.3");
  const s = await scene();
  const bytes = encoder.encode(withKey(ORIGINAL, KEY));
  const cuts = new Set<number>();
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      cuts.add(i); // just before a newline
      cuts.add(i + 1); // just after it
    }
  }
  for (let i = 0; i < bytes.length; i += 97) cuts.add(i); // and mid-line
  // the whole script, and the whole script but its final newline, are not cut off
  cuts.delete(bytes.length);
  cuts.delete(bytes.length - 1);
  const cutFile = join(s.dir, "cut.sh");
  for (const n of [...cuts].sort((a, b) => a - b)) {
    await Deno.writeFile(cutFile, bytes.subarray(0, n));
    const r = await install(s, [src.url], { script: cutFile });
    assert.equal(r.out, "", `cut at ${n}: printed ${r.out}`);
    assert.deepEqual(src.requests, [], `cut at ${n}: fetched ${src.requests.join(", ")}`);
    assert.deepEqual([...Deno.readDirSync(s.home)], [], `cut at ${n}: wrote into HOME`);
  }
});

Deno.test("install.sh pins one ssh-ed25519 key, the one docs/design/release.md shows", async () => {
  const keyLines = ORIGINAL.split("\n").filter((l) => l.startsWith("release_key="));
  assert.equal(keyLines.length, 1, "one release_key line");
  const m = keyLines[0].match(/^release_key='(ssh-ed25519 [A-Za-z0-9+/=]+)'$/);
  assert.ok(m, keyLines[0]);
  const pub = join(WORK, "pinned.pub");
  await Deno.writeTextFile(pub, m[1] + "\n");
  const fp = (await must("ssh-keygen", ["-l", "-f", pub])).out.split(" ")[1];
  const doc = await Deno.readTextFile(join(INSTALL_SH, "..", "docs", "design", "release.md"));
  assert.ok(doc.includes(m[1]), "release.md shows the pinned key");
  assert.ok(doc.includes(fp), `release.md shows its fingerprint ${fp}`);
  assert.match(ORIGINAL, /^signer_identity='crenshawdev-release'$/m);
  assert.match(ORIGINAL, /^signature_namespace='terminus-release'$/m);
});

Deno.test("install.sh looks for the build marker core/constants.ts defines", () => {
  assert.ok(ORIGINAL.includes(`\nmarker='${BUILD_MARKER}'\n`));
});

Deno.test("every download is HTTPS only with TLS 1.2 or later", () => {
  const curls = ORIGINAL.split("\n").filter((l) => /\bcurl\b/.test(l) && !l.startsWith("#"));
  const calls = curls.filter((l) => !/command -v curl|curl is not on PATH/.test(l));
  assert.equal(calls.length, 1, `one curl call: ${calls.join(" | ")}`);
  assert.match(calls[0], /curl --proto '=https' --tlsv1\.2 -fsSL /);
});
