import { type EvalCase, evalCases } from "./eval-cases.case.js";

/**
 * cue's compiler compiles the computed labels of aliased fields in declaration order: one naming
 * its own alias or a later one is a cycle, at the struct; documents written for these tests.
 */

const msg = "cyclic reference in field alias";

const cases: EvalCase[] = [
  {
    name: "a computed label naming its own alias",
    src: "hosts: {\n\tH=(H): 1\n}",
    err: { path: "hosts", code: "eval", msg },
  },
  {
    name: "a computed label naming the alias of a later computed label",
    src: 'svc: {\n\tA=(B): "x"\n\tB=("web"): "y"\n\tout: A\n}',
    err: { path: "svc", code: "eval", msg },
  },
  {
    name: "a computed label naming the alias of an earlier one is fine",
    src: 'svc: {\n\tB=("web"): "y"\n\tA=("\\(B)-1"): "x"\n\tout: A\n}',
    json: '{"svc":{"out":"x","web":"y","y-1":"x"}}',
  },
];

evalCases("cue computed labels naming field aliases", cases, { compileErrors: true });
