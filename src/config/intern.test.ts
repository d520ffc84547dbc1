import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Config } from "../model/config.js";
import { loadConfigInWorker } from "./load-in-worker.js";
import { generateFleet } from "./testing/generate-fleet.js";

/** Distinct objects reachable from the hosts of `config`, by what they are. */
function census(config: Config): Record<"checks" | "flaps" | "labels" | "vars", number> {
  const checks = new Set<object>();
  const flaps = new Set<object>();
  const labels = new Set<object>();
  const vars = new Set<object>();
  for (const h of config.hosts.values()) {
    for (const o of [h, ...h.services.values()]) {
      checks.add(o.check);
      flaps.add(o.check.flap);
      labels.add(o.labels);
      vars.add(o.vars);
    }
  }
  return { checks: checks.size, flaps: flaps.size, labels: labels.size, vars: vars.size };
}

describe("a Config loaded on the worker shares its equal parts across batches", () => {
  /** [name, document, hosts+services per batch, distinct objects expected]. */
  const cases: [string, string, number, ReturnType<typeof census>][] = [
    [
      // 40 hosts × 10 services: host checks differ by address, service checks by URL (http), name
      // (dns) and port (tcp), passive and tls ones are all alike; host label sets differ by rack,
      // services have none or {app: app0|3|6|9}; hosts share their vars, services have none.
      "a fleet of 400 services in batches of 7",
      generateFleet({ services: 400 }),
      7,
      { checks: 40 + 80 + 80 + 1 + 1 + 80, flaps: 1, labels: 40 + 5, vars: 2 },
    ],
    [
      "the same fleet in one batch",
      generateFleet({ services: 400 }),
      1_000_000,
      { checks: 40 + 80 + 80 + 1 + 1 + 80, flaps: 1, labels: 40 + 5, vars: 2 },
    ],
  ];
  for (const [name, doc, batchObjects, want] of cases) {
    it(name, async () => {
      const r = await loadConfigInWorker({ file: "f.cue", text: doc, batchObjects });
      assert.ok(r.ok);
      assert.deepEqual(census(r.config), want);
    });
  }
});
