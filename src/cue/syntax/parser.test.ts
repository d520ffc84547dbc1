import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type * as ast from "./ast.js";
import { identLabel } from "./derived-nodes.js";
import { parseExpression, parseFile } from "./parser.js";

/** A compact s-expression rendering of expressions, so tables stay readable. */
function show(e: ast.Expr | ast.Comprehension | ast.Decl | ast.Label): string {
  switch (e.kind) {
    case "Ident":
      return e.name;
    case "Int":
      return `${e.value}`;
    case "Float":
      return `f${e.text}`;
    case "String":
      return JSON.stringify(e.value);
    case "Bytes":
      return `b[${[...e.value].join(",")}]`;
    case "Interpolation":
      return `(interp ${e.parts.map((p) => (typeof p === "string" ? JSON.stringify(p) : show(p))).join(" ")})`;
    case "Bool":
      return `${e.value}`;
    case "Null":
      return "null";
    case "Bottom":
      return "_|_";
    case "Struct":
      return `{${e.decls.map(show).join(", ")}}${e.implicit ? "i" : ""}`;
    case "List":
      return `[${[...e.elems.map(show), ...(e.ellipsis ? [show(e.ellipsis)] : [])].join(", ")}]`;
    case "Paren":
      return `(${show(e.expr)})`;
    case "Unary":
      return `(${e.op}${show(e.expr)})`;
    case "Binary":
      return `(${show(e.left)} ${e.op} ${show(e.right)})`;
    case "Postfix":
      return `(${show(e.expr)}${e.op})`;
    case "Selector":
      return `${show(e.expr)}.${show(e.sel)}`;
    case "Index":
      return `${show(e.expr)}[${show(e.index)}]`;
    case "Slice":
      return `${show(e.expr)}[${e.low ? show(e.low) : ""}:${e.high ? show(e.high) : ""}]`;
    case "Call":
      return `${show(e.fn)}(${e.args.map(show).join(", ")})`;
    case "Alias":
      return `${e.ident.name}=${show(e.expr)}`;
    case "BadExpr":
      return "BAD";
    case "Field": {
      const mark = e.constraint === "optional" ? "?" : e.constraint === "required" ? "!" : "";
      const attrs = e.attributes.map((a) => ` @${a.name}(${a.body})`).join("");
      const key = e.keyAlias ? `${e.keyAlias.name}~` : "";
      return `${key}${e.alias ? `${e.alias.name}=` : ""}${show(e.label)}${mark}: ${show(e.value)}${attrs}`;
    }
    case "DynamicLabel":
      return `(${e.alias ? `${e.alias.name}=` : ""}${show(e.expr)})`;
    case "PatternLabel":
      return `[${e.alias ? `${e.alias.name}=` : ""}${show(e.expr)}]`;
    case "Let":
      return `let ${e.ident.name}=${show(e.expr)}`;
    case "Embed":
      return `embed ${show(e.expr)}`;
    case "Ellipsis":
      return `...${e.type ? show(e.type) : ""}`;
    case "Attribute":
      return `@${e.name}(${e.body})`;
    case "BadDecl":
      return "BADDECL";
    case "Comprehension":
      return `(${e.clauses
        .map((c) =>
          c.kind === "For"
            ? `for ${c.key ? `${c.key.name},` : ""}${c.value.name} in ${show(c.source)}`
            : c.kind === "If"
              ? `if ${show(c.condition)}`
              : c.kind === "Try"
                ? `try${c.ident ? ` ${c.ident.name}=${c.expr ? show(c.expr) : ""}` : ""}`
                : show(c),
        )
        .join(" ")} ${show(e.value)}${e.fallback ? ` else ${show(e.fallback)}` : ""})`;
    default: {
      const never: never = e;
      return String(never);
    }
  }
}

function expr(src: string): string {
  const r = parseExpression("t.cue", src);
  assert.deepEqual(
    r.errors.map((e) => e.message),
    [],
    `unexpected errors for ${src}`,
  );
  return show(r.node);
}

function decls(src: string): string {
  const r = parseFile("t.cue", src);
  assert.deepEqual(
    r.errors.map((e) => `${e.pos.line}:${e.pos.column} ${e.message}`),
    [],
    `unexpected errors for ${src}`,
  );
  return r.node.decls.map(show).join("; ");
}

