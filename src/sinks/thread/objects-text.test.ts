import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fleetConfig, fleetHost, fleetService } from "../../core/fleet-config.js";
import type { Config } from "../../model/config.js";
import { configLookup } from "../records.js";
import { decodeSinkObjects, encodeSinkObjects } from "./objects-text.js";

/** A fleet whose objects have labels and zones of their own. */
function labelled(hosts: number, services: number): Config {
  const base = fleetConfig({ hosts, servicesPerHost: services, maxAttempts: 1 });
  const out = new Map(
    [...base.hosts].map(([name, h], i) => [
      name,
      {
        ...h,
        zone: i % 2 === 0 ? "eu" : "us",
        labels: { env: i % 3 === 0 ? "prod" : "dev", "app.tier": "web" },
        services: new Map(
          [...h.services].map(([s, svc], j) => [
            s,
            { ...svc, zone: "eu", labels: j % 2 === 0 ? { team: "db" } : {} },
          ]),
        ),
      },
    ]),
  );
  return { ...base, hosts: out } as unknown as Config;
}

describe("the sink thread's objects text", () => {
  for (const c of [
    { name: "no objects", hosts: 0, services: 0 },
    { name: "hosts without services", hosts: 5, services: 0 },
    { name: "hosts with services", hosts: 7, services: 6 },
  ]) {
    it(`looks every object up as the configuration does: ${c.name}`, async () => {
      const config = labelled(c.hosts, c.services);
      const want = configLookup(config);
      const got = configLookup(decodeSinkObjects(await encodeSinkObjects(config)));
      for (let h = 0; h < c.hosts; h++) {
        const host = fleetHost(h);
        assert.deepEqual(got(host, undefined), want(host, undefined));
        for (let s = 0; s < c.services; s++)
          assert.deepEqual(
            got(host, fleetService(s)),
            want(host, fleetService(s)),
            `${host}!${fleetService(s)}`,
          );
        assert.deepEqual(got(host, "no-such-service"), want(host, "no-such-service"));
      }
      assert.equal(got("no-such-host", undefined), undefined);
    });
  }

  it("encodes in steps of at most perStep objects, yielding between them", async () => {
    const config = labelled(50, 9); // 500 objects
    let turns = 0;
    let counting = true;
    const tick = (): void => {
      turns++;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    await encodeSinkObjects(config, 100);
    counting = false;
    // 500 objects in steps of at most 100 (a host's services stay in its step): at least 4 yields.
    assert.ok(turns >= 4, `turns: ${turns}`);
  });
});
