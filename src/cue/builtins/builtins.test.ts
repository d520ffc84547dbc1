import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile } from "../index.js";
import "./index.js";

/** Evaluates `x: EXPR` with the imports and returns x's JSON, or `error: <code>`. */
function evalX(imports: string, expr: string): string {
  const v = compile([{ name: "t.cue", text: `${imports}\nx: ${expr}\n` }]);
  const x = v.lookup(["x"])?.toJSON(0);
  if (x === undefined) return `error: ${v.errors.map((e) => e.code).join(",") || "missing"}`;
  if (!x.ok) return `error: ${x.errors[0]?.code}`;
  return x.text;
}

describe("builtin packages", () => {
  const cases: [string, string, string][] = [
    ['import "strconv"', 'strconv.Atoi("42")', "42"],
    ['import "strconv"', 'strconv.Atoi("4x")', "error: eval"],
    ['import "strconv"', "strconv.Itoa(-7)", '"-7"'],
    ['import "strconv"', 'strconv.ParseInt("ff", 16, 64)', "255"],
    ['import "strconv"', 'strconv.ParseInt("0x1f", 0, 64)', "31"],
    ['import "strconv"', 'strconv.ParseInt("300", 10, 8)', "error: eval"],
    ['import "strconv"', 'strconv.ParseUint("-1", 10, 64)', "error: eval"],
    ['import "strconv"', 'strconv.ParseFloat("1.5e3", 64)', "1500.0"],
    ['import "strconv"', 'strconv.ParseBool("T")', "true"],
    ['import "strconv"', "strconv.FormatInt(255, 16)", '"ff"'],
    ['import "strconv"', "strconv.FormatInt(-5, 2)", '"-101"'],
    ['import "strconv"', "strconv.FormatFloat(1.5, 102, 2, 64)", '"1.50"'],
    ['import "strconv"', 'strconv.Quote("a\\"b")', '"\\"a\\\\\\"b\\""'],
    ['import "strconv"', 'strconv.Unquote("\\"x\\\\ty\\"")', '"x\\ty"'],
    ['import "encoding/base64"', 'base64.Encode(null, "hello")', '"aGVsbG8="'],
    ['import "encoding/base64"', 'base64.Decode(null, "aGVsbG8=")', '"aGVsbG8="'],
    ['import "encoding/base64"', 'base64.Decode(null, "!!")', "error: eval"],
    ['import "encoding/hex"', 'hex.Encode("hi")', '"6869"'],
    [
      'import "encoding/csv"',
      'csv.Encode([["a", "b c"], [1, "x,y"], [" s", "q\\"q"]])',
      JSON.stringify('a,b c\n1,"x,y"\n" s","q""q"\n'),
    ],
    [
      'import "encoding/csv"',
      'csv.Decode("a,b\\n\\"x,y\\",\\"q\\"\\"q\\"\\r\\n\\n3,4")',
      '[["a","b"],["x,y","q\\"q"],["3","4"]]',
    ],
    ['import "encoding/csv"', 'csv.Decode("a,b\\nc")', "error: eval"],
    ['import "encoding/csv"', 'csv.Decode("a\\"b")', "error: eval"],
    ['import "math/bits"', "bits.And(12, 10)", "8"],
    ['import "math/bits"', "bits.Or(12, 10)", "14"],
    ['import "math/bits"', "bits.Xor(12, 10)", "6"],
    ['import "math/bits"', "bits.Clear(12, 10)", "4"],
    ['import "math/bits"', "bits.Lsh(1, 100)", "1267650600228229401496703205376"],
    ['import "math/bits"', "bits.Rsh(1267650600228229401496703205376, 99)", "2"],
    ['import "math/bits"', "bits.At(5, 2)", "1"],
    ['import "math/bits"', "bits.At(5, 1)", "0"],
    ['import "math/bits"', "bits.Set(5, 1, 1)", "7"],
    ['import "math/bits"', "bits.Set(5, 0, 0)", "4"],
    ['import "math/bits"', "bits.OnesCount(255)", "8"],
    ['import "math/bits"', "bits.Len(256)", "9"],
    ['import "math/bits"', "bits.Lsh(1, -1)", "error: eval"],
    ['import "encoding/hex"', 'hex.Decode("6869")', '"aGk="'],
    [
      'import "encoding/yaml"',
      'yaml.Marshal({a: 1, b: "x", c: [1, 2], d: {e: true}, f: "true", g: []})',
      JSON.stringify('a: 1\nb: x\nc:\n  - 1\n  - 2\nd:\n  e: true\nf: "true"\ng: []\n'),
    ],
    ['import "encoding/yaml"', 'yaml.Marshal([{a: 1, b: 2}, "s"])', JSON.stringify("- a: 1\n  b: 2\n- s\n")],
    ['import "encoding/yaml"', 'yaml.Marshal({s: "l1\\nl2"})', JSON.stringify("s: |-\n  l1\n  l2\n")],
    ['import "encoding/yaml"', "yaml.MarshalStream([{a: 1}, 2])", JSON.stringify("a: 1\n---\n2\n")],
    ['import "encoding/yaml"', "yaml.Marshal({a: int})", "error: incomplete"],
    ['import "text/template"', 'template.Execute("{{.a}}-{{ .b.c }}!", {a: 1, b: c: "x"})', '"1-x!"'],
    ['import "text/template"', 'template.Execute("{{.missing}}", {})', '"<no value>"'],
    ['import "text/template"', 'template.Execute("{{.}}", {b: 2, a: [1, 2]})', '"map[a:[1 2] b:2]"'],
    ['import "text/template"', 'template.Execute("{{.x}}", {x: string})', "error: incomplete"],
    ['import "text/template"', 'template.Execute("{{range .x}}{{end}}", {x: [1]})', "error: unsupported"],
    ['import "text/template"', "template.HTMLEscape(\"<a href='x'>\")", '"&lt;a href=&#39;x&#39;&gt;"'],
    ['import "crypto/sha256"', 'sha256.Sum256("abc")', '"ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="'],
    ['import "crypto/md5"', 'md5.Sum("")', '"1B2M2Y8AsgTpgAmY7PhCfg=="'],
    ['import "path"', 'path.Base("/a/b.txt")', '"b.txt"'],
    ['import "path"', 'path.Dir("/a/b.txt")', '"/a"'],
    ['import "path"', 'path.Ext("/a/b.txt")', '".txt"'],
    ['import "path"', 'path.Join(["a", "b/../c", ""])', '"a/c"'],
    ['import "path"', 'path.Clean("a//b/./c/")', '"a/b/c"'],
    ['import "path"', 'path.Split("a/b/c")', '["a/b/","c"]'],
    ['import "path"', 'path.IsAbs("/x")', "true"],
    ['import "path"', 'path.Base("a\\\\b", "windows")', "error: eval"],
    ['import "html"', 'html.Escape("<\'&\\">")', '"&lt;&#39;&amp;&#34;&gt;"'],
    ['import "html"', 'html.Unescape("&lt;&#65;&amp;")', '"<A&"'],
  ];
  for (const [imports, expr, want] of cases) {
    it(expr, () => assert.equal(evalX(imports, expr), want));
  }
});