describe("parseExpression", () => {
  const cases: [string, string][] = [
    ["a | b & c", "(a | (b & c))"],
    ["#A... & b.c...", "((#A...) & (b.c...))"],
    ["a & b || c && d", "(a & (b || (c && d)))"],
    ["a + b * c == d - e", "((a + (b * c)) == (d - e))"],
    ["a / b * c", "((a / b) * c)"],
    ["*1 | 2", "((*1) | 2)"],
    [">=0 & <10", "((>=0) & (<10))"],
    ['=~"^a" & !~"b"', '((=~"^a") & (!~"b"))'],
    ["!=null", "(!=null)"],
    ["-x", "(-x)"],
    ["!a", "(!a)"],
    ["a.b.c", "a.b.c"],
    ['a."b-c"', 'a."b-c"'],
    ["a[1]", "a[1]"],
    ["a[1:2]", "a[1:2]"],
    ["f(1, 2,)", "f(1, 2)"],
    ['strings.Join(x, "-")', 'strings.Join(x, "-")'],
    ["div(7, 2)", "div(7, 2)"],
    ["_|_", "_|_"],
    ["_", "_"],
    ["null", "null"],
    ["true", "true"],
    ["[1, 2, ...int]", "[1, 2, ...int]"],
    ["[...]", "[...]"],
    ["[for x in y {x}]", "[(for x in y {embed x})]"],
    ["{a: 1, b: 2}", "{a: 1, b: 2}"],
    ["{}", "{}"],
    ["(a)", "(a)"],
    ["1_000", "1000"],
    ["0", "0"],
    ["1023 + 1024", "(1023 + 1024)"],
    ["999999999999999", "999999999999999"],
    ["1000000000000000", "1000000000000000"],
    ["0x1F", "31"],
    ["0o17", "15"],
    ["0b101", "5"],
    ["1K", "1000"],
    ["1.5G", "1500000000"],
    ["1.3Ki", "1331"],
    ["2Mi", "2097152"],
    ["1.5", "f1.5"],
    [".5", "f0.5"],
    ["1.", "f1.0"],
    ["1e3", "f1e3"],
    ["6.67428e-11", "f6.67428e-11"],
    ["072.40", "f072.40"],
    ["170_141_183_460_469_231_731_687_303_715_884_105_727", "170141183460469231731687303715884105727"],
    ['"a\\tb\\n"', '"a\\tb\\n"'],
    ['"\\u65e5\\U00008a9e"', '"日語"'],
    ["'\\xff\\101'", "b[255,65]"],
    ["'é'", "b[195,169]"],
    ['"x\\(a + 1)y"', '(interp "x" (a + 1) "y")'],
    ['"\\(a)"', "(interp a)"],
    ['"a\\("b\\(c)")d"', '(interp "a" (interp "b" c) "d")'],
    ['#"a\\(b)"#', '"a\\\\(b)"'],
    ['#"a\\#(b)c"#', '(interp "a" b "c")'],
    ['#"say "hi""#', '"say \\"hi\\""'],
    ['"""\n    a\n      b\n    """', '"a\\n  b"'],
    ['"""\n\ta\n\n\tb\n\t"""', '"a\\n\\nb"'],
    ["'''\n  x\n  '''", "b[120]"],
    ['"""\n    x\\(y)z\n    """', '(interp "x" y "z")'],
    ['#"""\n  x\\(y) \\#(z)\n  """#', '(interp "x\\\\(y) " z)'],
    ["'''\n  \\(q)\\x41\n  '''", '(interp q "A")'],
    ['"""\r\n  l1\r\n  l2\r\n  """', '"l1\\nl2"'],
    ['"""\n  a \\\n  b\n  """', '"a b"'],
    ['"\\uD83D\\uDE00"', '"😀"'],
    ['#"a\\#nb"#', '"a\\nb"'],
    ['##"x"#y"##', '"x\\"#y"'],
    ["'\\377\\x00'", "b[255,0]"],
    ['"\\a\\b\\f\\v\\/"', '"\\u0007\\b\\f\\u000b/"'],
    ["1.5Mi", "1572864"],
    ["0.5K", "500"],
    ["-1Ki", "(-1024)"],
    ["1e-3", "f1e-3"],
    ["0X1f", "31"],
    ["a\n| b", "a"],
  ];
  for (const [src, want] of cases) {
    it(JSON.stringify(src), () => {
      if (src === "a\n| b") {
        // A newline ends the expression (comma insertion), so the operator on the next line is an error.
        const r = parseExpression("t.cue", src);
        assert.ok(r.errors.length > 0);
        return;
      }
      assert.equal(expr(src), want);
    });
  }
});

