import { type EvalCase, evalCases } from "./eval-cases.case.js";

/**
 * The families of CUE semantics behind the conformance corpus's silent wrong answers (issue 31),
 * written from the CUE specification: each document either exports the JSON `cue export` prints
 * (compact) or has the error CUE reports (path, code, part of the message).
 */

const requiredFields: EvalCase[] = [
  {
    name: "a required field not given is not a value",
    src: "a!: int\nb: a",
    err: { path: "b", code: "incomplete", msg: "required field missing: a" },
  },
  {
    name: "a required field of a definition, selected",
    src: "#Svc: {port!: int}\nx: #Svc.port",
    err: { path: "x", code: "incomplete", msg: "required field missing: port" },
  },
  {
    name: "a required field of a struct, in arithmetic",
    src: 'x: {y!: string}\nz: x.y + "!"',
    err: { path: "z", code: "incomplete", msg: "required field missing: y" },
  },
  {
    name: "a required field the user gives is a value in the definition",
    src: '#Svc: {port!: int, url: "h:\\(port)"}\ns: #Svc & {port: 80}',
    json: '{"s":{"port":80,"url":"h:80"}}',
  },
  {
    name: "a required field of an embedded definition, given",
    src: '#Base: {name!: string}\n#Svc: {#Base, name!: string, id: name}\ns: #Svc & {name: "web"}',
    json: '{"s":{"name":"web","id":"web"}}',
  },
  {
    name: "a required field not given compares as _|_",
    src: "#D: {a!: int, has: a != _|_}\nx: (#D & {a: 1}).has\ny: (#D & {}).has",
    json: '{"x":true,"y":false}',
  },
];

const defaults: EvalCase[] = [
  {
    name: "three defaults that conflict leave no default",
    src: "a: (int | *1) & (int | *2) & (int | *3)",
    err: { path: "a", code: "incomplete", msg: "" },
  },
  {
    name: "two defaults that conflict leave no default",
    src: "a: (int | *4) & (int | *1)",
    err: { path: "a", code: "incomplete", msg: "" },
  },
  {
    name: "defaults that conflicted in a definition stay conflicted",
    src: "#P: int | *80\n#P: int | *8080\np: #P & (int | *443)",
    err: { path: "p", code: "incomplete", msg: "" },
  },
  { name: "the same default twice", src: "a: (int | *1) & (int | *1)", json: '{"a":1}' },
  {
    name: "a default no alternative kept is dropped, a later one counts",
    src: "a: (*1 | 2 | 3) & (2 | 3) & (*2 | 3)",
    json: '{"a":2}',
  },
];

const bottomTests: EvalCase[] = [
  {
    name: "a value that is not concrete compares as _|_",
    src: '_x: {t: string, u: >0, v: "a" | "b", w: "s"}\na: _x.t != _|_\nb: _x.u == _|_\nc: _x.v != _|_\nd: _x.w != _|_\ne: _x != _|_',
    json: '{"a":false,"b":true,"c":false,"d":true,"e":true}',
  },
  {
    name: "a condition on a field that is not concrete holds once it is",
    src: '#I: {name: string, if name != _|_ {named: true}}\na: #I & {name: "x"}',
    json: '{"a":{"name":"x","named":true}}',
  },
];

const comprehensions: EvalCase[] = [
  {
    name: "a condition sees what a later comprehension adds",
    src: "m: {}\nif len(m) > 0 {has: true}\nif true {m: a: 1}",
    json: '{"m":{"a":1},"has":true}',
  },
  {
    name: "comprehension fields follow the static ones, in the order produced",
    src: 's: {b: 1, for k in ["c", "a"] {(k): 0}}',
    json: '{"s":{"b":1,"c":0,"a":0}}',
  },
  {
    name: "a comprehension's field conflicting with a regular field",
    src: 's: {x: 2, for k in ["x", "y"] {(k): 1}}',
    err: { path: "s.x", code: "eval", msg: "conflicting values" },
  },
  {
    name: "a fallback not taken cannot see the for variable",
    src: '@experiment(try)\nx: {for i in [1] {"\\(i)": i} fallback {bad: i}}',
    err: { path: "x.bad", code: "eval", msg: 'reference "i" not found' },
  },
  {
    name: "a comprehension body never produced still names only what exists",
    src: "c: {}\nx: {for k, v in c {a: nothere}}",
    err: { path: "x.a", code: "eval", msg: 'reference "nothere" not found' },
  },
  {
    name: "a try body whose disjunct refers to an absent field is not produced",
    src: "@experiment(try)\nx: {foo?: int, try { {y: foo?} | {y: 0} } else {none: true}}",
    json: '{"x":{"none":true}}',
  },
];

