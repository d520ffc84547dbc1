import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile, formatErrors } from "../index.js";
import { type EvalCase, evalCases } from "./eval-cases.case.js";

/**
 * Reference and structural cycles, from the "Cycles" section of the CUE specification: documents
 * written for these tests. A case gives the JSON `cue export` prints, or an error that must be
 * reported at `path` (never a value there).
 */

const STRUCTURAL = ["structural cycle"];
const CYCLE = ["cycle", "incomplete"];

const cases: EvalCase[] = [
  // Reference cycles the spec resolves.
  { name: "a self reference is top", src: "a: a\na: 3", json: '{"a":3}' },
  {
    name: "a cycle with a concrete value resolves (spec)",
    src: "x: 200\nx: y + 100\ny: x - 100",
    json: '{"x":200,"y":100}',
  },
  {
    name: "the concrete value may come last",
    src: "x: y + 100\ny: x - 100\nx: 200",
    json: '{"x":200,"y":100}',
  },
  {
    name: "two structs referring to each other unify once",
    src: 'labels: {app: "foo"}\nselectors: {name: "bar"}\nlabels: selectors\nselectors: labels',
    json: '{"labels":{"app":"foo","name":"bar"},"selectors":{"name":"bar","app":"foo"}}',
  },
  {
    name: "a chain of references back to a concrete value",
    src: "a: b\nb: c\nc: a\nc: 1",
    json: '{"a":1,"b":1,"c":1}',
  },
  // Reference cycles the spec cannot resolve: never a value.
  {
    name: "an unresolved arithmetic cycle is an error, not a value",
    src: "a: b + 100\nb: a - 100",
    err: { path: "a", code: CYCLE, msg: "" },
  },
  {
    name: "a field referring to itself through arithmetic is an error",
    src: "a: a + 1",
    err: { path: "a", code: CYCLE, msg: "" },
  },
  // Structural cycles (spec): a node referencing one of its ancestors.
  {
    name: "infinite structure a: b: a",
    src: "a: b: a",
    err: { path: "a.b", code: STRUCTURAL, msg: "structural cycle" },
  },
  {
    name: "a list containing itself",
    src: "f: [f]",
    err: { path: "f.0", code: STRUCTURAL, msg: "structural cycle" },
  },
  {
    name: "a list of infinite length (spec)",
    src: "list: {\n\thead: 1\n\ttail: list\n}",
    err: { path: "list.tail", code: STRUCTURAL, msg: "structural cycle" },
  },
  {
    name: "two structs nesting each other (spec)",
    src: "a: {b: c}\nc: {d: a}",
    err: { path: "a.b.d", code: STRUCTURAL, msg: "structural cycle" },
  },
  {
    name: "a cycle made by unifying two acyclic values (spec)",
    src: "y: {\n\tf: h: g\n\tg: _\n}\nx: {\n\tf: _\n\tg: f\n}\nz: x & y",
    err: { path: "z.f.h", code: STRUCTURAL, msg: "structural cycle" },
  },
  {
    name: "an inline recursion (infinite evaluation)",
    src: "f: {\n\tn: int\n\tout: n + (f & {n: 1}).out\n}",
    err: { path: "f.out", code: STRUCTURAL, msg: "structural cycle" },
  },
  {
    name: "a recursive definition is a structural cycle",
    src: "#T: {a: #T}\nt: #T",
    err: { path: "t.a", code: STRUCTURAL, msg: "structural cycle" },
  },
  // A list built from itself through a builtin: each evaluation of the call needs the list again.
  {
    name: "a list concatenated with itself is a structural cycle (list given first)",
    src: 'import "list"\nwire: ["in", "out"]\nwire: list.Concat([wire, ["extra"]])',
    err: { path: "wire", code: STRUCTURAL, msg: "error in call to list.Concat: structural cycle" },
  },
  {
    name: "a list concatenated with itself is a structural cycle (call given first)",
    src: 'import "list"\nports: list.Concat([[22], ports])\nports: [80, 443]',
    err: { path: "ports", code: STRUCTURAL, msg: "error in call to list.Concat: structural cycle" },
  },
  {
    name: "such a cycle is reported at its field and leaves the rest of the document alone",
    src: 'import "list"\nbad: list.Concat([bad, [1]])\nbad: [0]\nok: {a: 1, b: a + 1}',
    err: { path: "bad", code: STRUCTURAL, msg: "structural cycle" },
  },
  {
    name: "the rest of a document with such a cycle still evaluates",
    src: 'import "list"\nbad: {l: list.Concat([l, [1]]), l: [0]}\nok: {a: 1, b: a + 1}\nout: ok.b',
    err: { path: "bad.l", code: STRUCTURAL, msg: "structural cycle" },
  },
  {
    name: "a field built by and() over a comprehension reaching back to it, used elsewhere",
    src: "a: d: b\nb: and([for x in a {x}])\nc: a",
    json: '{"a":{"d":{}},"b":{},"c":{"d":{}}}',
  },
  {
    // cue gives c: {d: {}}; the engine reports the cycle at the field rather than a value.
    name: "the same through a let clause is an error at the field, not the nesting limit",
    src: "a: d: b\nb: and([for x in a let y = x {y}])\nc: a\nok: 1",
    err: { path: "c.d", code: STRUCTURAL, msg: "structural cycle" },
  },
  // A disjunct that names its own field is `_` (a self reference), whichever the order, also
  // where the field's value is read as an operand.
  {
    name: "a definition's disjunct naming the definition is top, read as an operand",
    src: 'import "strings"\n#Port: int | #Port\nout: strings.ToUpper(#Port & "http")',
    json: '{"out":"HTTP"}',
  },
  {
    name: "a field's disjunct naming the field is top, read as an operand",
    src: "_port: string | _port\nout: (_port & 80) + 1",
    json: '{"out":81}',
  },
  {
    name: "a self-naming disjunct before the other alternative, read as an operand",
    src: 'import "strings"\n#Port: #Port | int\nout: strings.ToUpper(#Port & "http")',
    json: '{"out":"HTTP"}',
  },
  // A field embedded into its own struct gives the struct its fields, the field included.
  {
    name: "a field embedded into its own struct meets what it embeds",
    src: 'svc: {svc: "web" | "db"}\nsvc',
    err: { path: "svc", code: ["eval"], msg: "conflicting values" },
  },
  {
    name: "a field embedded into its own struct, when the two agree",
    src: "svc: {svc: {}, port: 80}\nsvc",
    json: '{"svc":{"svc":{},"port":80},"port":80}',
  },
  // An expression that read the value of the field it is unified into, while that field was
  // being collected, is evaluated again once the field is known.
  {
    name: "a pattern that reads the length of the list it constrains",
    src: "_ports: [80, 443, 8080]\nopen: [name=string]: _ports[0:len(open[name])]\nopen: web: [_]",
    json: '{"open":{"web":[80]}}',
  },
  // A reference to a field of a struct that the struct's later conjuncts give.
  {
    name: "a struct embedding one of its fields declared later",
    src: "cfg: cfg.base\ncfg: base: {port: 80}",
    json: '{"cfg":{"base":{"port":80},"port":80}}',
  },
  {
    name: "a struct embedding one of its fields declared later, with a conflict",
    src: "d: d.a\nd: a: a: 2 | 1",
    err: { path: "d.a", code: ["eval"], msg: "conflicting values" },
  },
  // A value decided while a reference cycle was open is checked again once the cycle is done.
  {
    name: "a concrete value is checked against the cycle it broke",
    src: "a: b - 100\nb: a + 110\nb: 200",
    err: { path: "b", code: ["eval"], msg: "conflicting values" },
  },
  {
    name: "a field resolved inside a cycle takes the final value",
    src: "sum: part + 2\npart: total - 2\ntotal: sum\ntotal: 9",
    json: '{"sum":9,"part":7,"total":9}',
  },
  {
    name: "a disjunction left open by a cycle is reported, not its provisional value",
    src: "base: offset + 1 | offset + 2\noffset: base - 1\noffset: 3",
    err: { path: "offset", code: ["incomplete"], msg: "unresolved disjunction" },
  },
  {
    name: "defaults on both sides of a cycle are not taken",
    src: "price: *10 | 20\nprice: total - tax\ntax: *1 | 2\ntax: total - price\ntotal: 11",
    err: { path: "price", code: ["cycle"], msg: "cycle" },
  },
  {
    name: "a disjunction referring to itself keeps both default marks",
    src: "lo: (*1 | 2) & hi\nhi: (1 | *2) & lo\nout: lo",
    err: { path: "out", code: ["incomplete"], msg: "" },
  },
  // Inline recursion (`(f & {…}).out` inside f's own evaluation).
  {
    name: "one nested inline use of a struct is evaluated",
    src: "#fact: {\n\tn: int\n\tif n > 0 {out: n * (#factRec & {m: n - 1}).out}\n\tif n == 0 {out: 1}\n}\n#factRec: {\n\tm: int\n\tout: (#fact & {n: m}).out\n}\nf1: (#fact & {n: 1}).out",
    json: '{"f1":1}',
  },
  {
    name: "deeper inline recursion is a structural cycle",
    src: "#fact: {\n\tn: int\n\tif n > 0 {out: n * (#factRec & {m: n - 1}).out}\n\tif n == 0 {out: 1}\n}\n#factRec: {\n\tm: int\n\tout: (#fact & {n: m}).out\n}\nf3: (#fact & {n: 3}).out",
    err: { path: "f3", code: STRUCTURAL, msg: "structural cycle" },
  },
  // Comprehension conditions that depend on each other.
  {
    name: "two structs each adding what the other's condition tests are a cycle",
    src: "a: {if b.ready == _|_ {ready: true}}\nb: {if a.ready == _|_ {ready: true}}",
    err: { path: "a", code: CYCLE, msg: "" },
  },
  {
    name: "a condition on a field the other struct can never add is decided",
    src: "a: {if b.x == _|_ {y: 1}}\nb: {if a.x == _|_ {y: 1}}",
    json: '{"a":{"y":1},"b":{"y":1}}',
  },
  {
    name: "a condition on a field the other struct adds, decided first, sees it",
    src: "a: {if b.x == _|_ {y: 1}}\nb: {if a.z == _|_ {x: 1}}",
    json: '{"a":{},"b":{"x":1}}',
  },
  {
    name: "comprehensions of one struct that each add what the other tests are a cycle",
    src: "s: {\n\t#E: [string]: bool\n\tif #E.on == _|_ {#E: off: true}\n\tif #E.off == _|_ {#E: on: true}\n}",
    err: { path: "s", code: ["cycle"], msg: "circular dependency in evaluation of conditionals" },
  },
  {
    name: "a condition on a disjunction it changes names the disjunction as cue prints it",
    src: "s: {\n\tp?: _\n\tq?: _\n\tif (p | q) == _|_ {q: 1}\n}",
    err: {
      path: "s",
      code: ["cycle"],
      msg: "circular dependency in evaluation of conditionals: (p|q) changed after evaluation",
    },
  },
  {
    name: "a field given a concrete value breaks such a chain",
    src: "s: {\n\t#E: [string]: bool\n\tif #E.on != _|_ {#E: off: true}\n\tif #E.off == _|_ {#E: on: true}\n\t#E: on: true\n\tout: #E\n}",
    json: '{"s":{"out":{"on":true,"off":true}}}',
  },
  // A validator whose schema is the value it validates.
  {
    name: "a validator applied to the value it is checking is a structural cycle",
    src: "_v: matchN(1, [_v])\nx: 3 & _v",
    err: { path: "x", code: ["eval", "structural cycle"], msg: "" },
  },
  // Cycles the spec allows: a disjunction with a non-recursive alternative, optional fields.
  {
    name: "a recursive definition through a disjunction (spec)",
    src: "#List: {\n\thead: _\n\ttail: null | #List\n}\nMyList: #List & {head: 1, tail: {head: 2, tail: null}}",
    json: '{"MyList":{"head":1,"tail":{"head":2,"tail":null}}}',
  },
  {
    name: "a recursive definition through an optional field",
    src: "#L: {head: int, tail?: #L}\nx: #L & {head: 1, tail: {head: 2}}",
    json: '{"x":{"head":1,"tail":{"head":2}}}',
  },
  ...throughPatterns(),
  {
    name: "a self reference in a disjunction with a default",
    src: "#list: {\n\ttail: #list | *null\n}\nx: #list",
    json: '{"x":{"tail":null}}',
  },
];

