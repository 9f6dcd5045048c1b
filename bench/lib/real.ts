/**
 * The real-transcript corpus: a folder holding `projects/` (`--real DIR`), else the shared
 * bench corpus unpacked once into bench/out/real. Real tool results are larger and more varied
 * than copies of the small corpus, so figures on it are the honest ones.
 */
import { join } from "node:path";

export const SHARED_REAL_TARBALL = "/work/shared/bench-corpus/erk-real-half.tar.zst";
/** 116 real sessions of four other public projects (Go, TypeScript; Claude Code 1.0 to 2.1). */
export const SHARED_OTHER_TARBALL = "/work/shared/bench-corpus/other-projects.tar.zst";

function isDir(p: string): boolean {
  try {
    return Deno.statSync(p).isDirectory;
  } catch {
    return false;
  }
}

/** A root holding `projects/`, or null (with why) when there is none to be had. */
export function realRoot(
  outDir: string,
  given: string | undefined,
): Promise<{ root: string | null; why: string }> {
  return unpacked(outDir, given, "real", SHARED_REAL_TARBALL, "--real");
}

/**
 * The other projects' real transcripts: a folder holding `projects/` (`--real-other DIR`), else
 * the shared tarball unpacked once into bench/out/real-other.
 */
export function otherRoot(
  outDir: string,
  given: string | undefined,
): Promise<{ root: string | null; why: string }> {
  return unpacked(outDir, given, "real-other", SHARED_OTHER_TARBALL, "--real-other");
}

async function unpacked(
  outDir: string,
  given: string | undefined,
  folder: string,
  tarball: string,
  flag: string,
): Promise<{ root: string | null; why: string }> {
  if (given) {
    if (!isDir(join(given, "projects"))) {
      return { root: null, why: `${given} holds no projects/ folder` };
    }
    return { root: given, why: "" };
  }
  const root = join(outDir, folder);
  if (isDir(join(root, "projects"))) return { root, why: "" };
  try {
    Deno.statSync(tarball);
  } catch {
    return {
      root: null,
      why: `no real corpus: ${tarball} is missing (pass ${flag} DIR)`,
    };
  }
  Deno.mkdirSync(root, { recursive: true });
  const out = await new Deno.Command("tar", {
    args: ["-I", "zstd", "-xf", tarball, "-C", root],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    return {
      root: null,
      why: `tar could not unpack the real corpus: ${new TextDecoder().decode(out.stderr)}`,
    };
  }
  return { root, why: "" };
}
