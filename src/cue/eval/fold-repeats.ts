/**
 * Repeated errors in a large struct (opt-in, `EvalOptions.foldRepeatedErrors`): one mistake in a
 * template that 10,000 fields use (`hosts: [Name=string]: {...}`) is the same errors, at the same
 * source positions, below every one of them. Once two fields in a row have had exactly the same
 * errors (the same paths below the field, codes, messages and positions), the export walk checks a
 * later field only where those errors are: it evaluates the subtrees the errors are in and, when
 * they give the same errors again, records them for that field and leaves the rest of the field
 * unevaluated ("stop expanding once a template error is known"). The count of fields with the
 * error stays exact; a field's other, different problems are not looked for (the document is
 * refused either way, and they show once the template is fixed). When the errors differ, the field
 * is walked whole, as without the option.
 */

import type { CueError } from "./errors.js";

/** The struct size from which repeats are folded: a template's instances, not a few siblings. */
export const FOLD_MIN = 16;

/** What a field's errors were, relative to the field. */
export interface Repeat {
  readonly sig: string;
  /** The subtrees (relative paths) the errors are found by walking, none below another. */
  readonly roots: readonly (readonly string[])[];
  /** The errors the signature was made of, and the length of their field's path. */
  readonly e1: readonly CueError[];
  readonly e2: readonly CueError[];
  readonly depth: number;
}

/** The state of one struct's walk: the last field's errors, and the repeat once known. */
export interface FoldState {
  prev: string | undefined;
  known: Repeat | undefined;
}

const REQUIRED_MESSAGE = "field is required but not present";

/**
 * The errors the walk added for one field (at `base`), relative to it; undefined when there are
 * none or one lies outside the field.
 */
export function repeatOf(
  e1: readonly CueError[],
  e2: readonly CueError[],
  base: readonly string[],
): Repeat | undefined {
  if (e1.length + e2.length === 0) return undefined;
  const parts: string[] = [];
  const rels: string[][] = [];
  for (const [list, tag] of [
    [e1, "1"],
    [e2, "2"],
  ] as const) {
    for (const e of list) {
      if (e.path.length < base.length) return undefined;
      for (let i = 0; i < base.length; i++) if (e.path[i] !== base[i]) return undefined;
      const rel = e.path.slice(base.length);
      let pos = "";
      for (const p of e.positions) pos += `${p.file}:${p.line}:${p.column},`;
      parts.push(
        `${tag}|${rel.join("\u0000")}|${e.code}|${e.message}|${pos}|${e.closedBy?.definition ?? ""}`,
      );
      // A required field's error comes from walking the struct that lacks it.
      rels.push(e.code === "incomplete" && e.message === REQUIRED_MESSAGE ? rel.slice(0, -1) : rel);
    }
  }
  return { sig: parts.sort().join("\n"), roots: outermost(rels), e1, e2, depth: base.length };
}

/**
 * Whether a field's errors (at `base`) are those of the repeat `r`: the same signature as
 * repeatOf would make. The errors of a template's instances come in the same order, so they are
 * compared in order first, without building the signature; otherwise the signatures decide.
 */
export function repeats(
  r: Repeat,
  e1: readonly CueError[],
  e2: readonly CueError[],
  base: readonly string[],
): boolean {
  if (sameInOrder(r.e1, r.depth, e1, base) && sameInOrder(r.e2, r.depth, e2, base)) return true;
  return repeatOf(e1, e2, base)?.sig === r.sig;
}

function sameInOrder(
  known: readonly CueError[],
  depth: number,
  errors: readonly CueError[],
  base: readonly string[],
): boolean {
  if (known.length !== errors.length) return false;
  for (let i = 0; i < errors.length; i++) {
    const a = known[i] as CueError;
    const b = errors[i] as CueError;
    if (a.code !== b.code || a.message !== b.message) return false;
    if (a.closedBy?.definition !== b.closedBy?.definition) return false;
    if (a.path.length - depth !== b.path.length - base.length) return false;
    for (let j = 0; j < base.length; j++) if (b.path[j] !== base[j]) return false;
    for (let j = depth, k = base.length; j < a.path.length; j++, k++)
      if (a.path[j] !== b.path[k]) return false;
    if (a.positions.length !== b.positions.length) return false;
    for (let j = 0; j < a.positions.length; j++) {
      const p = a.positions[j] as CueError["positions"][number];
      const q = b.positions[j] as CueError["positions"][number];
      if (p.file !== q.file || p.line !== q.line || p.column !== q.column) return false;
    }
  }
  return true;
}

/** The paths none of which lies below another (a path's subtree includes those below it). */
function outermost(paths: string[][]): string[][] {
  const sorted = [...paths].sort((a, b) => a.length - b.length);
  const out: string[][] = [];
  for (const p of sorted) {
    if (out.some((q) => q.every((l, i) => p[i] === l))) continue;
    out.push(p);
  }
  return out;
}

/**
 * After a field was walked whole: remembers its errors, and knows the repeat once two fields in a
 * row had the same ones (the first two instances of a template: a field's own mistake does not
 * repeat).
 */
export function learn(f: FoldState, r: Repeat | undefined): void {
  if (r === undefined) {
    f.prev = undefined;
    return;
  }
  if (f.prev === r.sig) f.known = r;
  f.prev = r.sig;
}
