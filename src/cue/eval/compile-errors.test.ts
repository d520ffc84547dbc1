import { type EvalCase, evalCases } from "./eval-cases.case.js";

/**
 * Errors cue's compiler reports (not its parser) are at the path of the declaration they are found
 * in, as `cue` prints them; documents written for these tests.
 */

const cases: EvalCase[] = [
  {
    name: "`_` as a field label is an error at the struct declaring it",
    src: "hosts: web: {\n\t_: 80\n}",
    err: { path: "hosts.web", code: "syntax", msg: "cannot use _ as label" },
  },
  {
    name: "`_` as a label alias is an error at the struct declaring it",
    src: "checks: {\n\t_=P: 1\n}",
    err: { path: "checks", code: "syntax", msg: "cannot use _ as alias or let clause" },
  },
  {
    name: "`_` as a let name is an error at the struct declaring it",
    src: "zone: {\n\tlet _ = 2\n}",
    err: { path: "zone", code: "syntax", msg: "cannot use _ as alias or let clause" },
  },
  {
    name: "a quoted label is one path element",
    src: 'svc: "web-1": _: 1',
    err: { path: "svc.web-1", code: "syntax", msg: "cannot use _ as label" },
  },
  {
    name: "an error inside a let's expression is below let[]",
    src: "a: {\n\tlet t = {_: 1}\n\tx: t\n}",
    err: { path: "a.let[]", code: "syntax", msg: "cannot use _ as label" },
  },
  {
    name: "an error inside a comprehension's value is below for[]",
    src: "a: {\n\tfor k in [1] {\n\t\tb: {_: 2}\n\t}\n}",
    err: { path: "a.for[].b", code: "syntax", msg: "cannot use _ as label" },
  },
  {
    name: "a comprehension as a pattern is refused at the struct declaring it",
    src: "ports: {\n\t[for p in [80] {p}]: int\n}",
    err: { path: "ports", code: "syntax", msg: "comprehension values not allowed in this position" },
  },
  {
    name: "a real syntax error stays at the root",
    src: "a: {\n\t_: 1\n\tb: }",
    err: { path: "", code: "syntax", msg: "" },
  },
];

evalCases("cue compile errors at their declaration's path", cases, { compileErrors: true });
