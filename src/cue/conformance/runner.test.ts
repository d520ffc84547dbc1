import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as ast from "../syntax/ast.js";
import { parseFile } from "../syntax/parser.js";
import { splitAttrArgs, splitPath } from "./attr-args.js";
import type { Engine, EngineError, EngineValue } from "./engine.js";
import { loadEngine } from "./engine.js";
import { parseDebug, parseErrorListing, toCue } from "./golden.js";
import { runArchive } from "./runner.js";
import { parseTxtar } from "./txtar.js";

/**
 * A stand-in engine that evaluates only literal data (and `_|_` as an error), so the runner's
 * bookkeeping can be tested independently of the evaluator's progress.
 */
type Lit =
  | { t: "struct"; fields: Map<string, Lit> }
  | { t: "json"; text: string }
  | { t: "err"; message: string };

function literal(e: ast.Expr): Lit {
  switch (e.kind) {
    case "Struct": {
      const fields = new Map<string, Lit>();
      for (const d of e.decls) {
        if (d.kind === "Field" && d.label.kind === "Ident") fields.set(d.label.name, literal(d.value));
      }
      return { t: "struct", fields };
    }
    case "Int":
      return { t: "json", text: String(e.value) };
    case "Float":
      return { t: "json", text: e.raw };
    case "String":
      return { t: "json", text: JSON.stringify(e.value) };
    case "Bottom":
      return { t: "err", message: "explicit error (_|_ literal) in source" };
    default:
      throw new Error(`fake engine cannot evaluate ${e.kind}`);
  }
}

function errorsOf(v: Lit, path: string[]): EngineError[] {
  if (v.t === "err") return [{ path, code: "eval", message: v.message, positions: [] }];
  if (v.t === "struct") return [...v.fields].flatMap(([k, x]) => errorsOf(x, [...path, k]));
  return [];
}

function json(v: Lit): string {
  if (v.t === "json") return v.text;
  if (v.t === "struct")
    return `{${[...v.fields].map(([k, x]) => `${JSON.stringify(k)}:${json(x)}`).join(",")}}`;
  return "null";
}

function value(v: Lit, path: string[]): EngineValue {
  const errors = errorsOf(v, path);
  return {
    errors,
    lookup: (p) => {
      let cur: Lit | undefined = v;
      for (const k of p) cur = cur?.t === "struct" ? cur.fields.get(k) : undefined;
      return cur === undefined ? undefined : value(cur, [...path, ...p]);
    },
    export: () => (errors.length > 0 ? { ok: false, errors } : { ok: true, data: JSON.parse(json(v)) }),
    toJSON: () => (errors.length > 0 ? { ok: false, errors } : { ok: true, text: json(v) }),
    validate: () => errors,
  };
}

const fakeEngine: Engine = {
  compile(files) {
    const fields = new Map<string, Lit>();
    for (const f of files) {
      const r = parseFile(f.name, f.text);
      if (r.errors.length > 0) throw new Error(r.errors[0]?.message);
      const s = literal({
        kind: "Struct",
        decls: r.node.decls,
        implicit: false,
        pos: r.node.pos,
        end: r.node.end,
      });
      if (s.t === "struct") for (const [k, x] of s.fields) fields.set(k, x);
    }
    return value({ t: "struct", fields }, []);
  },
  formatErrors: (errors) => errors.map((e) => e.message).join("\n"),
  // Literal structs are never closed.
  inspect: {
    closed: () => false,
    allows: (_v, sel) => sel.kind !== "anyIndex",
  },
};

function run(archive: string, strictPos = false): [string, string][] {
  return runArchive(fakeEngine, archive, "t.txtar", {}, { strictPos }).map((c) => [
    c.name.replace(/^t\.txtar: /, ""),
    c.status,
  ]);
}

