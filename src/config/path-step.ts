import type { DocPath } from "./locate.js";

/**
 * A document path under construction during a walk over the data: each step is one small node
 * that points at its parent, and `undefined` is the root. A walk over 100,000 services extends a
 * path several times per service while a path is read only when something is reported, so
 * extending must not copy: array spreads per field were most of the decoder's allocation.
 */
export type Path = PathStep | undefined;

export interface PathStep {
  readonly up: Path;
  readonly key: string | number;
}

/** `up` extended by one key; allocates one node and copies nothing. */
export function step(up: Path, key: string | number): PathStep {
  return { up, key };
}

/** The path as a DocPath, root first, with `more` appended. */
export function toDocPath(p: Path, ...more: (string | number)[]): DocPath {
  const keys: (string | number)[] = [];
  for (let s = p; s !== undefined; s = s.up) keys.push(s.key);
  keys.reverse();
  for (const k of more) keys.push(k);
  return keys;
}
