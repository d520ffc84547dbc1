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
  /** The declarations are the body of this field (its value is what `json` gives). */
  readonly wrap?: string;
  readonly json?: unknown;
  /** Paths that must have an error (in every order), never a value. */
  readonly errAt?: readonly string[];
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
    name: "a condition on a builtin's result whose argument a literal already gives",
    head: 'import "regexp"\n#re: #"^(v=(?P<v>.*))?$"#\n',
    decls: [
      'S: "v=on"',
      '#w: {\n\tif M.v == _|_ {v: ""}\n\tif M.v != _|_ {v: "v=" + M.v}\n}',
      "M: regexp.FindNamedSubmatch(#re, S)",
      "S: #w.v",
    ],
    json: { S: "v=on", M: { v: "on" } },
  },
  {
    name: "a condition on a builtin's result whose argument depends on that condition",
    head: 'import "regexp"\nimport "strconv"\n#re: #"^(:(?P<n>[0-9]+))?$"#\n',
    decls: [
      "#M: regexp.FindNamedSubmatch(#re, #W.n)",
      "P: {\n\tif #M.n != _|_ {n: strconv.Atoi(#M.n)}\n}",
      '#W: {\n\tif P.n == _|_ {n: ""}\n\tif P.n != _|_ {n: ":" + strconv.FormatInt(P.n, 10)}\n}',
    ],
    errAt: ["P", "#W", "#M"],
  },
  {
    name: "a condition on a declared field of a struct whose own condition reads back",
    decls: [
      'cfg: mode: "fast"',
      "tuning: {\n\tif cfg.mode == _|_ {level: 1}\n}",
      "cfg: {\n\tif tuning.level == _|_ {extra: true}\n}",
    ],
    json: { cfg: { mode: "fast", extra: true }, tuning: {} },
  },
  {
    name: "dynamic labels chained through the struct's own name",
    wrap: "t",
    decls: ['(t.four): "three"', '(t.two): "one"', 'two: "four"'],
    json: { two: "four", four: "one", one: "three" },
  },
  {
    name: "a dynamic label no field gives stays an error",
    wrap: "t",
    decls: ['(t.nope): "x"', '(t.other): "y"', 'a: "b"'],
    errAt: ["t"],
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
        const body = order.join("\n");
        const text = (c.head ?? "") + (c.wrap !== undefined ? `${c.wrap}: {\n${body}\n}\n` : `${body}\n`);
        const v = compile([{ name: "in.cue", text }]);
        const r = v.toJSON(0);
        const where = `order ${order.join(" | ")}`;
        if (c.errAt !== undefined) {
          assert.ok(!r.ok, `${where}: a value where an error is due: ${r.ok ? r.text : ""}`);
          const errs = [...v.errors, ...r.errors];
          for (const at of c.errAt) {
            assert.ok(
              errs.some((e) => e.path.join(".").startsWith(at)),
              `${where}: no error at ${at}: ${formatErrors(errs)}`,
            );
          }
          continue;
        }
        assert.ok(r.ok, `${where}: ${r.ok ? "" : formatErrors(r.errors)}`);
        const got = JSON.parse(r.text);
        assert.deepEqual(c.wrap !== undefined ? got[c.wrap] : got, c.json, where);
      }
    });
  }
});