describe("runArchive with inline assertions", () => {
  const cases: [string, string, [string, string][]][] = [
    ["eq passes", "-- in.cue --\na: 1 @test(eq, 1)\n", [["a eq", "passed"]]],
    ["eq fails", "-- in.cue --\na: 1 @test(eq, 2)\n", [["a eq", "failed"]]],
    ["int is not float", "-- in.cue --\na: 1 @test(eq, 1.0)\n", [["a eq", "failed"]]],
    [
      "non-literal expectation is unsupported",
      "-- in.cue --\na: 1 @test(eq, int)\n",
      [["a eq", "unsupported"]],
    ],
    [
      "nested field and struct expectation",
      '-- in.cue --\nx: y: {b: "s", c: 2.5} @test(eq, {c: 2.5, b: "s"})\n',
      [["x.y eq", "passed"]],
    ],
    ["extra field fails", "-- in.cue --\nx: {b: 1, c: 2} @test(eq, {b: 1})\n", [["x eq", "failed"]]],
    ["at= navigates", "-- in.cue --\nx: {b: {c: 3}} @test(eq, at=b.c, 3)\n", [["x eq", "passed"]]],
    [
      "err with code and format-style contains",
      '-- in.cue --\ne: _|_ @test(err, code=eval|cycle, contains="explicit %s (_|_ literal)")\n',
      [["e err", "passed"]],
    ],
    [
      "err contains may include the error path, as cue's Error() does",
      '-- in.cue --\ns: {b: _|_ @test(err, contains="s.b: explicit error")}\n',
      [["s.b err", "passed"]],
    ],
    [
      "nested err in an expectation needs CUE equality for the rest",
      "-- in.cue --\nx: {a: 1, b: _|_} @test(eq, {a: 1, b: _|_ @test(err, code=eval)})\n",
      [["x eq", "unsupported"]],
    ],
    ["err on a valid field fails", "-- in.cue --\nv: 1 @test(err)\n", [["v err", "failed"]]],
    ["err code mismatch fails", "-- in.cue --\ne: _|_ @test(err, code=incomplete)\n", [["e err", "failed"]]],
    [
      "err any finds descendants",
      "-- in.cue --\ns: {t: _|_} @test(err, any, code=eval)\n",
      [["s err", "passed"]],
    ],
    [
      "todo directives are not assertions",
      "-- in.cue --\na: 1 @test(eq, 1) @test(eq:todo, 2)\n",
      [["a eq", "passed"]],
    ],
    [
      "the answer a todo form marks as intended is not a failure, nor a pass",
      "-- in.cue --\na: 1 @test(eq, 2) @test(eq:todo, 1)\nb: 1 @test(eq, 2) @test(eq:todo, 3)\n",
      [
        ["a eq", "unsupported"],
        ["b eq", "failed"],
      ],
    ],
    ["v3 overrides", "-- in.cue --\na: 1 @test(eq, 2) @test(eq:v3, 1)\n", [["a eq", "passed"]]],
    [
      "expected failure under @test(todo) is not a failure",
      "-- in.cue --\na: 1 @test(eq, 2) @test(todo, p=1)\n",
      [["a eq", "unsupported"]],
    ],
    [
      "kind of a concrete value",
      "-- in.cue --\na: 1.5 @test(kind=float)\nb: 1 @test(kind=float)\n",
      [
        ["a kind", "passed"],
        ["b kind", "failed"],
      ],
    ],
    [
      "closed and closed=false",
      "-- in.cue --\na: {b: 1} @test(closed=false)\nb: {c: 1} @test(closed)\n",
      [
        ["a closed", "passed"],
        ["b closed", "failed"],
      ],
    ],
    [
      "unknown directives are unsupported",
      '-- in.cue --\na: {b: 1} @test(debugCheck, "x")\n',
      [["a debugCheck", "unsupported"]],
    ],
    [
      "allows with a label, any string and any index",
      '-- in.cue --\na: {b: 1} @test(allows, b) @test(allows=false, string) @test(allows=false, int) @test(allows, "c")\n',
      [
        ["a allows", "passed"],
        ["a allows#2", "failed"],
        ["a allows#3", "passed"],
        ["a allows#4", "passed"],
      ],
    ],
    [
      "permute reorders a struct's fields",
      "-- in.cue --\ns: {\n\t@test(permute, count=2)\n\ta: 1\n\tb: {c: 2}\n}\n",
      [["s permute", "passed"]],
    ],
    [
      "permute count that does not match the fields is unsupported",
      "-- in.cue --\ns: {\n\t@test(permute, count=6)\n\ta: 1\n\tb: 2\n}\n",
      [["s permute", "unsupported"]],
    ],
    [
      "file-level eq",
      "-- in.cue --\na: 1\nb: {c: 2}\n@test(eq, {a: 1, b: {c: 2}})\n",
      [["<root> eq", "passed"]],
    ],
    ["an engine exception fails the cases", "-- in.cue --\na: [1] @test(eq, [1])\n", [["a eq", "failed"]]],
    [
      "eq without a value asserts nothing",
      "-- in.cue --\na: 1 @test(eq)\nb: 2 @test(eq, 2)\n",
      [["b eq", "passed"]],
    ],
    [
      "nested @test in an expectation needs CUE equality (unsupported without it)",
      "-- in.cue --\nx: {a: 1} @test(eq, {a: 1 @test(ignore)})\n",
      [["x eq", "unsupported"]],
    ],
    [
      "a file that does not parse under an experiment still counts its assertions",
      "-- in.cue --\n@experiment(try)\na: 1 @test(eq, 1)\nb: try { c: 2 }\nd: 3 @test(eq, {x: 1 @test(err)}) @test(eq:todo, 4)\n",
      [
        ["in.cue assertion 1", "unsupported"],
        ["in.cue assertion 2", "unsupported"],
      ],
    ],
    [
      "non-standard imports are unsupported",
      '-- in.cue --\nimport "example.com/x"\na: 1 @test(eq, 1)\n',
      [["a eq", "unsupported"]],
    ],
  ];
  for (const [name, archive, want] of cases) {
    it(name, () => assert.deepEqual(run(archive), want));
  }
});

