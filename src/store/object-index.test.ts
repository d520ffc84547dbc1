import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fleetConfig } from "../core/fleet-config.js";
import { parseSelector, type Selector } from "../model/selector.js";
import { createObjectIndex } from "./object-index.js";
import { listObjects } from "./read-model.js";

// host-00000 .. host-00002, each with svc-000 .. svc-002: positions 0..11.
const index = createObjectIndex(fleetConfig({ hosts: 3, servicesPerHost: 3 }));

describe("ObjectIndex", () => {
  it("orders hosts, each host before its services", () => {
    assert.equal(index.size, 12);
    assert.deepEqual(
      Array.from({ length: 5 }, (_, i) => index.entry(i).key),
      ["host-00000", "host-00000!svc-000", "host-00000!svc-001", "host-00000!svc-002", "host-00001"],
    );
    assert.deepEqual(index.entry(5).labels, { env: "dev", rack: "r1", tier: "web" });
  });

  const positions: [string, number | undefined][] = [
    ["host-00000", 0],
    ["host-00001!svc-002", 7],
    ["host-00002!svc-000", 9],
    ["host-00002!svc-009", undefined],
    ["host-00009", undefined],
    ["host-00001!", undefined],
  ];
  for (const [key, want] of positions) {
    it(`position(${key}) = ${want}`, () => assert.equal(index.position(key), want));
  }

  const bounds: [string, string | undefined, number][] = [
    ["host-00000", undefined, 1],
    ["host-00000", "svc-002", 4],
    ["host-00000", "svc-0015", 3],
    ["host-00001", "zzz", 8],
    ["host-0000", undefined, 0],
    ["host-00005", undefined, 12],
  ];
  for (const [host, service, want] of bounds) {
    it(`upperBound(${host}, ${service}) = ${want}`, () =>
      assert.equal(index.upperBound(host, service), want));
  }

  it("caches selector matches", () => {
    const sel = (parseSelector("env=prod, tier=db") as { selector: Selector }).selector;
    assert.deepEqual([...index.matching(sel)], [2, 10]);
    assert.equal(index.matching(sel), index.matching(sel));
  });

  it("keeps a service's key from heldKey once there is one, asking until then", () => {
    const asked: string[] = [];
    // Only host-00000's services are held (have a record).
    const shared = createObjectIndex(fleetConfig({ hosts: 3, servicesPerHost: 3 }), (k) => {
      asked.push(k);
      return k.startsWith("host-00000!") ? k : undefined;
    });
    for (const i of [0, 1, 2, 1, 4, 5, 5]) shared.keyAt(i);
    assert.deepEqual(asked, [
      "host-00000!svc-000",
      "host-00000!svc-001",
      "host-00001!svc-000",
      "host-00001!svc-000",
    ]);
    assert.equal(shared.keyAt(5), "host-00001!svc-000");
    assert.equal(shared.keyAt(4), "host-00001");
  });

  it("resumes a page after an object that a reload removed", () => {
    const token = Buffer.from("k:host-00001!svc-0015").toString("base64url");
    const page = listObjects(index, { pageSize: 2, pageToken: token });
    assert.deepEqual(
      page.items.map((e) => e.key),
      ["host-00001!svc-002", "host-00002"],
    );
  });
});
