/**
 * A RegExp built at its first use. V8 builds a Unicode property class (`\p{L}`) when the
 * literal is evaluated, 0.1-1 ms each in a fresh process, so a module holding one at its top
 * would charge every command and hook that imports it, whether or not any text needs it.
 */
export function lazyRegExp(source: string, flags: string): () => RegExp {
  let re: RegExp | undefined;
  return () => re ??= new RegExp(source, flags);
}
