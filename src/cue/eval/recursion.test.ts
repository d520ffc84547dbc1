import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile, debugText, inspect } from "../index.js";

/**
 * Recursive definitions expanded through disjunctions and optional fields (issue 31): how many
 * levels come out, and which alternatives. cue v0.17 tracks the references each conjunct was
 * expanded through; in an optional position (a disjunct, an optional field, a pattern) the first
 * repetition of a reference clears that history and allows one more round, the second is a
 * structural cycle, which eliminates the alternative. A field whose one conjunct is a reference
 * shares the referenced value, and a vertex is unified into a node once. Each expectation is
 * written out by hand from those rules; the values are not concrete, so they are compared with
 * CUE equality.
 */
interface Case {
  readonly name: string;
  readonly src: string;
  readonly path: string;
  readonly want: string;
}

const cases: readonly Case[] = [
  {
    name: "an optional field recursing through a disjunction, from two conjuncts: two levels more",
    src: "#Node: {label?: string, next?: null | #Node}\nlist: #Node & {#Node}",
    path: "list",
    want: "{label?: string, next?: null | {label?: string, next?: null | {label?: string, next?: null}}}",
  },
  {
    name: "the same definition referenced alone is shared: its own value",
    src: "#Node: {label?: string, next?: null | #Node}\none: #Node",
    path: "one",
    want: "{label?: string, next?: null}",
  },
  {
    name: "mutual recursion through alternatives, embedded: each reference repeats twice",
    src: "P: close({q: int | Q})\nQ: close({p: int | P})\nr: {P}",
    path: "r",
    want: "{q: int | {p: int | {q: int | {p: int | {q: int}}}}}",
  },
  {
    name: "mutual recursion at the definition itself stops at the ancestor",
    src: "P: close({q: int | Q})\nQ: close({p: int | P})",
    path: "P",
    want: "{q: int | {p: int}}",
  },
  {
    name: "a disjunct naming what the field's other conjunct names is that expansion",
    src: "Cell: {\n\tinner: Cell | {id: int}\n\tid: int\n}\ngrid: Cell & {inner: Cell}",
    path: "grid",
    want: "{id: int, inner: {id: int, inner: {id: int, inner: {id: int, inner: {id: int}} | {id: int}} | {id: int}}}",
  },
  {
    name: "one definition of alternatives embedded twice is one choice",
    src: "#Pick: {x: 1} | {y: 2}\nboth: {#Pick, #Pick}",
    path: "both",
    want: "{x: 1} | {y: 2}",
  },
  {
    name: "one definition of alternatives reached through two references is one choice",
    src: "#Pick: {x: 1} | {y: 2}\n#W: {#Pick, ...}\nvia: #W & {#W}",
    path: "via",
    want: "{x: 1} | {y: 2}",
  },
  {
    name: "a template met with its own use in a sibling: the sibling's reference brings new content",
    src: "Tmpl: {in: _, out: in}\nU: {in: Tmpl} & Tmpl",
    path: "U",
    want: "{in: {in: _, out: _}, out: {in: _, out: _}}",
  },
  {
    name: "a chain of sibling references through a template nested twice",
    src: "Chain: {p: _, q: p, r: q}\nV: Chain & {p: Chain & {p: Chain}}",
    path: "V.r",
    want: "{p: {p: _, q: _, r: _}, q: {p: _, q: _, r: _}, r: {p: _, q: _, r: _}}",
  },
  {
    name: "the same struct embedded at each level of nesting is no cycle",
    src: "base: {k: v: int}\nw: {base, inner: {base, deeper: {base, n: 1}}}",
    path: "w",
    want: "{k: v: int, inner: {k: v: int, deeper: {k: v: int, n: 1}}}",
  },
  {
    name: "a let naming its enclosing struct by alias is selected from, not copied",
    src: "Box: B={\n\tlet me = B\n\titems: [string]: int\n\tfor k, _ in me.items {seen: (k): true}\n}\nb: Box & {items: q: 1}",
    path: "b",
    want: "{items: q: 1, seen: q: true}",
  },
  {
    name: "a let naming its enclosing field: a field selected through it",
    src: "r: {n: 1, let up = r, m: up.n}",
    path: "r",
    want: "{n: 1, m: 1}",
  },
  {
    name: "a let whose struct only embeds the enclosing field: a field embedded through it",
    src: "q: {\n\tlet Q = {q}\n\tv: {n: 2}\n\tQ.v\n}",
    path: "q",
    want: "{v: {n: 2}, n: 2}",
  },
  {
    name: "a field selecting itself out of a struct written in place is a reference cycle",
    src: "m: {n: {k: 1}, s: {own: s}.own}",
    path: "m",
    want: "{n: {k: 1}, s: _}",
  },
];

/** Structural cycles that stay errors: a reference to an ancestor, a validator re-applied to itself. */
const cyclic: readonly { readonly name: string; readonly src: string; readonly want: string }[] = [
  {
    name: "a definition naming itself in a field",
    src: "#R: {next: #R}\nr: #R",
    want: "r.next: structural cycle",
  },
  {
    name: "a template's sibling given the enclosing field",
    src: "Tmpl: {in: _, out: in}\nC: Tmpl & {in: C}",
    want: "C.in: structural cycle",
  },
  {
    name: "a validator whose argument is the definition it sits in",
    src: '#node: {k: string, sub: matchN(1, [#node])}\nd: #node & {sub: k: "q"}',
    want: "d.sub: invalid value",
  },
  {
    name: "a let naming its enclosing field, used whole",
    src: "e: {n: 1, let up = e, whole: up}",
    want: "e.whole: structural cycle",
  },
  {
    name: "a struct written in place that holds the field below it",
    src: "s: {own: deep: s}.own",
    want: "s: structural cycle",
  },
];

describe("cue structural cycles that remain", () => {
  for (const c of cyclic) {
    it(c.name, () => {
      const root = compile([{ name: "in.cue", text: c.src }]);
      const msgs = root.errors.map((e) => `${e.path.join(".")}: ${e.message}`);
      assert.ok(
        msgs.some((m) => m.startsWith(c.want)),
        msgs.join("\n"),
      );
    });
  }
});

describe("cue recursion through disjunctions and optional fields", () => {
  for (const c of cases) {
    it(c.name, () => {
      const root = compile([{ name: "in.cue", text: c.src }]);
      assert.deepEqual(
        root.errors.map((e) => `${e.path.join(".")}: ${e.message}`),
        [],
      );
      const got = root.lookup(c.path.split("."));
      assert.ok(got !== undefined, `${c.path} not found`);
      const want = compile([{ name: "want.cue", text: `w: ${c.want}` }]).lookup(["w"]);
      assert.ok(want !== undefined);
      assert.ok(inspect.equal(got, want), `${c.path} is\n${debugText(got)}\nnot\n${c.want}`);
    });
  }
});