describe("strict positions", () => {
  // The fake engine reports no positions, so only an empty expectation matches.
  const archive =
    "-- in.cue --\n\ne: _|_ @test(err, code=eval, pos=[0:4])\nf: _|_ @test(err, code=eval, pos=[])\n";
  it("are ignored by default", () =>
    assert.deepEqual(
      run(archive).map(([, s]) => s),
      ["passed", "passed"],
    ));
  it("are compared with strictPos", () =>
    assert.deepEqual(
      run(archive, true).map(([, s]) => s),
      ["failed", "passed"],
    ));
});

describe("strict positions with the real engine", () => {
  // The conflict of a is at 2:5 and 3:5 of in.cue; each pos= counts lines from where cue does.
  const cases: [string, string, string][] = [
    [
      "a field attribute counts from its field",
      "x: {\n\ta: 1\n\ta: 2 @test(err, code=eval, pos=[-1:5, 0:5])\n}\n",
      "passed",
    ],
    [
      "a declaration attribute counts from its struct",
      "x: {\n\ta: 1\n\ta: 2\n\n\t@test(err, at=a, code=eval, pos=[1:5, 2:5])\n}\n",
      "passed",
    ],
    [
      "not from the attribute's own line",
      "x: {\n\ta: 1\n\ta: 2\n\n\t@test(err, at=a, code=eval, pos=[-3:5, -2:5])\n}\n",
      "failed",
    ],
  ];
  for (const [name, cue, want] of cases) {
    it(name, async () => {
      const engine = await loadEngine();
      assert.ok(typeof engine !== "string", String(engine));
      if (typeof engine === "string") return;
      const r = runArchive(engine, `-- in.cue --\n${cue}`, "t.txtar", {}, { strictPos: true });
      assert.deepEqual(
        r.map((c) => c.status),
        [want],
        JSON.stringify(r),
      );
    });
  }
});

