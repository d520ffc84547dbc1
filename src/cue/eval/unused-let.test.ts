import { type EvalCase, evalCases } from "./eval-cases.case.js";

/** cue's compiler rejects a struct's `let` that nothing refers to; documents written for these tests. */

const cases: EvalCase[] = [
  {
    name: "an unused let of a nested struct is an error at that struct",
    src: 'svc: web: {\n\tlet port = 80\n\thost: "a"\n}',
    err: { path: "svc.web", code: "eval", msg: "unreferenced alias or let clause port" },
  },
  {
    name: "an unused let of the file is an error",
    src: "let base = {}\nx: 1",
    err: { path: "", code: "eval", msg: "unreferenced alias or let clause base" },
  },
  { name: "a let used by a field is fine", src: "let n = 2\nx: n + 1", json: '{"x":3}' },
  {
    name: "a let used only in a nested struct and an interpolation is fine",
    src: 'let h = "db"\na: b: {c: "\\(h):5432"}',
    json: '{"a":{"b":{"c":"db:5432"}}}',
  },
  {
    name: "a let used only by another let that is used is fine",
    src: "let a = 1\nlet b = a + 1\nx: b",
    json: '{"x":2}',
  },
  {
    name: "a let used by a comprehension is fine",
    src: "let xs = [1, 2]\nys: [for x in xs {x * 2}]",
    json: '{"ys":[2,4]}',
  },
];

evalCases("cue unreferenced let clauses", cases, { compileErrors: true });