evalCases("cue cycles (spec)", cases, { compileErrors: true });

/**
 * A pattern constraint or optional field whose value refers back to its definition applies only to
 * the fields the data gives: the definition reached again below is its own finite value, no cycle.
 */
function throughPatterns(): EvalCase[] {
  return [
    {
      name: "a pattern constraint that refers to its own definition",
      src: "#Tree: [string]: kids: #Tree\nroot: #Tree\nroot: n1: kids: n2: {}",
      json: '{"root":{"n1":{"kids":{"n2":{"kids":{}}}}}}',
    },
    {
      name: "a pattern constraint that refers back through a hidden helper",
      src: "_Map: [string]: _Node\n_Node: next: _Map\nm: _Map\nm: a: next: b: {}",
      json: '{"m":{"a":{"next":{"b":{"next":{}}}}}}',
    },
    {
      name: "a field below an optional field that refers to its definition",
      src: "#T: {c?: x: #T}\na: #T & {c: {}}",
      json: '{"a":{"c":{"x":{}}}}',
    },
    {
      name: "a pattern constraint that adds a field each level is still a structural cycle",
      src: "#S: [string]: s: #S & {k: {}}\nv: #S\nv: a: {}",
      err: { path: "v.a.s.k.s.k.s", code: STRUCTURAL, msg: "structural cycle" },
    },
  ];
}

// `cue export` evaluates the definitions as well: the instance has no error in any part either.
describe("cue cycles through pattern constraints (whole instance)", () => {
  for (const c of throughPatterns()) {
    if (c.json === undefined) continue;
    it(c.name, () => {
      const v = compile([{ name: "in.cue", text: c.src }]);
      assert.deepEqual(v.errors, [], formatErrors(v.errors));
    });
  }
});
