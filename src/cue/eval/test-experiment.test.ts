import { type EvalCase, evalCases } from "./eval-cases.case.js";

/**
 * cue's predeclared `__test_experiment(x)` gives `x` in a file with `@experiment(testing)` and an
 * error elsewhere (how cue checks that experiments are per file); documents written for these tests.
 */

const cases: EvalCase[] = [
  {
    name: "with the experiment, the argument",
    src: '@experiment(testing)\n\nmode: __test_experiment("probe")',
    json: '{"mode":"probe"}',
  },
  {
    name: "without it, an error at the call",
    src: 'mode: __test_experiment("probe")',
    err: { path: "mode", code: "eval", msg: "error in call to testExperiment: testing experiment disabled" },
  },
  {
    name: "a (hidden) field of that name is a reference, not the builtin",
    src: "__test_experiment: 3\nv: __test_experiment",
    json: '{"v":3}',
  },
];

evalCases("cue __test_experiment", cases);
