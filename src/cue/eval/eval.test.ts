import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile, formatErrors } from "../index.js";
import { type EvalCase, evalCases } from "./eval-cases.case.js";

const cases: EvalCase[] = [
  // Scalars, arithmetic, int/float distinction.
  {
    name: "ints and floats",
    src: "a: 1\nb: 1.0\nc: 4 / 2\nd: 3 * 2\ne: 1 + 0.5",
    json: '{"a":1,"b":1.0,"c":2.0,"d":6,"e":1.5}',
  },
  {
    name: "float arithmetic in decimals (34 digits)",
    src: "a: 123.45 - 987.65\nb: 1 / 3\nc: 7 / 2\nd: 123.45 * 987.65\ne: 0.1 + 0.2\nf: 1.0 / 0.25",
    json: '{"a":-864.20,"b":0.3333333333333333333333333333333333,"c":3.5,"d":121925.3925,"e":0.3,"f":4.0}',
  },
  { name: "big ints", src: "a: 12345678901234567890123 * 10", json: '{"a":123456789012345678901230}' },
  {
    name: "div mod quo rem",
    src: "a: div(-7, 2)\nb: mod(-7, 2)\nc: quo(-7, 2)\nd: rem(-7, 2)",
    json: '{"a":-4,"b":1,"c":-3,"d":-1}',
  },
  {
    name: "string ops",
    src: 'a: "ab" + "cd"\nb: "x" * 3\nc: len("héllo")',
    json: '{"a":"abcd","b":"xxx","c":6}',
  },
  {
    name: "comparison and logic",
    src: 'a: 1 < 2 && 2 >= 2\nb: "a" == "b" || !false',
    json: '{"a":true,"b":true}',
  },
  { name: "regex ops", src: 'a: "foo" =~ "^f"\nb: "foo" !~ "o$"', json: '{"a":true,"b":false}' },
  {
    name: "interpolation",
    src: 'n: 3\ns: "n=\\(n) f=\\(1.5) b=\\(true)"',
    json: '{"n":3,"s":"n=3 f=1.5 b=true"}',
  },
  // Unification, bounds, types.
  {
    name: "bounds",
    src: 'a: int & >=0 & <10\na: 5\nb: uint8 & 255\nc: string & =~"^x" & "xy"',
    json: '{"a":5,"b":255,"c":"xy"}',
  },
  {
    name: "conflict",
    src: 'a: "http"\na: "htp"',
    err: { path: "a", code: "eval", msg: 'conflicting values "http" and "htp"' },
  },
  {
    name: "mismatched types",
    src: 'a: 1\na: "x"',
    err: { path: "a", code: "eval", msg: "mismatched types int and string" },
  },
  {
    name: "out of bound",
    src: "a: >10\na: 5",
    err: { path: "a", code: "eval", msg: "invalid value 5 (out of bound >10)" },
  },
  {
    name: "int is not float",
    src: "a: int\na: 1.5",
    err: { path: "a", code: "eval", msg: "conflicting values" },
  },
  { name: "rune bound", src: "a: rune & 0x10FFFF", json: '{"a":1114111}' },
  {
    name: "incomplete export",
    src: "a: int",
    err: { path: "a", code: "incomplete", msg: "incomplete value int" },
  },
  // Structs, shorthand, definitions, closedness.
  { name: "shorthand", src: "a: b: c: 1\na: b: d: 2", json: '{"a":{"b":{"c":1,"d":2}}}' },
  {
    name: "definition with default",
    src: '#D: {name: string, port: *80 | int}\nx: #D & {name: "w"}',
    json: '{"x":{"name":"w","port":80}}',
  },
  {
    name: "references inside definitions see the result",
    src: "#D: {a: int, b: a + 1}\nx: #D & {a: 1}",
    json: '{"x":{"a":1,"b":2}}',
  },
  {
    name: "closed definition",
    src: "#D: {a: int}\nx: #D & {a: 1, b: 2}",
    err: { path: "x.b", code: "eval", msg: "field not allowed" },
  },
  {
    name: "recursive closedness",
    src: "#D: {s: {a: int}}\nx: #D & {s: {a: 1, z: 2}}",
    err: { path: "x.s.z", code: "eval", msg: "field not allowed" },
  },
  {
    name: "embedding allows own fields",
    src: "#A: {a: int}\n#B: {#A, b: int}\nx: #B & {a: 1, b: 2}",
    json: '{"x":{"a":1,"b":2}}',
  },
  {
    name: "embedded definition closes",
    src: "#A: {a: int}\n#B: {#A, b: int}\nx: #B & {c: 1}",
    err: { path: "x.c", code: "eval", msg: "field not allowed" },
  },
  {
    name: "close()",
    src: "a: close({x: 1})\na: y: 2",
    err: { path: "a.y", code: "eval", msg: "field not allowed" },
  },
  {
    name: "ellipsis keeps definitions open",
    src: "#D: {a: int, ...}\nx: #D & {a: 1, b: 2}",
    json: '{"x":{"a":1,"b":2}}',
  },
  { name: "hidden and definitions not exported", src: "_h: 1\n#d: 2\na: _h + #d", json: '{"a":3}' },
  {
    name: "optional and required",
    src: '#D: {a?: int, b!: string}\nx: #D & {b: "y"}',
    json: '{"x":{"b":"y"}}',
  },
  {
    name: "required missing",
    src: "#D: {b!: string}\nx: #D",
    err: { path: "x.b", code: "incomplete", msg: "required" },
  },
  {
    name: "pattern constraints",
    src: 'a: [=~"^x"]: int\na: {x1: 1, y: "s"}\nb: [N=string]: {name: N}\nb: k: {}',
    json: '{"a":{"x1":1,"y":"s"},"b":{"k":{"name":"k"}}}',
  },
  {
    name: "pattern violation",
    src: 'a: [string]: int\na: x: "s"',
    err: { path: "a.x", code: "eval", msg: "conflicting values" },
  },
  // Disjunctions and defaults.
  { name: "default", src: 'a: *"tcp" | "udp"\nb: a', json: '{"a":"tcp","b":"tcp"}' },
  { name: "default overridden", src: 'a: *"tcp" | "udp"\na: "udp"', json: '{"a":"udp"}' },
  {
    name: "ambiguous without default",
    src: "a: 1 | 2",
    err: { path: "a", code: "incomplete", msg: "incomplete value" },
  },
  {
    name: "struct discriminator",
    src: '#A: {type: "a", x: int}\n#B: {type: "b", y: *2 | int}\nc: #A | #B\nc: type: "b"',
    json: '{"c":{"type":"b","y":2}}',
  },
  {
    name: "empty disjunction",
    src: "a: 1 | 2\na: 3",
    err: { path: "a", code: "eval", msg: "empty disjunction" },
  },
  {
    name: "default propagation",
    src: "a: (*1 | 2) & (1 | *2)\nb: (*1 | 2 | 3) & (1 | 3)",
    err: { path: "a", code: "incomplete", msg: "incomplete value" },
  },
  { name: "default arithmetic", src: "a: *1 | 2\nb: a + 1", json: '{"a":1,"b":2}' },
  {
    name: "custom error() alternative",
    src: 'x: >10 | error("x must be more than 10")\nx: 5',
    err: { path: "x", code: "eval", msg: "x must be more than 10" },
  },
  // Lists.
  {
    name: "open list",
    src: 'a: [...int] & [1, 2]\nb: [1, ...string]\nb: [1, "x"]',
    json: '{"a":[1,2],"b":[1,"x"]}',
  },
  {
    name: "list length conflict",
    src: "a: [1, 2] & [1]",
    err: { path: "a", code: "eval", msg: "incompatible list lengths" },
  },
  { name: "list index", src: "a: [1, 2, 3]\nb: a[1]\nc: len(a)", json: '{"a":[1,2,3],"b":2,"c":3}' },
  // References, aliases, let.
  {
    name: "let and aliases",
    src: "let x = 2\nX=a: 3\nb: X + x\nc: Y={k: 1, m: Y.k + 1}",
    json: '{"a":3,"b":5,"c":{"k":1,"m":2}}',
  },
  {
    name: "undefined reference",
    src: "a: b",
    err: { path: "a", code: "eval", msg: 'reference "b" not found' },
  },
  { name: "resolved cycle", src: "x: y + 1\ny: x - 1\nx: 5", json: '{"x":5,"y":4}' },
  {
    name: "structural cycle",
    src: "a: b: a",
    err: { path: "a.b", code: "structural cycle", msg: "structural cycle" },
  },
  {
    name: "quoted labels are regular fields",
    src: '"#Foo": 1\n#Foo: 2\n"_x": #Foo\nb: {for k, v in {"_z": 1} {(k): v}}',
    json: '{"#Foo":1,"_x":2,"b":{"_z":1}}',
  },
  // Comprehensions and dynamic fields.
  {
    name: "for in struct and list",
    src: 'src: {a: 1, b: 2}\nout: {for k, v in src {"\\(k)x": v * 10}}\nl: [for v in src if v > 1 {v}]',
    json: '{"src":{"a":1,"b":2},"out":{"ax":10,"bx":20},"l":[2]}',
  },
  {
    name: "if and let clauses",
    src: "c: true\nx: {if c {a: 1}\nif !c {b: 2}}\ny: [for i in [1, 2] let j = i * 2 {j}]",
    json: '{"c":true,"x":{"a":1},"y":[2,4]}',
  },
  { name: "dynamic label", src: 'k: "name"\n(k): 1\n"\\(k)2": 2', json: '{"k":"name","name":1,"name2":2}' },
  // Builtins.
  {
    name: "strings",
    src: 'import "strings"\na: strings.Join(["a", "b"], "-")\nb: strings.ToUpper("x")\nc: strings.MinRunes(2) & "ab"\nd: strings.Split("a,b", ",")',
    json: '{"a":"a-b","b":"X","c":"ab","d":["a","b"]}',
  },
  {
    name: "validator failure",
    src: 'import "strings"\na: strings.MinRunes(3) & "ab"',
    err: { path: "a", code: "eval", msg: "does not satisfy strings.MinRunes(3)" },
  },
  {
    name: "list and math",
    src: 'import (\n\t"list"\n\t"math"\n)\na: list.Sum([1, 2, 3])\nb: list.Sort([3, 1, 2], list.Ascending)\nc: math.Floor(1.5)\nd: list.Concat([[1], [2]])',
    json: '{"a":6,"b":[1,2,3],"c":1,"d":[1,2]}',
  },
  {
    name: "regexp and struct",
    src: 'import (\n\t"regexp"\n\t"struct"\n)\na: regexp.Match("^a", "abc")\nb: struct.MinFields(1) & {x: 1}',
    json: '{"a":true,"b":{"x":1}}',
  },
  {
    name: "net and time",
    src: 'import (\n\t"net"\n\t"time"\n)\na: net.IPv4 & "10.0.0.1"\nb: time.Duration & "1m30s"\nc: time.ParseDuration("1m30s")',
    json: '{"a":"10.0.0.1","b":"1m30s","c":90000000000}',
  },
  {
    name: "invalid IP",
    src: 'import "net"\na: net.IPv4 & "300.1.1.1"',
    err: { path: "a", code: "eval", msg: "does not satisfy net.IPv4" },
  },
  {
    name: "json",
    src: 'import "encoding/json"\na: json.Marshal({x: 1, y: [true]})\nb: json.Unmarshal("{\\"k\\": 1.5}")',
    json: '{"a":"{\\"x\\":1,\\"y\\":[true]}","b":{"k":1.5}}',
  },
  {
    name: "json.Marshal of a value not yet concrete",
    src: 'import "encoding/json"\na: json.Marshal({port: int})',
    err: { path: "a", code: "incomplete", msg: 'cannot convert incomplete value "int" to JSON' },
  },
  {
    name: "a field holding a bare validator can be called",
    src: 'import "encoding/json"\n_v: json.Valid\na: _v("[1]")\nb: _v("[")\nc: "{}" & _v',
    json: '{"a":true,"b":false,"c":"{}"}',
  },
  {
    name: "a called validator cannot be called again",
    src: 'import "encoding/json"\nv: json.Valid()\nw: v()',
    err: { path: "w", code: "eval", msg: "cannot call previously called validator v" },
  },
  { name: "and/or", src: "a: and([int, >0, 3])\nb: or([1, 2]) & 2", json: '{"a":3,"b":2}' },
  // Honest scope.
  {
    name: "slices",
    src: 'a: [1, 2, 3][1:]\nb: "hello"[1:3]\nc: [{x: 1}, {x: 2}][:1]',
    json: '{"a":[2,3],"b":"el","c":[{"x":1}]}',
  },
  {
    name: "slice out of range",
    src: "a: [1][0:2]",
    err: { path: "a", code: "eval", msg: "index 2 out of range" },
  },
  {
    name: "unknown package function",
    src: 'import "strings"\na: strings.NoSuch("x")',
    err: { path: "a", code: "unsupported", msg: "not supported" },
  },
  { name: "explicit bottom", src: "a: _|_", err: { path: "a", code: "user", msg: "explicit error" } },
  // Experiments (per file).
  {
    name: "try: absent references skip the body, else and fallback",
    src: [
      "@experiment(try)",
      "a: 1",
      "c?: int",
      "s: {try { r: a? + 1 }}",
      "t: {try { v: c? } else { none: true }}",
      "u: {try x = a? { y: x }}",
      "w: {for x in [] { (x): 1 } fallback { empty: true }}",
    ].join("\n"),
    json: '{"a":1,"s":{"r":2},"t":{"none":true},"u":{"y":1},"w":{"empty":true}}',
  },
  {
    name: "try: x? outside a try clause is an error",
    src: "@experiment(try)\na: 1\nb: a?",
    err: { path: "b", code: "eval", msg: "only valid within a try clause" },
  },
  {
    name: "aliasv2: label aliases and self",
    src: [
      "@experiment(aliasv2)",
      "a~(K,V): {n: K, m: V.x, x: 2}",
      "b: D.x + self.a.x",
      "l: [1, self[0] + 1]",
      '("d")~D: {x: 3}',
    ].join("\n"),
    json: '{"a":{"n":"a","m":2,"x":2},"b":5,"l":[1,2],"d":{"x":3}}',
  },
  // Silent wrong answers of issue 20: each used to export a value CUE does not give.
  {
    name: "an unset optional field is _|_ in a comprehension of its own struct",
    src: "a?: int\nif a != _|_ { yes: true }\nif a == _|_ { no: true }\ns: {b?: 1, if b != _|_ {c: 1}}",
    json: '{"s":{},"no":true}',
  },
  {
    name: "an optional field made regular is not _|_",
    src: "a?: int\na: 1\nif a != _|_ { yes: true }",
    json: '{"a":1,"yes":true}',
  },
  {
    name: "a dynamic label naming the field it is computed from conflicts",
    src: 'x: "x"\n(x): "foo"',
    err: { path: "x", code: "eval", msg: 'conflicting values "x" and "foo"' },
  },
  {
    name: "a dynamic label naming the field it is computed from unifies",
    src: 'x: "x"\n(x): string',
    json: '{"x":"x"}',
  },
  {
    name: "a comprehension adding below the struct it ranges over",
    src: "params: x.y\nx: y: {}\nfor _ in x { if true { x: y: a: {} } }",
    json: '{"params":{"a":{}},"x":{"y":{"a":{}}}}',
  },
  {
    name: "interpolated bytes replace each run of invalid UTF-8 with one U+FFFD",
    src: "b: 'a\\x80\\x95a\\xe2\\x82'\ns: \"\\(b)\"",
    json: '{"b":"YYCVYeKC","s":"a\uFFFDa\uFFFD"}',
  },
  {
    name: "a condition on its own struct that its comprehension makes false is a cycle",
    src: "a: {\n\tif a.b == _|_ {b: 1}\n}",
    err: {
      path: "a",
      code: "cycle",
      msg: "circular dependency in evaluation of conditionals: a.b changed after evaluation",
    },
  },
  {
    name: "a condition that another comprehension of its struct makes true runs its comprehension",
    src: "b: {\n\tif ret != _|_ {foo: 1}\n\traises?: {}\n\tif raises == _|_ {ret: a: 1}\n\tret?: {}\n}",
    json: '{"b":{"ret":{"a":1},"foo":1}}',
  },
  {
    name: "comprehensions that add what each other's conditions test are a cycle",
    src: "p: {\n\tret?: {}\n\tif ret != _|_ {raises: a: 1}\n\traises?: {}\n\tif raises == _|_ {ret: a: 1}\n}",
    err: {
      path: "p",
      code: "cycle",
      msg: "circular dependency in evaluation of conditionals: ret changed after evaluation",
    },
  },
  {
    // Read in this order (b's condition first); the other order is a cycle in this engine, where
    // cue suspends b's comprehension until a is done (docs/cue-evaluator.md, "Cycles").
    name: "a condition on another struct still collecting is not decided by its absent field",
    src: 'b: { if a.bar == _|_ { new: "" } }\na: { if b.foo == _|_ { bar: "" } }',
    json: '{"b":{},"a":{"bar":""}}',
  },
  {
    name: "an embedded reference to a field declared later in the same struct",
    src: "x: {\n\t#S\n\t#S: {a: 1}\n}\ny: {\n\t#T\n\t#T: {a: 1}\n}\ny: b: 2",
    err: { path: "y.b", code: "eval", msg: "field not allowed" },
  },
  {
    name: "an embedded reference to a later field of its struct contributes its fields",
    src: "x: {\n\t#S\n\t#S: {a: 1}\n}",
    json: '{"x":{"a":1}}',
  },
  {
    name: "an embedded close() keeps the embedding struct's own fields",
    src: 'x: {\n\tc: "foo"\n\t#S\n\t#S: close({a: 1})\n}',
    json: '{"x":{"c":"foo","a":1}}',
  },
  {
    name: "a for comprehension over a struct with a required field not given",
    src: '#x: {\n\ta!: string\n\tc: string\n}\ny: {\n\tfor k, v in #x {(k): "exists"}\n}',
    err: { path: "y", code: "incomplete", msg: "missing required field in for comprehension: a" },
  },
  {
    name: "a required field is not a value in arithmetic",
    src: "a!: 1\nb: a + 1",
    err: { path: "a", code: "incomplete", msg: "field is required but not present" },
  },
  {
    name: "a reference to a struct that embeds a definition closes its nested structs",
    src: "#close: {}\na: {x: q: 2, #close}\nb: a\nb: x: r: 4",
    err: { path: "b.x.r", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a reference to a struct that embeds a definition refuses new fields at its top",
    src: "#close: {}\na: {q: 2, #close}\nb: a\nb: r: 4",
    err: { path: "b.r", code: "eval", msg: "field not allowed" },
  },
  {
    name: "a struct that embeds a definition keeps its own nested structs open",
    src: "#close: {}\na: {x: q: 2, #close}\na: x: r: 4\nz: a.x\nz: s: 5",
    json: '{"a":{"x":{"q":2,"r":4}},"z":{"q":2,"r":4,"s":5}}',
  },
  {
    name: "an embedded definition adding late to a field keeps its value",
    src: "root: input: #deps: root: {}\n{root.input.#deps}",
    json: '{"root":{"input":{}}}',
  },
];

evalCases("cue evaluator", cases);

describe("cue's messages and positions", () => {
  /** [source, the whole output of formatErrors, as `cue export` prints it]. */
  const cases: [string, string][] = [
    [
      "a: [1] + [2]",
      "a: Addition of lists is superseded by list.Concat; see https://cuelang.org/e/v0.11-list-arithmetic:\n    ./in.cue:1:4\n",
    ],
    [
      "a: [1] * 2",
      "a: Multiplication of lists is superseded by list.Repeat; see https://cuelang.org/e/v0.11-list-arithmetic:\n    ./in.cue:1:4\n",
    ],
    ["a: >true", "a: cannot use bool for bound >:\n    ./in.cue:1:5\n"],
    // A builtin's argument of the wrong type is pointed at, not the call.
    ["a: quo(2, 1.0)", "a: cannot use 1.0 (type float) as int in argument 2 to quo:\n    ./in.cue:1:11\n"],
    // The pattern constraint the refused field matched is listed beside the field.
    [
      '#T: [_]: _\n#T: close({"a": string})\nx: #T\nx: b: "foo"',
      "x.b: field not allowed:\n    ./in.cue:1:5\n    ./in.cue:4:4\n",
    ],
    ["a: <=null", "a: cannot use null for bound <=:\n    ./in.cue:1:6\n"],
    ['a: >"b" & <"a"', 'a: incompatible string bounds <"a" and >"b":\n    ./in.cue:1:4\n    ./in.cue:1:11\n'],
    ["a: >'b' & <'a'", "a: incompatible bytes bounds <'a' and >'b':\n    ./in.cue:1:4\n    ./in.cue:1:11\n"],
    ["a: >=3 & <=1", "a: incompatible number bounds <=1 and >=3:\n    ./in.cue:1:4\n    ./in.cue:1:10\n"],
    [
      "a: int & >=1.1 & <=1.3",
      "a: incompatible integer bounds <=1.3 and >=1.1:\n    ./in.cue:1:4\n    ./in.cue:1:18\n",
    ],
  ];
  for (const [src, want] of cases) {
    it(src, () => {
      const r = compile([{ name: "in.cue", text: src }]).export();
      assert.equal(r.ok ? "" : formatErrors(r.errors), want);
    });
  }
});

describe("cue API", () => {
  it("unsupported imports are rejected with their position", () => {
    const v = compile([{ name: "in.cue", text: 'import "example.com/x"\na: 1' }]);
    assert.equal(v.errors[0]?.code, "unsupported");
    assert.deepEqual(v.errors[0]?.positions[0], { file: "in.cue", line: 1, column: 8 });
  });

  it("implements the explicitopen experiment per file", () => {
    const def = { name: "def.cue", text: "package x\n#A: a: 1" };
    const src = [
      "@experiment(explicitopen)",
      "package x",
      "closed: {#A}",
      "open: {#A..., b: 1}",
      "t1: closed & {c: 3}",
      "t2: open & {c: 3}",
    ].join("\n");
    const v = compile([def, { name: "new.cue", text: src }]);
    assert.deepEqual(
      v.errors.map((e) => `${e.path.join(".")}: ${e.message}`),
      ["t1.c: field not allowed"],
    );
    const r = v.lookup(["t2"])?.export();
    assert.ok(r?.ok);
    assert.deepEqual(r.data, { a: 1, b: 1, c: 3 });
    // Without the experiment the postfix operator is an error and embedding keeps the old meaning.
    const old = compile([def, { name: "old.cue", text: "package x\no: {#A, b: 1}\np: #A..." }]);
    assert.deepEqual(
      old.errors.map((e) => `${e.path.join(".")}: ${e.message}`),
      ["p: postfix ... requires @experiment(explicitopen)"],
    );
  });

  it("unifies files as one package and looks up paths", () => {
    const v = compile([
      { name: "schema.cue", text: "#Host: {address: string, port: *22 | int}\nhosts: [string]: #Host" },
      { name: "hosts.cue", text: 'hosts: web: address: "10.0.0.1"' },
    ]);
    assert.deepEqual(v.errors, []);
    const web = v.lookup(["hosts", "web"]);
    const r = web?.export();
    assert.ok(r?.ok);
    assert.deepEqual(r.data, { address: "10.0.0.1", port: 22 });
    assert.equal(v.lookup(["hosts", "nope"]), undefined);
  });

  it("unify combines two values", () => {
    const a = compile([{ name: "a.cue", text: "#S: {x: int}\nv: #S" }]).lookup(["v"]);
    const b = compile([{ name: "b.cue", text: "v: x: 3" }]).lookup(["v"]);
    assert.ok(a && b);
    const r = a.unify(b).export();
    assert.ok(r.ok);
    assert.deepEqual(r.data, { x: 3 });
  });

  it("export keeps positions of every field and element", () => {
    const v = compile([
      { name: "c.cue", text: '#D: {port: *80 | int, ...}\nsvc: #D & {\n\tname: "x"\n}\nl: [1, 2]' },
    ]);
    const r = v.export();
    assert.ok(r.ok);
    const data = r.data as { svc: object; l: object };
    assert.deepEqual(r.positions.of(data.svc, "name"), [{ file: "c.cue", line: 3, column: 2 }]);
    assert.deepEqual(r.positions.of(data.svc, "port"), [{ file: "c.cue", line: 1, column: 6 }]);
    assert.deepEqual(r.positions.of(data.l, 1), [{ file: "c.cue", line: 5, column: 8 }]);
    assert.deepEqual(r.positions.values(data.svc, "name"), [{ file: "c.cue", line: 3, column: 8 }]);
  });

  it("lists the user's positions before the schema's", () => {
    const v = compile([
      { name: "schema.cue", text: "#D: {port: *80 | int}\nsvc: #D" },
      { name: "user.cue", text: "svc: port: 8080" },
    ]);
    const r = v.export();
    assert.ok(r.ok);
    const svc = (r.data as { svc: object }).svc;
    assert.deepEqual(r.positions.of(svc, "port"), [
      { file: "user.cue", line: 1, column: 6 },
      { file: "schema.cue", line: 1, column: 6 },
    ]);
    assert.deepEqual(r.positions.values(svc, "port")[0], { file: "user.cue", line: 1, column: 12 });
  });

  it("formats errors the way cue does", () => {
    const v = compile([{ name: "file.cue", text: 'a: "http"\na: "htp"' }]);
    assert.equal(
      formatErrors(v.errors),
      'a: conflicting values "http" and "htp":\n    ./file.cue:1:4\n    ./file.cue:2:4\n',
    );
  });

  it("prints an empty disjunction with each alternative's error", () => {
    const text =
      '#TCP: {type: "tcp"}\n#HTTP: {type: "http"}\nhosts: web2: check: #TCP | #HTTP\nhosts: web2: check: type: "htp"';
    const v = compile([{ name: "h.cue", text }]);
    assert.equal(
      formatErrors(v.errors),
      [
        "hosts.web2.check: 2 errors in empty disjunction:",
        'hosts.web2.check.type: conflicting values "tcp" and "htp":',
        "    ./h.cue:1:14",
        "    ./h.cue:4:27",
        'hosts.web2.check.type: conflicting values "http" and "htp":',
        "    ./h.cue:2:15",
        "    ./h.cue:4:27",
        "",
      ].join("\n"),
    );
  });

  it("reports both alternatives when a value misses a default and a bound", () => {
    const v = compile([{ name: "x.cue", text: "x: *3 | int & >=1\nx: 0" }]);
    const text = formatErrors(v.errors);
    assert.match(text, /^x: 2 errors in empty disjunction:\n/);
    assert.match(text, /x: conflicting values 3 and 0:/);
    assert.match(text, /x: invalid value 0 \(out of bound >=1\):/);
  });

  it("keeps a field named __proto__", () => {
    const r = compile([{ name: "p.cue", text: 'm: {"__proto__": 1, b: 2}' }]).export();
    assert.ok(r.ok);
    const m = (r.data as Record<string, object>).m as object;
    assert.deepEqual(Object.keys(m), ["__proto__", "b"]);
    assert.equal(Object.getPrototypeOf(m), Object.prototype);
  });

  it("error paths carry the user's label of a quoted field (__proto__)", () => {
    const text = [
      '#L: {[=~"^[a-z]+$"]: string}',
      'l: #L & {"__proto__": "x"}',
      'hosts: "__proto__": vars: #L & {"__proto__": "x"}',
    ].join("\n");
    const errs = compile([{ name: "p.cue", text }]).errors;
    assert.deepEqual(
      errs.map((e) => [e.path, e.message]),
      [
        [["l", "__proto__"], "field not allowed"],
        [["hosts", "__proto__", "vars", "__proto__"], "field not allowed"],
      ],
    );
    const m = compile([{ name: "m.cue", text: '"__proto__": {a: 1}\n_x: 2' }]);
    const data = (path: string[]): unknown => {
      const r = m.lookup(path)?.export();
      assert.ok(r?.ok, `no value at ${path.join(".")}`);
      return r.data;
    };
    assert.equal(data(["__proto__", "a"]), 1);
    assert.deepEqual(data(["__proto__"]), { a: 1 });
    assert.equal(data(["_x"]), 2);
  });

  it("an embedded disjunction in a definition reports each disjunct's error", () => {
    const text = [
      "#S: {",
      "\ta?: string",
      "\tb?: string",
      '\tp:  *"" | "x"',
      "\t{a!: _, b?: _|_} | {b!: _, a?: _|_}",
      "}",
      'y: #S & {b: "u", p: "z"}',
    ].join("\n");
    const errs = compile([{ name: "s.cue", text }]).errors;
    assert.deepEqual(
      errs.map((e) => `${e.path.join(".")}: ${e.message}`),
      [
        // cue counts the errors it lists, the nested disjunction's included.
        "y: 4 errors in empty disjunction:",
        "y.b: explicit error (_|_ literal) in source",
        "y.p: 2 errors in empty disjunction:",
        'y.p: conflicting values "" and "z"',
        'y.p: conflicting values "x" and "z"',
      ],
    );
  });

  it("validate with concrete reports non-concrete fields", () => {
    const v = compile([{ name: "v.cue", text: "a: int\nb: 1" }]);
    assert.deepEqual(v.validate(), []);
    const errs = v.validate({ concrete: true });
    assert.equal(errs.length, 1);
    assert.equal(errs[0]?.code, "incomplete");
    assert.deepEqual(errs[0]?.path, ["a"]);
  });

  it("keeps big integers exact in export", () => {
    const r = compile([{ name: "b.cue", text: "a: 9007199254740993\nb: 3" }]).export();
    assert.ok(r.ok);
    assert.deepEqual(r.data, { a: 9007199254740993n, b: 3 });
  });
});

/** `<p>0: 1`, `<p>N: <open><p>(N-1), <p>(N-1)<close>` up to 40, and `x: <p>40`: 2^40 values. */
function doubling(prefix: string, open: string, close: string): string {
  const isLet = prefix.startsWith("let ");
  const name = (i: number) => `${isLet ? prefix.slice(4) : prefix}${i}`;
  const decl = (i: number, v: string) => (isLet ? `let ${name(i)} = ${v}` : `${name(i)}: ${v}`);
  const second = open === "[" ? "" : "r: ";
  const lines = [decl(0, "1")];
  for (let i = 1; i <= 40; i++) lines.push(decl(i, `${open}${name(i - 1)}, ${second}${name(i - 1)}${close}`));
  return `${lines.join("\n")}\nx: ${name(40)}\n`;
}

describe("cue limits", () => {
  const limitCases: { name: string; src: string; opts: object; want?: RegExp }[] = [
    {
      name: "steps",
      src: 'import "list"\na: [for x in list.Range(0, 100000, 1) {x}]',
      opts: { maxSteps: 5000 },
    },
    {
      name: "disjunction expansion",
      src: "a: ({x: 1} | {x: 2} | {x: 3}) & ({y: 1} | {y: 2} | {y: 3}) & ({z: 1} | {z: 2} | {z: 3})",
      opts: { maxDisjuncts: 10 },
    },
    { name: "depth", src: `a: ${"{b: ".repeat(60)}1${"}".repeat(60)}`, opts: { maxDepth: 20 } },
    // 2^40 values in a few lines: as lists (2^40 vertices), as definitions (evaluated once and
    // shared, 2^40 visits by export), through let clauses.
    {
      name: "vertices (doubling lists)",
      src: doubling("_a", "[", "]"),
      opts: { maxVertices: 100_000 },
      want: /^evaluation exceeded 100000 values$/,
    },
    {
      name: "steps (doubling lists)",
      src: doubling("_a", "[", "]"),
      opts: { maxSteps: 200_000 },
      want: /^evaluation exceeded 200000 steps$/,
    },
    {
      name: "steps (doubling definitions)",
      src: doubling("#a", "{l: ", "}"),
      opts: { maxSteps: 200_000 },
      want: /^evaluation exceeded 200000 steps$/,
    },
    {
      name: "steps (doubling lets)",
      src: doubling("let A", "[", "]"),
      opts: { maxSteps: 200_000 },
      want: /^evaluation exceeded 200000 steps$/,
    },
  ];
  for (const c of limitCases) {
    // Unbounded, the doubling documents take minutes and gigabytes: the timeout fails them.
    it(`a ${c.name} limit ends evaluation with a limit error`, { timeout: 120_000 }, () => {
      const v = compile([{ name: "l.cue", text: c.src }], c.opts);
      const r = v.toJSON();
      const errs = [...v.errors, ...(r.ok ? [] : r.errors)];
      assert.ok(
        errs.some((e) => e.code === "limit" && (c.want === undefined || c.want.test(e.message))),
        formatErrors(errs),
      );
    });
  }

  it("a meter makes the limits bound every evaluation of the value together", () => {
    const meter = { steps: 0, vertices: 0 };
    const v = compile([{ name: "m.cue", text: "a: {b: 1, c: [1, 2, 3]}\nd: a.c[1] + 1\n" }], {
      maxSteps: 10_000,
      meter,
    });
    assert.deepEqual(v.errors, []);
    const first = meter.steps;
    assert.ok(first > 0 && meter.vertices > 0);
    assert.equal(v.export().ok, true);
    assert.ok(meter.steps > first, "export draws on the same meter");
    // Spent: every later evaluation of the value is refused at once.
    meter.steps = 10_000;
    const r = v.lookup(["a"])?.export();
    assert.equal(r?.ok, false);
  });

  it("a disjunction of self references resolves without expanding them (c: c | c)", () => {
    // Each `c` is a self reference (`_`); expanding them would double the terms at every level.
    const v = compile([{ name: "c.cue", text: "c: c | c\nd: {x: d.x | d.x | int}" }], { maxSteps: 2000 });
    assert.deepEqual(v.errors, []);
    const r = v.lookup(["c"])?.validate({ concrete: true });
    assert.equal(r?.[0]?.code, "incomplete");
  });

  it("deep nesting never overflows the stack", () => {
    const text = `a: ${"[".repeat(3000)}${"]".repeat(3000)}\nb: ${"{x: ".repeat(3000)}1${"}".repeat(3000)}`;
    const v = compile([{ name: "d.cue", text }]);
    assert.ok(v.errors.length > 0);
  });
});