const selfReferences: EvalCase[] = [
  {
    name: "a reference to the field from inside one of its disjuncts is that disjunct",
    src: "x: {b: 2, c: x.b + 1} | {b: 3, c: x.b + 1}\nx: c: 3",
    json: '{"x":{"b":2,"c":3}}',
  },
];

const closedness: EvalCase[] = [
  {
    name: "an embedded conjunction in a definition allows what both allow",
    src: '#A: {[=~"^[a-m]+$"]: int}\n#B: {[=~"^[h-z]+$"]: int}\n#D: {#A & #B}\nd: #D & {abc: 1}',
    err: { path: "d.abc", code: "eval", msg: "field not allowed" },
  },
  {
    name: "an embedded conjunction in a definition, a label both allow",
    src: '#A: {[=~"^[a-m]+$"]: int}\n#B: {[=~"^[h-z]+$"]: int}\n#D: {#A & #B}\nd: #D & {hij: 1}',
    json: '{"d":{"hij":1}}',
  },
  {
    name: "an embedded definition's fields and the definition's own",
    src: "#A: {a: int}\n#D: {#A, b: int}\nd: #D & {a: 1, b: 2}",
    json: '{"d":{"a":1,"b":2}}',
  },
  {
    name: "an embedded definition keeps the definition closed",
    src: "#A: {a: int}\n#D: {#A, b: int}\nd: #D & {c: 1}",
    err: { path: "d.c", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a field a comprehension adds to a closed struct",
    src: "#D: {a?: int}\nd: #D & {if true {b: 1}}",
    err: { path: "d.b", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a field a definition's own comprehension declares",
    src: "#D: {if true {b?: int}}\nd: #D & {b: 1}",
    json: '{"d":{"b":1}}',
  },
  {
    name: "... in an embedded struct opens the definition",
    src: "#D: {{...}, a: int}\nd: #D & {a: 1, x: 2}",
    json: '{"d":{"a":1,"x":2}}',
  },
  {
    name: "an embedded scalar computed from fields another conjunct gives",
    src: "#Sum: {#a + #b, #a: int, #b: int}\nx: #Sum & {_, #a: 1, #b: 3}\ny: (#Sum & {_, #a: 2, #b: 2}) * 10",
    json: '{"x":4,"y":40}',
  },
  {
    name: "an embedded scalar computed from fields the embedding struct gives",
    src: "_sum: {#a + #b, #a: int, #b: int}\nx: {_sum, #a: 1, #b: 3}",
    json: '{"x":4}',
  },
  {
    name: "... beside an embedding does not make a struct",
    src: '#Def: {..., #foo: string, _}\nx: #Def & {"s", #foo: "bar"}\ny: {...}\nz: {..., _} & {a: 1}',
    json: '{"x":"s","y":{},"z":{"a":1}}',
  },
  {
    name: "an embedded scalar that stays incomplete is an error",
    src: "_sum: {#a + #b, #a: int, #b: int}\nx: _sum & {_, #a: 1}",
    err: { path: "x", code: "incomplete", msg: "non-concrete value int in operand to +" },
  },
  {
    name: "an embedded struct computed from a field, adding new fields",
    src: "s: {\n\t{t: f}.t.y\n\tf: y: {w: 2}\n}",
    json: '{"s":{"f":{"y":{"w":2}},"w":2}}',
  },
  {
    // cue reaches a fixpoint here (s.a: 1, s.f.y.a: 1); one more evaluation would stop short of it.
    name: "an embedded struct computed from a field it adds to is an error, not a value short of cue's",
    src: "s: {\n\t{t: f}.t.y\n\tf: y: f: y: a: 1\n}",
    err: { path: "s", code: "incomplete", msg: "undefined as {...}.t is incomplete" },
  },
];

const dynamicAndPatterns: EvalCase[] = [
  {
    name: "a dynamic field meets a pattern",
    src: 'k: "b"\ns: {[=~"^b"]: int, (k): 1}',
    json: '{"k":"b","s":{"b":1}}',
  },
  {
    name: "a dynamic field conflicts with a pattern",
    src: 'k: "b"\ns: {[=~"^b"]: int, (k): "x"}',
    err: { path: "s.b", code: "eval", msg: "conflicting values" },
  },
  {
    name: "a dynamic field meets a regular field",
    src: 'k: "a"\ns: {a: int, (k): 1}',
    json: '{"k":"a","s":{"a":1}}',
  },
  {
    name: "a dynamic field into a closed definition",
    src: '#D: {a?: int}\nk: "b"\nd: #D & {(k): 1}',
    err: { path: "d.b", code: "eval", msg: "field not allowed" },
  },
  {
    name: "two patterns apply to one field",
    src: 's: {[string]: >0, [=~"^x"]: <10, x1: 5, y: 20}',
    json: '{"s":{"x1":5,"y":20}}',
  },
  {
    name: "the second pattern's bound",
    src: 's: {[string]: >0, [=~"^x"]: <10, x2: 20}',
    err: { path: "s.x2", code: "eval", msg: "invalid value 20 (out of bound <10)" },
  },
];

const bounds: EvalCase[] = [
  {
    name: "integer bounds no integer meets are an error",
    src: "a: >1 & <2 & int",
    err: { path: "a", code: "eval", msg: "incompatible integer bounds" },
  },
  { name: "bounds that meet in one number", src: "a: >=1 & <=1 & int", json: '{"a":1}' },
  {
    name: "out of bound as cue words it",
    src: "a: int & <3\na: 5",
    err: { path: "a", code: "eval", msg: "invalid value 5 (out of bound <3)" },
  },
  { name: "!= on a list, another list", src: "a: !=[1, 2]\na: [1, 3]", json: '{"a":[1,3]}' },
  {
    name: "!= on a list, the same list",
    src: "a: !=[1, 2]\na: [1, 2]",
    err: { path: "a", code: "eval", msg: "out of bound !=" },
  },
  { name: "== on a struct, the same struct", src: "a: =={x: 1}\na: {x: 1}", json: '{"a":{"x":1}}' },
  {
    name: "== on a struct, another struct",
    src: "a: =={x: 1}\na: {x: 2}",
    err: { path: "a", code: "eval", msg: "out of bound ==" },
  },
  {
    name: "== on a number, another number",
    src: "a: ==3\na: 2",
    err: { path: "a", code: "eval", msg: "invalid value 2 (out of bound ==3)" },
  },
  { name: "== on a number, the number", src: "a: ==3\na: 3\nb: ==true & true", json: '{"a":3,"b":true}' },
  {
    name: "== on a number alone is a constraint, not the number",
    src: "a: ==3",
    err: { path: "a", code: "incomplete", msg: "==3" },
  },
  {
    name: "!= on a bool, the same bool",
    src: "a: !=true\na: true",
    err: { path: "a", code: "eval", msg: "invalid value true (out of bound !=true)" },
  },
  {
    name: "!= on a string, the same string",
    src: 'a: !="b"\na: "b"',
    err: { path: "a", code: "eval", msg: 'invalid value "b" (out of bound !="b")' },
  },
  {
    name: "a bound on a value not yet known names it as written",
    src: "#i: int\na: <(#i)",
    err: { path: "a", code: "incomplete", msg: "non-concrete value #i for bound <" },
  },
  {
    name: "!= on a value not yet known names it as written",
    src: "#Range: {lo: int, hi: !=lo}\nr: #Range.hi",
    err: { path: "r", code: "incomplete", msg: "non-concrete value lo for bound !=" },
  },
  {
    name: "< on a struct is not a bound",
    src: "a: <{x: 1}",
    err: { path: "a", code: "eval", msg: "cannot use struct for bound <" },
  },
];

// math.Exp, math.Log and math.Pow as cue computes them: decimals rounded half to even to 34
// significant digits (the digits of e, ln 10 and √2 as published), or refused.
const decimalMath: EvalCase[] = [
  {
    name: "Exp(1) is e to 34 digits",
    src: 'import "math"\na: math.Exp(1)',
    json: '{"a":2.718281828459045235360287471352662}',
  },
  {
    name: "Log(10) is ln 10 to 34 digits",
    src: 'import "math"\na: math.Log(10)',
    json: '{"a":2.302585092994045684017991454684364}',
  },
  {
    name: "Pow(2, 0.5) is √2 to 34 digits",
    src: 'import "math"\na: math.Pow(2, 0.5)',
    json: '{"a":1.414213562373095048801688724209698}',
  },
  {
    name: "an integer power is exact",
    src: 'import "math"\na: math.Pow(1.5, 3)\nb: math.Pow(2, -2)',
    json: '{"a":3.375,"b":0.25}',
  },
  {
    name: "a result beyond the engine's range is refused",
    src: 'import "math"\na: math.Exp(1000)',
    err: { path: "a", code: "unsupported", msg: "math.Exp: a result this large or small is not supported" },
  },
  {
    name: "the logarithm of a negative number is refused",
    src: 'import "math"\na: math.Log(-1)',
    err: { path: "a", code: "unsupported", msg: "math.Log of a number not above zero" },
  },
];

// Let clauses that refer to each other in a cycle are refused as cue's compiler refuses them, even
// when no field uses them; lets that refer to each other in order are fine.
const letClauses: EvalCase[] = [
  {
    name: "two lets that refer to each other",
    src: "s: {\n\tlet A = B\n\tlet B = A + 1\n\tv: 1\n}",
    err: { path: "s.let[]", code: "eval", msg: "cyclic references in let clause or alias" },
  },
  {
    name: "a let cycle a field uses",
    src: "let P = Q\nlet Q = P\nport: P",
    err: { path: "let[]", code: "eval", msg: "cyclic references in let clause or alias" },
  },
  { name: "lets in a chain", src: "let A = 1\nlet B = A + 1\nv: B", json: '{"v":2}' },
  {
    name: "a let beside a field of the same struct",
    src: "s: {let A = n + 1, n: 1, v: A}",
    json: '{"s":{"n":1,"v":2}}',
  },
];

const patternLabels: EvalCase[] = [
  {
    name: "a pattern whose label is an error makes its struct one, matched or not",
    src: "s: {[or([])]: int, d: 1}",
    err: { path: "s", code: ["eval", "incomplete"], msg: "empty list in call to or" },
  },
  {
    name: "a pattern whose label is an error, in a struct with no fields",
    src: "#D: {let K = or([])\nc: [K]: K}\nx: #D",
    err: { path: "x.c", code: ["eval", "incomplete"], msg: "empty list in call to or" },
  },
];

const families: [string, EvalCase[]][] = [
  ["required fields referenced as values", requiredFields],
  ["defaults of unified disjunctions", defaults],
  ["comparisons with _|_", bottomTests],
  ["comprehensions: order, conflicts, fallbacks", comprehensions],
  ["references to the value being evaluated", selfReferences],
  ["embedding and closedness", closedness],
  ["dynamic fields and pattern constraints", dynamicAndPatterns],
  ["bounds and comparisons", bounds],
  ["math in 34-digit decimals", decimalMath],
  ["let clauses that refer to each other", letClauses],
  ["pattern constraints whose label is an error", patternLabels],
];

for (const [family, cases] of families) {
  evalCases(`cue semantics: ${family}`, cases);
}
