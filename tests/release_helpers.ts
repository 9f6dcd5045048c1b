/**
 * Helpers for the installer and signer tests: throwaway signing keys, a copy of install.sh
 * pinned to one of them, a loopback HTTPS source with a self-signed certificate, fake
 * Terminus builds, and PATHs with a tool taken away or replaced. Only 127.0.0.1 is used.
 */
import { join } from "node:path";
import { REPO_DIR } from "./helpers.ts";
import { BUILD_MARKER } from "../core/constants.ts";

export const INSTALL_SH = join(REPO_DIR, "install.sh");
export const SIGN_RELEASE_SH = join(REPO_DIR, "scripts", "sign-release.sh");

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** dash where it is installed (the shell `curl | sh` meets on Debian), else sh. */
export const SH: string = (() => {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(join(dir, "dash")).isFile) return join(dir, "dash");
    } catch { /* next */ }
  }
  return "sh";
})();

export interface Ran {
  code: number;
  out: string;
  err: string;
}

export async function run(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string; stdin?: Uint8Array } = {},
): Promise<Ran> {
  const child = new Deno.Command(cmd, {
    args,
    cwd: opts.cwd,
    env: opts.env,
    clearEnv: opts.env !== undefined,
    stdin: opts.stdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (opts.stdin) {
    const w = child.stdin.getWriter();
    await w.write(opts.stdin);
    await w.close();
  }
  const o = await child.output();
  return { code: o.code, out: decoder.decode(o.stdout), err: decoder.decode(o.stderr) };
}

export async function must(cmd: string, args: string[], opts = {}): Promise<Ran> {
  const r = await run(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${r.code}: ${r.err}`);
  return r;
}

/** terminus-<os>-<arch> for the machine the tests run on. */
export function platformName(arch = Deno.build.arch as string): string {
  const os = Deno.build.os === "darwin" ? "macos" : "linux";
  return `terminus-${os}-${arch}`;
}

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const d = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return new Uint8Array(d).toHex();
}

/* ---------- keys and signatures ---------- */

export interface Key {
  /** The private key file. */
  path: string;
  /** "ssh-ed25519 AAAA..." without a comment. */
  publicLine: string;
}

export async function throwawayKey(dir: string, name: string): Promise<Key> {
  const path = join(dir, name);
  await must("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", name, "-f", path]);
  const pub = (await Deno.readTextFile(path + ".pub")).trim().split(" ");
  return { path, publicLine: `${pub[0]} ${pub[1]}` };
}

/** Signs `content` as the release signer does and returns the .sig file's bytes. */
export async function sign(key: Key, content: Uint8Array, dir: string): Promise<Uint8Array> {
  const file = await Deno.makeTempFile({ dir, suffix: ".manifest" });
  await Deno.writeFile(file, content);
  await must("ssh-keygen", ["-Y", "sign", "-f", key.path, "-n", "terminus-release", file]);
  const sig = await Deno.readFile(file + ".sig");
  await Deno.remove(file);
  await Deno.remove(file + ".sig");
  return sig;
}

/** install.sh's text with its release_key line naming `key` instead; nothing else differs. */
export function withKey(script: string, key: Key): string {
  const lines = script.split("\n");
  const i = lines.findIndex((l) => l.startsWith("release_key="));
  if (i < 0) throw new Error("no release_key line");
  lines[i] = `release_key='${key.publicLine}'`;
  return lines.join("\n");
}

/* ---------- fake builds and manifests ---------- */

/**
 * A stand-in for a Terminus build: a shell script carrying the build marker, answering
 * --version, and recording `install` runs in $HOME/install-ran before exiting with
 * $FAKE_INSTALL_STATUS (default 0).
 */
export function fakeBuild(version: string, marker = true): Uint8Array {
  return encoder.encode(
    [
      "#!/bin/sh",
      marker ? `# ${BUILD_MARKER}` : "# some other program",
      'case "${1:-}" in',
      `  --version) echo "terminus ${version}" ;;`,
      '  install) printf \'%s %s\\n\' "$0" "$*" >> "$HOME/install-ran"; exit "${FAKE_INSTALL_STATUS:-0}" ;;',
      "esac",
      "",
    ].join("\n"),
  );
}

export async function manifestFor(version: string, binary: Uint8Array): Promise<Uint8Array> {
  return encoder.encode(`version ${version}\nsha256 ${await sha256Hex(binary)}\n`);
}

/* ---------- the loopback HTTPS source ---------- */

export interface Tls {
  dir: string;
  cert: string;
  key: string;
  certFile: string;
}

/** A self-signed certificate for 127.0.0.1, made with openssl in `dir`. */
export async function selfSigned(dir: string): Promise<Tls> {
  const cfg = join(dir, "openssl.cnf");
  await Deno.writeTextFile(
    cfg,
    [
      "[req]",
      "distinguished_name = dn",
      "x509_extensions = v3",
      "prompt = no",
      "[dn]",
      "CN = 127.0.0.1",
      "[v3]",
      "subjectAltName = IP:127.0.0.1",
      "basicConstraints = critical,CA:TRUE",
      "keyUsage = digitalSignature,keyCertSign",
      "extendedKeyUsage = serverAuth",
      "",
    ].join("\n"),
  );
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  await must("openssl", [
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-config",
    cfg,
    "-keyout",
    keyFile,
    "-out",
    certFile,
  ]);
  return {
    dir,
    cert: await Deno.readTextFile(certFile),
    key: await Deno.readTextFile(keyFile),
    certFile,
  };
}

export interface Source extends AsyncDisposable {
  url: string;
  /** What is served, by file name; a number is served as that status with no body. */
  files: Map<string, Uint8Array | number>;
  /** Every path requested, in order, without the leading slash. */
  requests: string[];
}

export function serve(tls: Tls): Source {
  const files = new Map<string, Uint8Array | number>();
  const requests: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: tls.cert, key: tls.key, onListen() {} },
    (req) => {
      const name = decodeURIComponent(new URL(req.url).pathname.slice(1));
      requests.push(name);
      const f = files.get(name);
      if (f === undefined) return new Response("not found\n", { status: 404 });
      if (typeof f === "number") return new Response(null, { status: f });
      return new Response(f as Uint8Array<ArrayBuffer>);
    },
  );
  return {
    url: `https://127.0.0.1:${server.addr.port}`,
    files,
    requests,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/* ---------- PATHs ---------- */

/** A folder of links to every program on PATH except `without`, plus `extra` scripts. */
export async function pathDir(
  dir: string,
  opts: { without?: string[]; extra?: Record<string, string> } = {},
): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const seen = new Set<string>(opts.without ?? []);
  for (const [name, text] of Object.entries(opts.extra ?? {})) {
    await Deno.writeTextFile(join(dir, name), text, { mode: 0o755 });
    seen.add(name);
  }
  for (const d of (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":")) {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(d)];
    } catch {
      continue;
    }
    for (const e of entries) {
      if (seen.has(e.name)) continue;
      seen.add(e.name);
      await Deno.symlink(join(d, e.name), join(dir, e.name));
    }
  }
  return dir;
}

/** A `uname` that answers -s and -m with the values given. */
export function fakeUname(system: string, machine: string): string {
  return [
    "#!/bin/sh",
    'case "${1:-}" in',
    `  -s) echo ${system} ;;`,
    `  -m) echo ${machine} ;;`,
    `  *) echo ${system} ;;`,
    "esac",
    "",
  ].join("\n");
}
