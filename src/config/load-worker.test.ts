import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HostConfig } from "../model/config.js";
import { createPartSharer } from "./load-worker.js";

/** A host whose own labels are `a` and whose one service's labels are `b`. */
function hostWith(a: unknown, b: unknown): HostConfig {
  const service = { host: "h", name: "s", vars: {}, check: {}, notification: "", zone: "z", labels: b };
  return {
    name: "h",
    address: "a",
    parents: [],
    vars: {},
    check: {},
    services: new Map([["s", service]]),
    notification: "",
    zone: "z",
    labels: a,
  } as unknown as HostConfig;
}

describe("createPartSharer makes parts one object when they are equal as the interner tells", () => {
  /** [name, one part, another, whether they become one object]. */
  const cases: [string, unknown, unknown, boolean][] = [
    ["equal label sets", { tier: "web", rack: "r1" }, { tier: "web", rack: "r1" }, true],
    ["nested objects and lists", { a: [1, { b: "x" }], c: null }, { a: [1, { b: "x" }], c: null }, true],
    ["a field set to undefined and an absent one", { a: undefined }, {}, false],
    ["0 and -0", { n: 0 }, { n: -0 }, false],
    ["NaN and NaN", { n: Number.NaN }, { n: Number.NaN }, true],
    ["the same fields in another order", { a: "1", b: "2" }, { b: "2", a: "1" }, false],
    ["a string and a number", { a: "1" }, { a: 1 }, false],
    ["a list and an object with index keys", { a: ["x"] }, { a: { 0: "x" } }, false],
    [
      "a null-prototype object and a plain one",
      Object.assign(Object.create(null), { a: "1" }),
      { a: "1" },
      false,
    ],
    ["objects holding a map (never shared)", { m: new Map() }, { m: new Map() }, false],
  ];
  for (const [name, a, b, same] of cases) {
    it(name, () => {
      const share = createPartSharer();
      const first = share(hostWith(a, b));
      const second = share(hostWith(structuredClone(b), structuredClone(a)));
      const svc = (h: HostConfig) => [...h.services.values()][0]?.labels;
      assert.equal(first.labels === svc(first), same, "within one host");
      assert.equal(second.labels === first.labels, same, "across hosts");
      assert.deepStrictEqual(first.labels, a, "values are unchanged");
      assert.deepStrictEqual(svc(first), b);
    });
  }

  it("shares checks, vars and parents too, and copies hosts without touching the decoder's", () => {
    const share = createPartSharer();
    const check = (addr: string) => Object.freeze({ type: "tcp", address: addr, flap: Object.freeze({}) });
    const h = (name: string): HostConfig =>
      Object.freeze({
        ...hostWith({}, {}),
        name,
        check: check("x:1"),
        vars: Object.freeze({ v: "1" }),
        parents: Object.freeze(["p"]),
      }) as unknown as HostConfig;
    const [a, b] = [share(h("a")), share(h("b"))];
    assert.equal(a.check, b.check);
    assert.equal(a.vars, b.vars);
    assert.equal(a.parents, b.parents);
    assert.equal(a.name, "a");
    assert.equal(b.name, "b");
  });
});
