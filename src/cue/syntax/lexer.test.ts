import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createLexer } from "./lexer.js";

/** Token types, with implicit commas shown as `;` and literal text for identifiers and numbers. */
function tokens(src: string): string {
  const l = createLexer(src);
  const out: string[] = [];
  for (let i = 0; i < 1000; i++) {
    const t = l.next();
    if (t.type === "EOF") break;
    if (t.type === "," && t.implicit) out.push(";");
    else if (t.type === "IDENT" || t.type === "INT" || t.type === "FLOAT")
      out.push(src.slice(t.start, t.end));
    else if (t.type === "ATTR") out.push(`@${t.attr?.name}`);
    else out.push(t.type);
  }
  return out.join(" ");
}

describe("lexer", () => {
  const cases: [string, string][] = [
    ["a: 1\nb: 2", "a : 1 ; b : 2 ;"],
    ["a: {\n}\n", "a : { } ;"],
    ["a: [\n1,\n2\n]", "a : [ 1 , 2 ; ] ;"],
    ["x?\ny!: 1", "x ? ; y ! : 1 ;"],
    ["a: b // comment\nc: d", "a : b ; c : d ;"],
    ["a: ...\n", "a : ... ;"],
    ["_|_ _ _x #D _#d $v __x αβ", "BOTTOM _ _x #D _#d $v __x αβ ;"],
    ["a\n, b\n: 1", "a , b : 1 ;"],
    ["&& || == != <= >= =~ !~ < > = ! & | + - * /", "&& || == != <= >= =~ !~ < > = ! & | + - * /"],
    ["1 1.5 .5 1e3 1.e2 0x1F 0o7 0b1 1_000 1Ki 1.5M", "1 1.5 .5 1e3 1.e2 0x1F 0o7 0b1 1_000 1Ki 1.5M ;"],
    ["for x in 1.5", "for x in 1.5 ;"],
    ["a.b.c", "a . b . c ;"],
    ['"s" \'b\' #"r"# """\n  m\n  """', "STRING STRING STRING STRING ;"],
    ["a: 1 @go(A)\nb: 2", "a : 1 @go ; b : 2 ;"],
    ['@test(eq, {a: ")"})', "@test ;"],
    ["a ` b", "a ILLEGAL b ;"],
    ["a~X: 1", "a ~ X : 1 ;"],
    ['#: "x": 1', "# : STRING : 1 ;"],
    ["a..b", "a ILLEGAL b ;"],
  ];
  for (const [src, want] of cases) {
    it(JSON.stringify(src), () => assert.equal(tokens(src), want));
  }

  it("reports unterminated strings and bad characters with offsets", () => {
    const l = createLexer('a: "x\nb: `');
    while (l.next().type !== "EOF") {
      // drain
    }
    assert.deepEqual(
      l.errors.map((e) => [e.offset, e.message]),
      [
        [5, "string literal not terminated"],
        [9, "illegal character U+0060 '`'"],
      ],
    );
  });

  it("collects comments", () => {
    const l = createLexer("// one\na: 1 // two\n");
    while (l.next().type !== "EOF") {
      // drain
    }
    assert.deepEqual(
      l.comments.map((c) => c.text),
      [" one", " two"],
    );
  });
});