describe("parseFile declarations", () => {
  const cases: [string, string][] = [
    ["a: 1\nb: 2", "a: 1; b: 2"],
    ["a: 1, b: 2", "a: 1; b: 2"],
    ["a:1\nb :2\nc\t: 3", "a: 1; b: 2; c: 3"],
    ["a: b: 1 @x()\nc: d?: 2", "a: {b: 1 @x()}i; c: {d?: 2}i"],
    ["a: b: c: 1", "a: {b: {c: 1}i}i"],
    ["a?: int\nb!: string", "a?: int; b!: string"],
    ["#A: {x: int}", "#A: {x: int}"],
    ["_h: 1\n_#hd: 2\n$x: 3", "_h: 1; _#hd: 2; $x: 3"],
    ['"a-b": 1', '"a-b": 1'],
    ['"\\(k)x": 1', '(interp k "x"): 1'],
    ["(k): 1\n(k)?: 2", "(k): 1; (k)?: 2"],
    ["[string]: int", "[string]: int"],
    ["[N=string]: {name: N}", "[N=string]: {name: N}"],
    ['[=~"^[a-z]+$"]: string', '[(=~"^[a-z]+$")]: string'],
    ["X=a: 1", "X=a: 1"],
    ["a~X: 1\nb~(K,V)?: 2\nc~(_,W): 3", "X=a: 1; K~V=b?: 2; W=c: 3"],
    ['("d")~(K,V): 1\n[string]~(L,_): 2\n[int]~F: 3', 'V=(K="d"): 1; [L=string]: 2; F=[int]: 3'],
    ["a: X={x: X.y}", "a: X={x: X.y}"],
    ["let x = 1\na: x", "let x=1; a: x"],
    ["#B\na: 1", "embed #B; a: 1"],
    ["a: {...}", "a: {...}"],
    ["a: {...string}", "a: {...string}"],
    ["for k, v in s { (k): v }", "(for k,v in s {(k): v})"],
    ["try x = a? { b: x } else { c: 1 }\ntry { d: e? }", "(try x=(a?) {b: x} else {c: 1}); (try {d: (e?)})"],
    [
      "for x in l {x} fallback {y: 1}\ntry: 1\na?: int",
      "(for x in l {embed x} else {y: 1}); try: 1; a?: int",
    ],
    ["for x in s\nif x > 1\nlet y = x { a: y }", "(for x in s if (x > 1) let y=x {a: y})"],
    ["if a { b: 1 }", "(if a {b: 1})"],
    ["if !a { b: 1 }", "(if (!a) {b: 1})"],
    ["if: 1\nfor: 2\nlet: 3\nin: 4", "if: 1; for: 2; let: 3; in: 4"],
    ["null: 1\ntrue: 2", "null: 1; true: 2"],
    ["a: 1 @go(A) @json(,omitempty)", "a: 1 @go(A) @json(,omitempty)"],
    ["a: 1 @test(eq, {a: (1)})", "a: 1 @test(eq, {a: (1)})"],
    ["@test(eq, {a: 1})\na: 1", "@test(eq, {a: 1}); a: 1"],
    [
      'a: {\n\t@jsonschema(id="x")\n\tb: 1\n}',
      '@jsonschema(id="x"), b: 1'.length > 0 ? 'a: {@jsonschema(id="x"), b: 1}' : "",
    ],
    ['a\n: { "k": "v"\n, "k2"\n: 2\n}\n, b: [\n 0\n, 1\n]', 'a: {"k": "v", "k2": 2}; b: [0, 1]'],
    ["a: [\n\t1\n\t2\n]", "a: [1, 2]"],
    ["// c\na: 1 // d\n// e", "a: 1"],
  ];
  for (const [src, want] of cases) {
    it(JSON.stringify(src), () => assert.equal(decls(src), want));
  }

  // `identLabel` answers what `label` does for identifier labels, whichever way the field was parsed.
  const identLabels: [string, string | undefined][] = [
    ["a: 1", "a"],
    ["a : 1", "a"],
    ["a?: 1", "a"],
    ["X=a: 1", "a"],
    ["a: 1 @x()", "a"],
    ["a~(K,V): 1", "a"],
    ["#D: 1", "#D"],
    ["_#h: 1", "_#h"],
    ["null: 1", "null"],
    ["for: 1", "for"],
    ['"a": 1', undefined],
    ["(k): 1", undefined],
    ["[string]: 1", undefined],
  ];
  for (const [src, want] of identLabels) {
    it(`identLabel of ${JSON.stringify(src)}`, () => {
      const r = parseFile("t.cue", src);
      assert.deepEqual(r.errors, [], src);
      const f = r.node.decls[0] as ast.Field;
      assert.equal(f.kind, "Field");
      assert.equal(identLabel(f), want);
      assert.equal(f.label.kind === "Ident" ? f.label.name : undefined, want);
    });
  }

  it("package, imports and file attributes", () => {
    const r = parseFile(
      "t.cue",
      '@if(x)\npackage foo\n\nimport "strings"\nimport (\n\tl "list"\n\t"math"\n)\na: 1\n',
    );
    assert.deepEqual(r.errors, []);
    assert.equal(r.node.packageName?.name, "foo");
    assert.deepEqual(
      r.node.imports.map((i) => [i.name?.name, i.path]),
      [
        [undefined, "strings"],
        ["l", "list"],
        [undefined, "math"],
      ],
    );
    assert.deepEqual(
      r.node.fileAttributes.map((a) => a.name),
      ["if"],
    );
    assert.equal(r.node.decls.length, 1);
  });

  it("positions are 1-based lines and UTF-16 columns", () => {
    const r = parseFile("t.cue", 'a: 1\nbé: "x" & 2\n');
    const f = r.node.decls[1] as ast.Field;
    assert.equal(f.pos.line, 2);
    assert.equal(f.pos.column, 1);
    const b = f.value as ast.Binary;
    assert.equal(b.opPos.line, 2);
    assert.equal(b.opPos.column, 9);
    assert.equal(b.right.pos.column, 11);
    assert.equal(b.right.pos.file, "t.cue");
    assert.equal(b.end, r.source.text.indexOf("2\n") + 1);
  });

  // Where each kind of node starts and ends, including nodes that take their position from a child
  // (fields, aliases, binary operators, selectors, calls, implicit structs). Rendered as
  // `line:column-endLine:endColumn` of the node picked from the first declaration.
  const spans: [string, string, (d: ast.Decl) => ast.Node, string][] = [
    ["field", "a: 1", (d) => d, "1:1-1:5"],
    ["field with alias", "\n  X=a: 1", (d) => d, "2:3-2:9"],
    ["optional field with attribute", "a?: 1 @x(y)", (d) => d, "1:1-1:12"],
    ["label", "  a: 1", (d) => (d as ast.Field).label, "1:3-1:4"],
    ["label before a spaced colon", "abc : 1", (d) => (d as ast.Field).label, "1:1-1:4"],
    ["label split from its colon", "ab\n: 1", (d) => (d as ast.Field).label, "1:1-1:3"],
    ["field split from its colon", "ab\n: 1", (d) => d, "1:1-2:4"],
    [
      "inner shorthand field",
      "a: bc: 1",
      (d) => ((d as ast.Field).value as ast.StructLit).decls[0] as ast.Decl,
      "1:4-1:9",
    ],
    [
      "inner shorthand label",
      "a: bc: 1",
      (d) => (((d as ast.Field).value as ast.StructLit).decls[0] as ast.Field).label,
      "1:4-1:6",
    ],
    ["quoted label", '"a b": 1', (d) => (d as ast.Field).label, "1:1-1:6"],
    ["pattern label", "[N=string]: 1", (d) => (d as ast.Field).label, "1:1-1:11"],
    ["implicit struct", "a: b: c: 1", (d) => (d as ast.Field).value, "1:4-1:11"],
    ["value alias", "a: X=1", (d) => (d as ast.Field).value, "1:4-1:7"],
    ["binary", "a: x & y | z", (d) => (d as ast.Field).value, "1:4-1:13"],
    ["selector", "a: x.y.z", (d) => (d as ast.Field).value, "1:4-1:9"],
    ["call", "a: len([1])", (d) => (d as ast.Field).value, "1:4-1:12"],
    ["index", "a: x[0]", (d) => (d as ast.Field).value, "1:4-1:8"],
    ["unary", "a: >=10", (d) => (d as ast.Field).value, "1:4-1:8"],
    ["multiline string", 'a: """\n\tx\n\t"""', (d) => (d as ast.Field).value, "1:4-3:5"],
    ["plain string", 'a: "xyz"', (d) => (d as ast.Field).value, "1:4-1:9"],
    ["plain int", "a: 65535", (d) => (d as ast.Field).value, "1:4-1:9"],
    ["int with a multiplier", "a: 1Ki", (d) => (d as ast.Field).value, "1:4-1:7"],
    ["string with an escape", 'a: "x\\ty"', (d) => (d as ast.Field).value, "1:4-1:10"],
    ["raw string", 'a: #"x"#', (d) => (d as ast.Field).value, "1:4-1:9"],
    ["struct", "a: {\n  b: 1\n}", (d) => (d as ast.Field).value, "1:4-3:2"],
    ["embedding", "#A & {}", (d) => d, "1:1-1:8"],
    ["embedded alias", "X=#A", (d) => d, "1:1-1:5"],
    ["comprehension", "for x in y {}", (d) => d, "1:1-1:14"],
    ["let", "let x = 1 + 2", (d) => d, "1:1-1:14"],
    ["bool label", "true: 1", (d) => (d as ast.Field).label, "1:1-1:5"],
    ["postfix", "a: #A... & b", (d) => ((d as ast.Field).value as ast.Binary).left, "1:4-1:9"],
  ];
  for (const [name, src, pick, want] of spans) {
    it(`span of ${name}`, () => {
      const r = parseFile("t.cue", src);
      assert.deepEqual(r.errors, [], src);
      const d = r.node.decls[0];
      assert.ok(d !== undefined);
      const n = pick(d);
      const end = r.source.lineColumn(n.end);
      assert.equal(`${n.pos.line}:${n.pos.column}-${end.line}:${end.column}`, want);
      assert.equal(n.pos.file, "t.cue");
    });
  }
});

