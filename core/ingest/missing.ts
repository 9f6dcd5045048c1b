/** Why a transcript the walk found could not be opened: gone, or a link to nothing. */
export function missingTranscript(path: string): string {
  try {
    if (Deno.lstatSync(path).isSymlink) {
      let to = "";
      try {
        to = ` ${Deno.readLinkSync(path)}`;
      } catch { /* unreadable link: named without its target */ }
      return `${path}: the transcript is a symbolic link to${to}, which does not exist`;
    }
  } catch { /* the path itself is gone */ }
  return `${path}: the transcript vanished before it could be read`;
}
