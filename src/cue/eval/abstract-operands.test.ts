import { type EvalCase, evalCases } from "./eval-cases.case.js";

/**
 * cue's compiler refuses an operand that can never be concrete (a bound, a predeclared type, `_`)
 * of any operator but `&` and `|`; documents written for these tests.
 */

const cases: EvalCase[] = [
  {
    name: "a bound times a list",
    src: "svc: {\n\tports: >=1 * [int]\n}",
    err: { path: "svc.ports", code: "eval", msg: "invalid operand >=1 ('*' requires concrete value)" },
  },
  {
    name: "a predeclared type plus a number",
    src: "retries: int + 1",
    err: { path: "retries", code: "eval", msg: "invalid operand int ('+' requires concrete value)" },
  },
  {
    name: "a predeclared range in a comparison",
    src: "ok: uint8 < 4",
    err: { path: "ok", code: "eval", msg: "invalid operand uint8 ('<' requires concrete value)" },
  },
  {
    name: "top in a boolean operation",
    src: "up: _ && true",
    err: { path: "up", code: "eval", msg: "invalid operand _ ('&&' requires concrete value)" },
  },
  {
    name: "inside a comprehension's value, below for[]",
    src: 'out: {\n\tfor h in [1] {\n\t\tn: string + "x"\n\t}\n}',
    err: { path: "out.for[].n", code: "eval", msg: "invalid operand string ('+' requires concrete value)" },
  },
  {
    name: "the whole document is refused, as by cue's compiler",
    src: 'name: "web"\nport: <=2 * 3',
    err: { path: "port", code: "eval", msg: "invalid operand <=2 ('*' requires concrete value)" },
  },
  { name: "a parenthesised conjunction is left to evaluation", src: "x: (>=1 & 3) * 2", json: '{"x":6}' },
  { name: "bounds meet with &", src: "x: >=1 & <=5 & 3", json: '{"x":3}' },
  { name: "a disjunction of types is fine", src: "x: int | string\nx: 1", json: '{"x":1}' },
  { name: "concrete operands are fine", src: "x: 2 * 3 + len([1])", json: '{"x":7}' },
  {
    name: "a field that shadows a predeclared name is a reference",
    src: "int: 4\nx: int + 1",
    json: '{"int":4,"x":5}',
  },
];

evalCases("cue operands that can never be concrete", cases, { compileErrors: true });