describe("syntax errors", () => {
  const cases: [string, string, string][] = [
    ["a: 1 b: 2", "1:6", "expected ',' or newline after declaration"],
    ["a: {", "1:5", "expected '}'"],
    ["a: [1, 2", "1:9", "expected ']'"],
    ["a: )", "1:4", "expected operand"],
    ['a: "abc', "1:4", "string literal not terminated"],
    ['a: "a\\qb"', "1:6", "unknown escape sequence"],
    ['a: "\\xff"', "1:5", "only allowed in bytes"],
    ["a: 0755", "1:4", "leading zero"],
    ["a: 1__0", "1:4", "illegal '_'"],
    ["a: `", "1:4", "illegal character U+0060"],
    ["a~X 1", "1:5", "expected ':' after alias"],
    ["_: 1", "1:1", "cannot use _ as label"],
    ["let _ = 1", "1:5", "cannot use _ as alias or let clause"],
    ["[string]?: 1", "1:9", "pattern constraints cannot be optional"],
    ['a: """\n  x\n y\n  """', "3:1", "invalid whitespace"],
    ['a: """\n    x\n  \n    """', "3:1", "invalid whitespace"],
    ['a: """x\n"""', "1:7", "expected newline after multiline quote"],
    ['a: "\\(b"', "1:5", "interpolation not terminated"],
    ['a: "\\uD83D"', "1:5", "invalid Unicode code point"],
    ['a: "x\\\ny"', "1:6", "string literal not terminated"],
    ['a: """\n  x\\\n  """', "2:4", "last newline of a multiline string cannot be escaped"],
    ["a: '\\400'", "1:5", "octal escape value > 255"],
    ['a: "\\U00110000"', "1:5", "invalid Unicode code point"],
    ['a: "\\u12"', "1:5", "invalid escape sequence"],
    ["a: '\\x4'", "1:5", "invalid escape sequence"],
    ["a: 1Ke3", "1:6", "expected ',' or newline after declaration, found 'e3'"],
    ["a: ..", "1:4", "illegal token '..'"],
    ["a: @foo(", "1:4", "attribute missing ')'"],
    ["a: b: for x in y {}", "1:7", "expected expression"],
  ];
  for (const [src, at, msg] of cases) {
    it(JSON.stringify(src), () => {
      const r = parseFile("t.cue", src);
      const first = r.errors[0];
      assert.ok(first !== undefined, "expected an error");
      assert.equal(`${first.pos.line}:${first.pos.column}`, at, first.message);
      assert.ok(first.message.includes(msg), `${first.message} should contain ${msg}`);
      assert.equal(first.code, "syntax");
    });
  }

  it("reports deep nesting as a limit error instead of overflowing the stack", () => {
    for (const src of [
      `a: ${"[".repeat(100_000)}`,
      `a: ${"{b: ".repeat(50_000)}`,
      `a: ${"-".repeat(100_000)}1`,
    ]) {
      const r = parseFile("t.cue", src);
      assert.ok(
        r.errors.some((e) => e.code === "limit"),
        r.errors.map((e) => e.message).join("; "),
      );
    }
  });

  it("stops after maxErrors", () => {
    const r = parseFile("t.cue", "a: )\n".repeat(100), { maxErrors: 5 });
    assert.equal(r.errors.length, 5);
  });
});
