import { type EvalCase, evalCases } from "./eval-cases.case.js";

/**
 * Lets that refer to each other through nested structs, lists and comprehensions are a cycle for
 * cue's compiler too, reported at the path where the cycle is met; documents written for these tests.
 */

const msg = "cyclic references in let clause or alias";

const cases: EvalCase[] = [
  {
    name: "through a struct field",
    src: "cfg: {\n\tlet A = {b: B}\n\tlet B = A\n\tout: A\n}",
    err: { path: "cfg.let[].b", code: "eval", msg },
  },
  {
    name: "through an embedding",
    src: "cfg: {\n\tlet A = {host: B}\n\tlet B = {A.host}\n\tout: A\n}",
    err: { path: "cfg.let[].host", code: "eval", msg },
  },
  {
    name: "through a list comprehension",
    src: "let xs = [for i in [1] {n: ys[0]}]\nlet ys = [for x in xs {x}]\nout: ys",
    err: { path: "let[].for[].n", code: "eval", msg },
  },
  {
    name: "met first from a field, at the let reached second",
    src: "s: {\n\tout: A\n\tlet A = {c: B}\n\tlet B = A\n}",
    err: { path: "s.let[]", code: "eval", msg },
  },
  {
    name: "a field of the nested struct shadows the let",
    src: "let A = {A: 1, b: A}\nout: A",
    json: '{"out":{"A":1,"b":1}}',
  },
  {
    name: "a comprehension variable shadows the let",
    src: "let x = [for x in [1, 2] {x}]\nout: x",
    json: '{"out":[1,2]}',
  },
  {
    name: "nested lets in order",
    src: 'let base = {port: 80}\nlet svc = {p: base.port, n: "web"}\nout: svc',
    json: '{"out":{"p":80,"n":"web"}}',
  },
];

evalCases("cue let cycles through nested values", cases, { compileErrors: true });
