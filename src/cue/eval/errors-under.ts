/**
 * `errors` restricted to some subtrees (`CueValue.errorsUnder`): the config loader asks whether the
 * user's document has mistakes of its own only where the document unified with the schema failed,
 * instead of evaluating all of it a second time.
 */

import type { CueError } from "./errors.js";
import { evaluate } from "./evaluate.js";
import { DEFAULT_RELEASE_MIN, walk } from "./export-walk.js";
import type { ReachableNames } from "./names.js";
import { displayLabel, OPTIONAL, type Vertex } from "./vertex.js";

interface Trie {
  end: boolean;
  readonly next: Map<string, Trie>;
}

/**
 * The errors `errors` reports below `root` (at `base`) that lie in the subtrees at `paths`
 * (relative to `root`), in the order `errors` reports them. Where the value does not have a path
 * (or does not look further: an error, an unresolved disjunction, a scalar) the nearest ancestor it
 * has is looked at whole.
 */
export function errorsUnder(
  root: Vertex,
  base: readonly string[],
  paths: readonly (readonly string[])[],
  names: () => ReachableNames,
): CueError[] {
  const trie: Trie = { end: false, next: new Map() };
  for (const p of paths) {
    let t = trie;
    for (const l of p) {
      let n = t.next.get(l);
      if (n === undefined) {
        n = { end: false, next: new Map() };
        t.next.set(l, n);
      }
      t = n;
    }
    t.end = true;
  }
  const out: CueError[] = [];
  const path = [...base];
  const go = (v: Vertex, t: Trie): void => {
    evaluate(v);
    const arcs = v.arcs;
    let whole = t.end || v.err !== undefined || v.disj !== undefined || arcs === undefined;
    if (!whole && arcs !== undefined) {
      let found = 0;
      for (const a of arcs.values()) if (t.next.has(displayLabel(a.label))) found++;
      whole = found < t.next.size;
    }
    if (whole || arcs === undefined) {
      const r = walk(v, path, {
        collect: true,
        exportToo: false,
        output: "none",
        release: DEFAULT_RELEASE_MIN,
        names,
      });
      for (const e of r.errors) out.push(e);
      return;
    }
    for (const a of arcs.values()) {
      const name = displayLabel(a.label);
      const n = t.next.get(name);
      if (n === undefined || a.fieldType === OPTIONAL) continue;
      path.push(name);
      go(a, n);
      path.pop();
    }
  };
  go(root, trie);
  return out;
}
