import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile, formatErrors } from "../index.js";

/**
 * Reference cycles through builtins, comprehensions and dynamic fields whose answer must not
 * depend on the order the declarations are written in (cue's does not): every order of `decls` is
 * evaluated and must give the same JSON, or an error at `errAt`. Documents written for these tests.
 */

interface OrderCase {
  readonly name: string;
  /** Written before the declarations in every order (imports). */
  readonly head?: string;
  readonly decls: readonly string[];
  readonly json?: unknown;
  /** A path that must have an error (in every order), never a value. */
  readonly errAt?: string;
}

const cases: OrderCase[] = [
  {
    name: "a builtin's result read back by the field its argument comes from",
    head: 'import "strings"\n',
    decls: [
      'name: "web-1"',
      'parts: {\n\t#split: {first: strings.Split(name, "-")[0]}\n\tfirst: #split.first\n}',
      'name: parts.first + "-1"',
    ],
    json: { name: "web-1", parts: { first: "web" } },
  },
  {
    name: "a field of a regexp's named groups read back through a cycle",
    head: 'import "regexp"\n',
    decls: [
      'addr: "db.internal"',
      's: {\n\t#m: regexp.FindNamedSubmatch(#"^(?P<h>[a-z.]+)$"#, addr)\n\th: #m.h\n}',
      "addr: s.h",
    ],
    json: { addr: "db.internal", s: { h: "db.internal" } },
  },
  {
    name: "dynamic labels chained through the struct's own name",
    decls: ['(t.four): "three"', '(t.two): "one"', 'two: "four"'],
    json: { two: "four", four: "one", one: "three" },
  },
  {
    name: "a dynamic label no field gives stays an error",
    decls: ['(t.nope): "x"', '(t.other): "y"', 'a: "b"'],
    errAt: "",
  },
];

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  const out: T[][] = [];
  xs.forEach((x, i) => {
    for (const rest of permutations([...xs.slice(0, i), ...xs.slice(i + 1)])) out.push([x, ...rest]);
  });
  return out;
}

describe("cue cycles: the answer does not depend on declaration order", () => {
  for (const c of cases) {
    it(c.name, () => {
      for (const order of permutations(c.decls)) {
        // Dynamic-label cases refer to the struct by name `t`.
        const body = order.join("\n");
        const wrapped = c.name.includes("struct's own name") || c.errAt !== undefined;
        const text = (c.head ?? "") + (wrapped ? `t: {\n${body}\n}\n` : `${body}\n`);
        const v = compile([{ name: "in.cue", text }]);
        const r = v.toJSON(0);
        if (c.errAt !== undefined) {
          assert.ok(
            !r.ok,
            `order ${order.join(" | ")}: a value where an error is due: ${r.ok ? r.text : ""}`,
          );
          continue;
        }
        assert.ok(r.ok, `order ${order.join(" | ")}: ${r.ok ? "" : formatErrors(r.errors)}`);
        const got = JSON.parse(r.text);
        assert.deepEqual(wrapped ? got.t : got, c.json, `order ${order.join(" | ")}`);
      }
    });
  }
});