describe("err with path=, with the real engine", () => {
  // path= names a field below the annotated one (or below a struct around it); an error with the
  // same tail in another part of the file is another field's and does not satisfy it.
  const cases: [string, string, string][] = [
    [
      "the annotated field's own error",
      "y: {\n\tb: 1\n\tb: 2\n\t@test(err, path=b, code=eval)\n}\n",
      "passed",
    ],
    [
      "written from a struct around it",
      "y: {\n\tb: 1\n\tb: 2\n\t@test(err, path=y.b, code=eval)\n}\n",
      "passed",
    ],
    [
      "not another field's error with the same tail",
      "x: {\n\tb: 1\n\tb: 2\n}\ny: {\n\tb: 1\n\t@test(err, path=b, code=eval)\n}\n",
      "failed",
    ],
  ];
  for (const [name, cue, want] of cases) {
    it(name, async () => {
      const engine = await loadEngine();
      assert.ok(typeof engine !== "string", String(engine));
      if (typeof engine === "string") return;
      const r = runArchive(engine, `-- in.cue --\n${cue}`, "t.txtar", {});
      assert.deepEqual(
        r.map((c) => c.status),
        [want],
        JSON.stringify(r),
      );
    });
  }
});

describe("err on an optional field, with the real engine", () => {
  // cue's harness looks the annotated field up with LookupPath, which does not find an optional
  // field: the expectation is that lookup's "field not found", seen at the annotated field.
  const cases: [string, string, string][] = [
    [
      "the failed lookup of the optional field",
      'p?: {\n\ta: 1\n} @test(err, code=incomplete, contains="field not found: p")\n',
      "passed",
    ],
    [
      "not another message",
      'p?: {\n\ta: 1\n} @test(err, code=incomplete, contains="field not found: q")\n',
      "failed",
    ],
    [
      "not on a regular field",
      'p: {\n\ta: 1\n} @test(err, code=incomplete, contains="field not found: p")\n',
      "failed",
    ],
  ];
  for (const [name, cue, want] of cases) {
    it(name, async () => {
      const engine = await loadEngine();
      assert.ok(typeof engine !== "string", String(engine));
      if (typeof engine === "string") return;
      const r = runArchive(engine, `-- in.cue --\n${cue}`, "t.txtar", {});
      assert.deepEqual(
        r.map((c) => c.status),
        [want],
        JSON.stringify(r),
      );
    });
  }
});

describe("eq on an incomplete struct, with the real engine", () => {
  // cue's harness compares with internal/core/diff: a struct whose comprehension waits for a value
  // is still its fields there (the incomplete error is asserted apart, with @test(err)).
  const cases: [string, string, string[]][] = [
    [
      "an incomplete struct equals its fields",
      'x: {\n\td: string\n\tif d != "c" {e: 1}\n\t@test(eq, {d: string})\n\t@test(err, code=incomplete)\n}\n',
      ["passed", "passed"],
    ],
    ["and an expected error", 'x: {\n\td: string\n\tif d != "c" {e: 1}\n\t@test(eq, _|_)\n}\n', ["passed"]],
    ["not other fields", 'x: {\n\td: string\n\tif d != "c" {e: 1}\n\t@test(eq, {d: "c"})\n}\n', ["failed"]],
    [
      "nor a struct with an error that is not incomplete",
      "x: {\n\td: 1\n\td: 2\n\t@test(eq, {d: 1})\n}\n",
      ["failed"],
    ],
  ];
  for (const [name, cue, want] of cases) {
    it(name, async () => {
      const engine = await loadEngine();
      assert.ok(typeof engine !== "string", String(engine));
      if (typeof engine === "string") return;
      const r = runArchive(engine, `-- in.cue --\n${cue}`, "t.txtar", {});
      assert.deepEqual(
        r.map((c) => c.status),
        want,
        JSON.stringify(r),
      );
    });
  }
});

