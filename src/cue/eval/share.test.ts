import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { compile, inspect } from "../index.js";
import { vertexOf } from "./instance.js";
import { setSharingForTesting } from "./share.js";

interface Case {
  readonly name: string;
  readonly src: string;
  /** Paths (dot-separated) that borrow a definition's subtree, and paths that must not. */
  readonly shared: readonly string[];
  readonly notShared: readonly string[];
  /** Paths to export on their own (errors must carry the looked-up path). */
  readonly lookups?: readonly string[];
}

const F = '#F: {a: *1 | int, b: a + 1, c: {d: *"x" | string}}';

const cases: Case[] = [
  {
    name: "a field that only refers to a definition borrows it",
    src: `${F}\nx: #F\ny: #F & {a: 2}\nz: {f: #F}`,
    shared: ["x", "z.f"],
    notShared: ["y"],
    lookups: ["x", "x.c", "y.c"],
  },
  {
    name: "a shared field stays closed",
    src: `${F}\nx: #F\nw: x & {e: 1}`,
    shared: ["x"],
    notShared: ["w"],
  },
  {
    name: "incomplete fields are reported at the using path",
    src: "#D: {a: int, b: {c: string}}\nx: #D",
    shared: ["x"],
    notShared: [],
    lookups: ["x", "x.b", "x.b.c"],
  },
  {
    name: "a definition with an error is not shared",
    src: "#E: {a: 1, a: 2}\nx: #E",
    shared: [],
    notShared: ["x"],
  },
  {
    name: "a definition evaluated through a reference cycle is not shared",
    src: "#C: {a: b + 1, b: a - 1, a: 1}\nx: #C",
    shared: [],
    notShared: ["x"],
  },
  {
    name: "definitions inside definitions are shared per instance",
    src: "#A: {n: *1 | int, #B: {m: n}, b: #B}\nx: #A\ny: #A & {n: 2}",
    shared: ["x", "x.b", "y.b"],
    notShared: ["y"],
    lookups: ["x.b", "y.b"],
  },
];

function at(value: ReturnType<typeof compile>, path: string) {
  let v = vertexOf(value)?.v;
  for (const l of path.split(".")) v = v?.arcs?.get(l);
  return v;
}

function outcome(src: string, lookups: readonly string[]): unknown {
  const v = compile([{ name: "a.cue", text: src }]);
  return {
    errors: v.errors,
    json: v.toJSON(0),
    lookups: lookups.map((p) => {
      const x = v.lookup(p.split("."));
      const e = x?.export();
      const exported = e === undefined ? undefined : e.ok ? e.data : e.errors;
      return { errors: x?.errors, exported, closed: x && inspect.closed(x) };
    }),
  };
}

describe("structure sharing", () => {
  afterEach(() => setSharingForTesting(true));
  for (const c of cases) {
    it(c.name, () => {
      setSharingForTesting(false);
      const want = outcome(c.src, c.lookups ?? []);
      setSharingForTesting(true);
      assert.deepEqual(outcome(c.src, c.lookups ?? []), want);
      // Looked up (evaluated, nothing released) before asking.
      const v = compile([{ name: "a.cue", text: c.src }]);
      for (const p of c.shared) {
        assert.ok(v.lookup(p.split(".")));
        assert.equal(at(v, p)?.borrowed, true, `${p} shares`);
      }
      for (const p of c.notShared) {
        assert.ok(v.lookup(p.split(".")));
        assert.equal(at(v, p)?.borrowed, false, `${p} does not share`);
      }
    });
  }
});
