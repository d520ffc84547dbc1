import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compile } from "../index.js";
import { type EvalCase, evalCases } from "./eval-cases.case.js";

/**
 * A struct that refers to a vertex inside itself (`t: {c: d: {…}, c.d}`) adds what that vertex
 * holds to itself, which may add to the vertices between them, which changes the vertex in turn:
 * CUE takes the struct to a fixpoint (issue 31: these fields were silently missing).
 */
const cases: EvalCase[] = [
  {
    name: "an embedded field that adds to the struct it was read through",
    src: "svc: {\n\tcfg: web: {port: 80, cfg: tls: true}\n\tcfg.web\n}",
    json: '{"svc":{"cfg":{"web":{"port":80,"cfg":{"tls":true}},"tls":true},"port":80}}',
  },
  {
    name: "an embedded field that adds to itself, embedded again",
    src: 'app: {\n\tenv: prod: {replicas: 3, env: prod: zone: "eu"}\n\tenv.prod\n}',
    json: '{"app":{"env":{"prod":{"replicas":3,"env":{"prod":{"zone":"eu"}},"zone":"eu"}},"replicas":3,"zone":"eu"}}',
  },
  {
    name: "a declaration after the embedding that read its field",
    src: "later: {\n\tx: y: a: 1\n\tx.y\n\tx: y: b: 2\n}",
    json: '{"later":{"x":{"y":{"a":1,"b":2}},"a":1,"b":2}}',
  },
  {
    name: "two embeddings that add to each other's source",
    src: "pair: {\n\tp: q: {n: 1, p: k: 2}\n\tq: p: {m: 3, q: j: 4}\n\tp\n\tq\n}",
    json: '{"pair":{"p":{"q":{"n":1,"p":{"k":2},"j":4},"m":3,"k":2},"q":{"p":{"m":3,"q":{"j":4},"k":2},"n":1,"j":4},"n":1,"m":3,"k":2,"j":4}}',
  },
  {
    name: "a field unified with its own subfield",
    src: "cfg: {\n\tbase: {x: 1, base: y: 2}\n}\ncfg: cfg.base",
    json: '{"cfg":{"base":{"x":1,"base":{"y":2},"y":2},"x":1,"y":2}}',
  },
  {
    name: "a self reference that grows through a disjunction is refused",
    src: "w: {\n\ts: S=S.n\n\tt: n: n: {v: 1} | t\n\to: s & t\n}",
    err: { path: "w.o", code: "unsupported", msg: "not evaluated to a fixpoint" },
  },
  {
    name: "a field that feeds back only a struct that is already there is not refused",
    src: "root: input: #deps: root: {}\n{root.input.#deps}",
    json: '{"root":{"input":{}}}',
  },
  {
    name: "an embedded definition of the struct whose value a later conjunct gives",
    src: 'mode: {#sel: _, _}\nmode: {#sel, #sel: _}\nmode: {_, #sel: "on"}',
    json: '{"mode":"on"}',
  },
];

evalCases("references into their own struct (fixpoint)", cases);

describe("structs that read each other's growing fields", () => {
  it("are refused at the reader evaluated first, not left short of a field", () => {
    const src = "left: a: a: p: 1\nleft: right.a\nright: a: a: q: 2\nright: left.a";
    const r = compile([{ name: "in.cue", text: src }]).toJSON(0);
    assert.equal(r.ok, false, r.ok ? `unexpected success: ${r.text}` : "");
    const e = r.ok ? undefined : r.errors[0];
    assert.equal(e?.code, "unsupported");
    assert.match(e?.message ?? "", /mutual references not evaluated to a fixpoint/);
    // Which of the two reads the other first depends on the evaluation order (export or lookup).
    assert.ok(["left", "right"].includes(e?.path.join(".") ?? ""), e?.path.join("."));
  });
});
