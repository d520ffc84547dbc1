import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile, debugText, inspect } from "../index.js";
import { type EvalCase, evalCases } from "./eval-cases.case.js";

/**
 * A struct that embeds a scalar beside definitions or hidden fields (spec: "Embedding"): its value
 * is the scalar, its definitions stay reachable (`x.#a`) and are never exported. The embedded
 * expression is unified with the struct's whole result, so it sees what every conjunct of the
 * struct gives its fields, not only the literal it is written in.
 */

const embeds: EvalCase[] = [
  {
    name: "a sum of the struct's definition, set by the use",
    src: "#Inc: {#n: *1 | int, #n + 1}\ng: #Inc & {#n: 41, _}\nd: #Inc & {_}",
    json: '{"g":42,"d":2}',
  },
  {
    name: "an interpolation of two definitions the use sets",
    src: '#Name: {#first: string, #last: string, "\\(#first) \\(#last)"}\nn: #Name & {#first: "Ada", #last: "Lovelace", _}',
    json: '{"n":"Ada Lovelace"}',
  },
  {
    name: "a nested field of a definition, set by a later conjunct",
    src: '#Host: {#cfg: {name: string}, #cfg.name}\nh: #Host\nh: {#cfg: name: "web1", _}\nn: len(h)',
    json: '{"h":"web1","n":4}',
  },
  {
    name: "the struct's own definition embedded, given by another struct of the field",
    src: 't: {#a: _, _}\nt: {#a, #a: _}\nt: {_, #a: "db"}\nu: t + "-1"',
    json: '{"t":"db","u":"db-1"}',
  },
  {
    name: "an indexed own definition waits for the struct too",
    src: "t: {[#p, #p][1], #p: int}\nt: {#p: 8080, _}",
    json: '{"t":8080}',
  },
  {
    name: "a let over the struct's definition",
    src: "t: {let twice = #n * 2, twice, #n: int}\nt: {#n: 21, _}",
    json: '{"t":42}',
  },
  {
    name: "an embedded own definition that is a struct gains what later conjuncts give it",
    src: "s: {k: 1, #S, #S: {a: 1}}\ns: {#S: {b: 2}}\nsb: s.#S.b",
    json: '{"s":{"k":1,"a":1,"b":2},"sb":2}',
  },
  {
    name: "the definitions beside the scalar are selectable after the use set them",
    src: '#F: {#in: {c: string}, #in.c}\nx: #F & {#in: {c: "v"}, _}\nc: x.#in.c',
    json: '{"x":"v","c":"v"}',
  },
  {
    name: "a definition of a default alternative that embeds a scalar",
    src: 'r: *{"d", #m: 1} | "e"\nm: r.#m',
    json: '{"r":"d","m":1}',
  },
  {
    name: "a regular field beside the embedded scalar is an error",
    src: "#D: {#n: int, #n + 1}\nx: #D & {#n: 1, k: 2}",
    err: { path: "x", code: "eval", msg: "mismatched types" },
  },
  {
    name: "a value the use sets that the definition refuses",
    src: '#Port: {#p: {n: int}, #p.n}\nport: #Port & {#p: n: "x", _}',
    err: { path: "port", code: "eval", msg: "conflicting values" },
  },
  {
    // cue: the conflict is final; the condition still waiting for a value does not hide it.
    name: "an embedded list beside regular fields conflicts even with a comprehension still waiting",
    src: "v: {\n\tflag: _\n\titems: [...int]\n\titems\n\tif flag {\n\t\titems: _\n\t}\n}",
    err: { path: "v", code: "eval", msg: "mismatched types" },
  },
];

evalCases("cue semantics: scalars embedded beside definitions", embeds);

describe("cue semantics: scalars embedded beside definitions, as values", () => {
  const value = (src: string, path: string) => {
    const v = compile([{ name: "in.cue", text: src }]).lookup(path.split("."));
    assert.ok(v !== undefined, `no value at ${path}`);
    return v;
  };

  it("an embedded own definition that is a struct gains what later conjuncts give it", () => {
    const src = "s: {k: 1, #S, #S: {a: int}}\ns: {#S: {b: 2}}";
    const want = "w: {k: 1, a: int, b: 2, #S: {a: int, b: 2}}";
    assert.ok(inspect.equal(value(src, "s"), value(want, "w")), debugText(value(src, "s")));
  });

  const equalCases: { name: string; src: string; want: string }[] = [
    {
      name: "an embedded disjunction of scalars is the disjunction of the scalar with the fields",
      src: 'x: {#a, #a: *"p" | string}',
      want: 'w: *{"p", #a: *"p" | string} | {string, #a: *"p" | string}',
    },
    {
      name: "the same, unified from two structs",
      src: 'x: ({#e: *"p" | string, #e} & {#e: *"p" | string, string})',
      want: 'w: *{"p", #e: *"p" | string} | {string, #e: *"p" | string}',
    },
    {
      name: "a scalar with a definition the use set",
      src: '#F: {#in: string, #in}\nx: #F & {#in: "v", _}',
      want: 'w: {"v", #in: "v"}',
    },
  ];
  for (const c of equalCases) {
    it(c.name, () => {
      assert.ok(inspect.equal(value(c.src, "x"), value(c.want, "w")), debugText(value(c.src, "x")));
    });
  }

  it("definitions beside the scalar differ", () => {
    const a = value('x: {#a, #a: "p" | "q"}', "x");
    const b = value('w: {"p", #a: "p" | "q"} | {"q", #a: "p"}', "w");
    assert.equal(inspect.equal(a, b), false);
  });

  it("the debug text shows the scalar and its definitions", () => {
    const t = debugText(value('#F: {#in: string, #in}\nx: #F & {#in: "v", _}', "x"));
    assert.match(t, /"v"/);
    assert.match(t, /#in: "v"/);
  });
});