describe("runArchive with golden output", () => {
  const cases: [string, string, string][] = [
    [
      "debug tree matches",
      '-- in.cue --\na: 1\nb: {c: "x"}\n-- out/evalalpha --\n(struct){\n  a: (int){ 1 }\n  b: (struct){\n    c: (string){ "x" }\n  }\n}\n',
      "passed",
    ],
    [
      "debug tree differs",
      "-- in.cue --\na: 2\n-- out/evalalpha --\n(struct){\n  a: (int){ 1 }\n}\n",
      "failed",
    ],
    [
      "error leaf",
      "-- in.cue --\na: _|_\n-- out/eval --\n(struct){\n  a: (_|_){\n    // [eval] explicit error\n  }\n}\n",
      "passed",
    ],
    [
      "non-concrete leaf is unsupported",
      "-- in.cue --\na: 1\n-- out/evalalpha --\n(struct){\n  a: (int){ int }\n}\n",
      "unsupported",
    ],
    [
      "error listing",
      "-- in.cue --\na: _|_\n-- out/evalalpha --\na: explicit error:\n    ./in.cue:1:4\n",
      "passed",
    ],
    ["no golden", "-- in.cue --\na: 1\n", "unsupported"],
    [
      "an error that still shows its fields",
      "-- in.cue --\ns: {a: 1, b: _|_}\n-- out/evalalpha --\nErrors:\ns.b: explicit error\n\nResult:\n(struct){\n  s: (_|_){\n    // [eval]\n    a: (int){ 1 }\n    b: (_|_){\n      // [eval] explicit\n    }\n  }\n}\n",
      "passed",
    ],
  ];
  for (const [name, archive, want] of cases) {
    it(name, () =>
      assert.deepEqual(
        run(archive).map(([, s]) => s),
        [want],
      ),
    );
  }
});

describe("helpers", () => {
  it("splits attribute arguments at top-level commas", () => {
    const body = 'err, code=eval, contains="a, b", args=[x, "y"], {a: 1, b: [2, 3]}';
    assert.deepEqual(
      splitAttrArgs(body, 0, body.length).map((a) => [a.key, a.text]),
      [
        [undefined, "err"],
        ["code", "eval"],
        ["contains", '"a, b"'],
        ["args", '[x, "y"]'],
        [undefined, "{a: 1, b: [2, 3]}"],
      ],
    );
  });

  it("parses debug trees with disjunctions and errors", () => {
    const t = parseDebug(
      '(struct){\n  a: ((int|string)){ |(*(int){ 1 }, (string){ "}" }) }\n  "b c"?: (_|_){\n    // [incomplete] x: "{"\n  }\n  l: (#list){\n    0: (float){ 1.5 }\n  }\n}\n',
    );
    assert.equal(t?.t, "struct");
    assert.deepEqual(t?.t === "struct" ? t.fields.map((f) => [f.label, f.mark, f.value.t]) : [], [
      ["a", "", "other"],
      ["b c", "?", "error"],
      ["l", "", "list"],
    ]);
  });

  it("rewrites debug trees as CUE", () => {
    const cases: [string, string | undefined][] = [
      ["(int){ &(>=1, <=5, int) }", "(>=1) & (<=5) & (int)"],
      ["(int){ |(*(int){ 1 }, (int){ 2 }) }", "*(1) | (2)"],
      [
        '(struct){\n  "a-b"?: (string){ string }\n  #D: (#list){\n    0: (bool){ true }\n  }\n}',
        '{"a-b"?: string, #D: [true]}',
      ],
      ["(list){\n  0: (int){ 1 }\n}", undefined],
      ["(_|_){\n  // [eval] x\n}", "_|_"],
    ];
    for (const [debug, cue] of cases) {
      const t = parseDebug(debug);
      assert.ok(t !== undefined, debug);
      assert.equal(toCue(t), cue);
    }
  });

  it("reads txtar archives", () => {
    const a = parseTxtar("comment line\n-- a.cue --\nx: 1\n-- out/eval --\n-- b/c.cue --\ny: 2\nno newline");
    assert.equal(a.comment, "comment line\n");
    assert.deepEqual(
      a.files.map((f) => [f.name, f.data]),
      [
        ["a.cue", "x: 1\n"],
        ["out/eval", ""],
        ["b/c.cue", "y: 2\nno newline\n"],
      ],
    );
    assert.deepEqual(parseTxtar("just text\n").files, []);
  });

  it("splits CUE paths", () => {
    assert.deepEqual(splitPath('a.#b."c.d"._e.0'), ["a", "#b", "c.d", "_e", "0"]);
  });

  it("parses error listings", () => {
    assert.deepEqual(
      parseErrorListing('a.b: conflicting values:\n    ./in.cue:1:2\nnested."_": bad:\n    ./in.cue:3:4\n'),
      ["a\u0000b", "nested\u0000_"],
    );
  });
});

