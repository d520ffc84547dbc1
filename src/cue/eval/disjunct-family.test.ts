/**
 * Disjunctions as cue v0.17 leaves them (issue 31, the disjunction family): which disjuncts stay
 * after duplicates are removed, which carry the default mark, and what an embed-only struct
 * literal is. Each case looks up `path` and compares the engine's debug rendering (whitespace
 * folded) with `want`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile, debugText, inspect } from "../index.js";
import { type EvalCase, evalCases } from "./eval-cases.case.js";

interface Case {
  readonly name: string;
  readonly src: string;
  readonly path: string;
  readonly want: string;
}

const cases: Case[] = [
  {
    name: "top written twice is one disjunct",
    src: "v: _ | _",
    path: "v",
    want: "_",
  },
  {
    name: "top twice beside a value keeps the value",
    src: "v: _ | _ | 7",
    path: "v",
    want: "_ | 7",
  },
  {
    name: "a default meeting a disjunction of tops keeps one top and the default",
    src: 'v: (_ | *"dflt") & (_ | _)',
    path: "v",
    want: '_ | *"dflt"',
  },
  {
    name: "top through a definition is the same disjunct",
    src: '#Any: _\nv: {k: _ | *"on"} & {k: _ | #Any}',
    path: "v.k",
    want: '_ | *"on"',
  },
  {
    name: "a pattern constraint's default survives a field's top alternatives",
    src: '#Any: _\n#Opt: {k: _ | *"on", s: _}\nv: {[string]: #Opt}\nv: {["p"]: k: _ | #Any, p: s: 1}',
    path: "v.p.k",
    want: '_ | *"on"',
  },
  {
    name: "a literal that only embeds top is top",
    src: "v: {_}",
    path: "v",
    want: "_",
  },
  {
    name: "a let beside an embedded top does not make a struct",
    src: "w: 3\nv: {\n\tlet n = w\n\t_\n}",
    path: "v",
    want: "_",
  },
  {
    name: "an embedded top beside a definition stays a struct",
    src: "v: {_, #d: 1}",
    path: "v",
    want: "{ #d: 1 }",
  },
  {
    name: "a literal without embedding is a struct",
    src: "v: {\n\tlet n = 1\n}",
    path: "v",
    want: "{}",
  },
  {
    name: "a term beside a field's disjunction reads the disjunct being evaluated",
    src: [
      '#Mode: {kind: "a", a: 1} | {kind: "b", b?: int}',
      "_dflt: b: b: *2 | int",
      "v: #Mode",
      "v: *_dflt[v.kind] | _",
    ].join("\n"),
    path: "v",
    want: '{ kind: "a" a: 1 } | *{ kind: "b" b: *2 | int } | { kind: "b" b?: int }',
  },
  {
    name: "the same with the field narrowed by a closed struct",
    src: [
      '#Mode: {kind: "a", a: 1} | {kind: "b", b?: int}',
      "_dflt: b: b: *2 | int",
      "#App: {v: #Mode, v: *_dflt[v.kind] | _}",
      "out: #App & {v: b: 3}",
    ].join("\n"),
    path: "out.v",
    want: '{ kind: "b" b: 3 }',
  },
];

const fold = (s: string): string => s.replace(/\s+/g, " ").trim();

describe("cue disjunctions: dedup, defaults and embed-only literals", () => {
  for (const c of cases) {
    it(c.name, () => {
      const v = compile([{ name: "in.cue", text: c.src }]);
      const at = v.lookup(c.path.split("."));
      assert.ok(at !== undefined, `no value at ${c.path}`);
      assert.equal(fold(debugText(at)), c.want);
    });
  }
});

const incomplete: EvalCase[] = [
  {
    // cue's algorithm: a field outside the disjunction read while the first disjunct is evaluated
    // takes that disjunct's value, and the second disjunct then conflicts with it.
    name: "a field read from inside a disjunct is evaluated against that disjunct",
    src: "n: div(s.w, 2)\ns: h: n\ns: {h: 3, w: 6} | {h: 4, w: 10}",
    json: '{"n":3,"s":{"h":3,"w":6}}',
  },
  {
    name: "a field that reads its own missing field is incomplete",
    src: "r: L=L.a",
    err: { path: "r", code: "incomplete", msg: "undefined field: a" },
  },
  {
    name: "the same without an alias",
    src: "x: {}\nx: x.missing",
    err: { path: "x", code: "incomplete", msg: "undefined field: missing" },
  },
  {
    name: "a field read from its own struct that a later conjunct gives is a value",
    src: "d: d.a\nd: a: {a: {}}",
    json: '{"d":{"a":{"a":{}}}}',
  },
  {
    name: "a required definition not given is missing, not its schema",
    src: "#Mk: {\n\t#In!: {x: 1}\n\tout: #In.x\n}\nv: #Mk.out",
    err: { path: "v", code: "incomplete", msg: "required field missing: #In" },
  },
  {
    name: "or over a list that fails inside reports the call",
    src: "#Mk: {\n\t#In!: {p: 1, q: 2}\n\tT: or([for _, e in #In {e}])\n}\nv: #Mk.T",
    err: { path: "v", code: "incomplete", msg: "error in call to or: required field missing: #In" },
  },
  {
    name: "a required definition that is given is its value",
    src: "#Mk: {\n\t#In!: {p: 1, q: 2}\n\tT: or([for _, e in #In {e}])\n}\nv: (#Mk & {#In: {p: 1, q: 2}}).T & 2",
    json: '{"v":2}',
  },
  {
    // cue: the empty disjunction takes its most severe alternative's code, waiting above conflict.
    name: "an empty disjunction with an alternative still waiting for a value is incomplete",
    src: 'name: string\nv: [] | [...int]\nv: ["\\(name)"]',
    err: { path: "v", code: "incomplete", msg: "2 errors in empty disjunction" },
  },
  {
    name: "an empty disjunction of conflicts only is an evaluation error",
    src: 'v: [] | [1, 2]\nv: ["a"]',
    err: { path: "v", code: "eval", msg: "2 errors in empty disjunction" },
  },
];

evalCases("cue disjunction family: incomplete answers keep cue's message", incomplete);

describe("cue disjunction family: the kind of a validator", () => {
  const kinds: [string, string][] = [
    ['strings.ContainsAny("xy")', "string"],
    ["strings.MinRunes(2)", "string"],
    ["strings.MinRunes(2) | int", "int|string"],
  ];
  for (const [expr, want] of kinds) {
    it(expr, () => {
      const v = compile([{ name: "in.cue", text: `import "strings"\nv: ${expr}` }]);
      const at = v.lookup(["v"]);
      assert.ok(at !== undefined);
      assert.equal(inspect.kind(at), want);
    });
  }
});
