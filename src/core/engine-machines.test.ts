import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { compileConfig } from "../engine/index.js";
import { type Config, EMPTY_CONFIG } from "../model/config.js";
import { encodeJson, encodeSharedJson } from "../store/json-codec.js";
import { engineMachines } from "./engine-machines.js";
import { fleetConfig, fleetHost, fleetService } from "./fleet-config.js";

const configs: [string, Config][] = [
  ["empty", EMPTY_CONFIG],
  ["a fleet of 3 × 2", fleetConfig({ hosts: 3, servicesPerHost: 2 })],
  [
    "a fleet of 40 × 7, freshness 5 min",
    fleetConfig({ hosts: 40, servicesPerHost: 7, freshnessMs: 300_000 }),
  ],
];

describe("engineMachines: the writer's form of a config", () => {
  for (const [name, config] of configs) {
    const compiled = compileConfig(config);
    it(`${name}: what it logs reads back the same`, () => {
      assert.deepStrictEqual(engineMachines.decode(engineMachines.encode(compiled)), compiled);
    });
    it(`${name}: rows of earlier versions (a typed Config as Map-aware JSON) are compiled when read`, () => {
      assert.deepStrictEqual(engineMachines.decode(encodeSharedJson(config)), compiled);
      assert.deepStrictEqual(engineMachines.decode(encodeJson(config)), compiled);
    });
    it(`${name}: adopts a compiled config as it comes, and compiles a Config`, () => {
      assert.equal(engineMachines.adopt(compiled), compiled);
      assert.deepStrictEqual(engineMachines.adopt(structuredClone(compiled)), compiled);
      assert.deepStrictEqual(engineMachines.adopt(config), compiled);
    });
  }

  it("knows the objects of a config", () => {
    const objects = engineMachines.objects(compileConfig(fleetConfig({ hosts: 2, servicesPerHost: 2 })));
    const table: [string, string | undefined, boolean][] = [
      [fleetHost(0), undefined, true],
      [fleetHost(1), fleetService(1), true],
      [fleetHost(2), undefined, false],
      [fleetHost(0), fleetService(2), false],
      [fleetService(0), undefined, false],
    ];
    for (const [host, service, want] of table) {
      const got = service === undefined ? objects.hasHost(host) : objects.hasService(host, service);
      assert.equal(got, want, `${host} ${service ?? ""}`);
    }
  });
});