/**
 * The fake engine, except that `b: 1` declared before `a` becomes `b` of `order` (an error or
 * another value): an evaluator whose answer depends on the order of a struct's fields.
 */
function orderEngine(order: string): Engine {
  return {
    ...fakeEngine,
    compile(files, options) {
      const reordered = files.map((f) => {
        const b = f.text.indexOf("\tb: 1");
        const a = f.text.indexOf("\ta: 1");
        return b >= 0 && a > b ? { ...f, text: f.text.replace("\tb: 1", `\tb: ${order}`) } : f;
      });
      return fakeEngine.compile(reordered, options);
    },
  };
}

describe("silent wrong answers under @test(permute)", () => {
  const struct = "-- in.cue --\ns: {\n\t@test(permute, count=2)\n\ta: 1\n\tb: 1\n}";
  // [name, archive, the other order's b, expected [case, status, silent]]
  const cases: [string, string, string, [string, string, boolean][]][] = [
    [
      "another order that errs, beside an original order eq passes: loud",
      `${struct} @test(eq, {a: 1, b: 1})\n`,
      "_|_",
      [
        ["s eq", "passed", false],
        ["s permute", "failed", false],
      ],
    ],
    [
      "another order that errs, with no eq on the struct: silent (which order is CUE's is unknown)",
      `${struct}\n`,
      "_|_",
      [["s permute", "failed", true]],
    ],
    [
      "another order that errs, beside a failing eq: silent",
      `${struct} @test(eq, {a: 1, b: 2})\n`,
      "_|_",
      [
        ["s eq", "failed", true],
        ["s permute", "failed", true],
      ],
    ],
    [
      "another order with another value and no error: silent",
      `${struct} @test(eq, {a: 1, b: 1})\n`,
      "2",
      [
        ["s eq", "passed", false],
        ["s permute", "failed", true],
      ],
    ],
  ];
  for (const [name, archive, order, want] of cases) {
    it(name, () => {
      const got = runArchive(orderEngine(order), archive, "t.txtar", {}).map((c) => [
        c.name.replace(/^t\.txtar: /, ""),
        c.status,
        c.silent === true,
      ]);
      assert.deepEqual(got, want);
    });
  }
});

describe("silent wrong answers", () => {
  // [name, archive, expected [case, status, silent]]
  const cases: [string, string, [string, string, boolean][]][] = [
    ["a different value, no error", "-- in.cue --\na: 1 @test(eq, 2)\n", [["a eq", "failed", true]]],
    ["a value where CUE errors", "-- in.cue --\nv: 1 @test(err)\n", [["v err", "failed", true]]],
    [
      "an error of another code is not silent",
      "-- in.cue --\ne: _|_ @test(err, code=incomplete)\n",
      [["e err", "failed", false]],
    ],
    [
      "an error where CUE has a value is not silent",
      "-- in.cue --\ns: {b: _|_} @test(eq, {b: 1})\n",
      [["s eq", "failed", false]],
    ],
    [
      "an error on a sibling does not make it loud",
      "-- in.cue --\ns: {b: 1 @test(eq, 2), c: _|_}\n",
      [["s.b eq", "failed", true]],
    ],
    ["a pass is not silent", "-- in.cue --\na: 1 @test(eq, 1)\n", [["a eq", "passed", false]]],
    [
      "golden: a value where the golden has an error",
      "-- in.cue --\na: 1\n-- out/eval --\n(struct){\n  a: (_|_){\n    // [eval] x\n  }\n}\n",
      [["t.txtar (out/eval)", "failed", true]],
    ],
    [
      "golden: a different value",
      "-- in.cue --\na: 1\n-- out/eval --\n(struct){\n  a: (int){ 2 }\n}\n",
      [["t.txtar (out/eval)", "failed", true]],
    ],
  ];
  for (const [name, archive, want] of cases) {
    it(name, () => {
      const got = runArchive(fakeEngine, archive, "t.txtar", {}).map((c) => [
        c.name.replace(/^t\.txtar: /, ""),
        c.status,
        c.silent === true,
      ]);
      assert.deepEqual(got, want);
    });
  }
});
