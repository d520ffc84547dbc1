import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fleetConfig } from "../core/fleet-config.js";
import { decodeJson, encodeJson, encodeSharedJson } from "./json-codec.js";

const flap = { enabled: true, alpha: 0.1 };
const check = { type: "passive", flap };
const labels = { tier: "web" };

/** A decoded value; each case reaches into it by its own shape. */
// biome-ignore lint/suspicious/noExplicitAny: the cases' values have different shapes.
type Decoded = any;

/** [name, value, objects decodeJson(encodeSharedJson(value)) must give back as one]. */
const cases: [string, unknown, (v: Decoded) => unknown[][]][] = [
  ["a scalar", 42, () => []],
  ["a plain object without sharing", { a: 1, b: [1, "x"], c: null }, () => []],
  ["maps", new Map<string, unknown>([["a", new Map([["b", 1]])]]), () => []],
  [
    "objects reached twice, nested sharing",
    {
      s: [
        { check, labels },
        { check, labels },
        { check: { ...check }, labels },
      ],
    },
    (v) => [
      [v.s[0].check, v.s[1].check],
      [v.s[0].labels, v.s[1].labels, v.s[2].labels],
      [v.s[0].check.flap, v.s[2].check.flap],
    ],
  ],
  [
    "shared arrays inside maps",
    new Map([["x", { p: labels, q: [labels] }]]),
    (v) => [[v.get("x").p, v.get("x").q[0]]],
  ],
  [
    "keys that are object words",
    { a: { ["__proto__"]: labels }, b: labels },
    (v) => [[Object.getOwnPropertyDescriptor(v.a, "__proto__")?.value, v.b]],
  ],
];

describe("JSON codec", () => {
  for (const [name, value, sameObjects] of cases) {
    it(`${name}: encodeSharedJson round-trips and keeps sharing`, () => {
      const text = encodeSharedJson(value);
      const back = decodeJson<unknown>(text);
      assert.deepStrictEqual(back, decodeJson(encodeJson(value)));
      for (const group of sameObjects(back)) {
        for (const o of group) assert.equal(o, group[0]);
      }
    });
  }

  it("reads what encodeJson writes (rows written before sharing)", () => {
    const config = fleetConfig({ hosts: 3, servicesPerHost: 2 });
    assert.deepStrictEqual(decodeJson(encodeJson(config)), decodeJson(encodeSharedJson(config)));
  });

  it("writes a fleet's config in a third of the text", () => {
    const config = fleetConfig({ hosts: 100, servicesPerHost: 10 });
    const plain = encodeJson(config).length;
    const shared = encodeSharedJson(config).length;
    assert.ok(shared * 2.5 < plain, `${shared} vs ${plain}`);
  });

  it("leaves a lone $ref alone outside the shared form", () => {
    assert.deepStrictEqual(decodeJson('{"a":{"$ref":0}}'), { a: { $ref: 0 } });
  });
});
